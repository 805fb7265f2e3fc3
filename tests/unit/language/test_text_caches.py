"""Every cache of tenant text in a process is emptied by one call."""

from __future__ import annotations

from language.text_caches import clear_text_caches, text_cache
from language.tokens import terms


@text_cache(maxsize=8)
def shouted(text: str) -> str:
    return text.upper()


def test_a_text_cache_memoises_and_is_emptied_with_the_others() -> None:
    assert shouted("my pin is 4417") == "MY PIN IS 4417"
    assert shouted("my pin is 4417") == "MY PIN IS 4417"
    assert shouted.cache_info().hits == 1
    terms("Rosa moved to Porto in May")
    assert shouted.cache_info().currsize == 1 and terms.cache_info().currsize >= 1
    assert clear_text_caches() >= 2
    assert shouted.cache_info().currsize == 0 and terms.cache_info().currsize == 0
