"""The settings refuse API tokens that would not protect anything: empty, short, or long but
made of a few characters repeated (issue 17: sixteen "0"s were accepted)."""

from __future__ import annotations

import pytest

from schemas.settings import Settings


@pytest.mark.parametrize(
    ("token", "says"),
    [
        ("", "set but empty"),
        ("short-token", "too short"),
        ("0" * 16, "too easy to guess"),
        ("abcabcabcabcabcabcabc", "too easy to guess"),
        ("abcdefgabcdefgabcdefg", "too easy to guess"),  # 7 different characters
    ],
)
def test_weak_api_tokens_are_refused(token, says):
    with pytest.raises(ValueError, match=says):
        Settings(api_token=token)


def test_a_token_of_sixteen_characters_eight_of_them_different_is_accepted():
    assert Settings(api_token="abcdefghabcdefgh").api_token is not None
