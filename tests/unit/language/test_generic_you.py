"""Which "you" means anyone and which the listener (`language.generic_you`), on sentences written
for this test: the words before the "you" and after it."""

from __future__ import annotations

import pytest

from language.generic_you import is_generic_you


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("If ", " practise daily, the scales get easy"),
        ("Cold water makes ", " feel awake"),
        ("", " can never tell with ferries"),
        ("It's a long climb, ", " know?"),
        ("On the ice ", " must be careful with every step"),
    ],
)
def test_anyone(before: str, after: str) -> None:
    assert is_generic_you(before, after)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("I was wondering if ", " could read my draft"),
        ("I'm hoping ", " can come on Friday"),
        ("Maybe ", " could help me with the move"),
        ("Thanks for any tips ", " can share"),
        ("I'd appreciate it if ", " could check the invoice"),
        ("I think ", " know my cousin Ana"),
        ("I'll let ", " know on Monday"),
        ("I bet ", " must have been exhausted after the race"),
        ("", " must've loved the view"),
    ],
)
def test_the_listener(before: str, after: str) -> None:
    assert not is_generic_you(before, after)
