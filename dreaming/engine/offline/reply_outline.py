"""What a structured assistant reply covered, as one memory: its outline.

An assistant's long reply is built from headings and labelled list items; together they say what
it covered ("Week 4 (April 22 - April 25)", "Debounce Implementation", "Days remaining: 22"), and a
later question about what it planned, suggested or computed turns on them. The sentence notes
(`assistant_notes`) keep a few sentences by their values; the outline keeps the skeleton, in the
order said, within `OUTLINE_MAX_WORDS`: headings first, then labels, so a long plan keeps its
sections. Left out: a label every item of a list repeats ("Rating", "Why It Fits": a template's
field, not a point), a blank to fill in ("[Your Name]"), a bare clock time (a schedule's slot
without its activity), a long item (a sentence, not a title). An outline of fewer than two items,
or one that only repeats the user's words, is none.
"""

from __future__ import annotations

import re
from collections import Counter

from dreaming.embedding import canonical_tokens
from language.markup import outline

OUTLINE_MAX_WORDS = 40
ITEM_MAX_WORDS = 12
_BLANK = re.compile(r"\[[^\]]*\]")
"""Any bracket in a title is a blank ("[Task 1]", "[specific time]"): a title holds no link or citation,
which is why prose's narrower test (`assistant_notes._PLACEHOLDER`) is not used here."""
_CLOCK = re.compile(r"(?i)^[\d:.\s-]*(?:[ap]\.?m\.?)?[\d:.\s-]*(?:[ap]\.?m\.?)?$")
_WORD = re.compile(r"[\w'\u2019]+")


def reply_outline(reply: str, asked: frozenset[str] = frozenset()) -> list[str]:
    """The outline items of `reply` worth keeping, in order (`asked`: the canonical tokens of what
    the user said, which an outline that only repeats them adds nothing to)."""
    items = [
        item
        for item in outline(reply)
        if not _BLANK.search(item.text)
        and not _CLOCK.match(item.text)
        and len(_WORD.findall(item.text)) <= ITEM_MAX_WORDS
    ]
    said = Counter(item.label.lower() for item in items)
    once = [(n, item) for n, item in enumerate(items) if said[item.label.lower()] == 1]
    chosen: list[tuple[int, str]] = []
    words = 0
    for n, item in sorted(once, key=lambda pair: (not pair[1].heading, pair[0])):
        size = len(_WORD.findall(item.text))
        if words + size <= OUTLINE_MAX_WORDS:
            chosen.append((n, item.text))
            words += size
    kept = [text for _, text in sorted(chosen)]
    if len(kept) < 2 or canonical_tokens(" ".join(kept)) <= asked:
        return []
    return kept
