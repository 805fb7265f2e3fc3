"""Equal reading cost: both sides read best-first until the same number of words.

A longer memory contains more answers by size alone, so the headline compares the curated memory
and the baseline at one word budget per question. The rule, the same for both sides:

- items are taken in rank order, whole, while they fit in the words left;
- the item that crosses the budget is cut to the words left (its first words, folded as they are
  matched: `matching.first_words`; it keeps its provenance: it is the item the reader was
  reading), and reading stops there;
- words are `matching.words` (runs of letters and digits: "[2023-05-08] Caroline:" is 4 words,
  "(said on 2023-05-08)" is 5), counted on the item texts that are scored.

So each side reads exactly `budget` words unless it runs out of items first. The default budget
of a question is the words of the memory side's top k, so the memory side reads exactly its top k
and the baseline reads as many words of raw history.
"""

from __future__ import annotations

from collections.abc import Iterable

from dreamstream_tools.evaluation.matching import first_words, words
from dreamstream_tools.evaluation.metrics import Item


def word_count(text: str) -> int:
    return len(words(text))


def read_to_budget(ranked: Iterable[Item], budget: int) -> list[Item]:
    """The items a reader gets for `budget` words, best first (see the module's rule)."""
    read: list[Item] = []
    left = budget
    for item in ranked:
        if left <= 0:
            break
        size = word_count(item.text)
        if size <= left:
            read.append(item)
            left -= size
        else:
            read.append(item._replace(text=first_words(item.text, left)))
            break
    return read


def words_read(items: Iterable[Item]) -> int:
    return sum(word_count(item.text) for item in items)


__all__ = ["read_to_budget", "word_count", "words_read"]
