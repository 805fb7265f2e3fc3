"""Paraphrased duplicates: "Ava is vegetarian" and "Ava does not eat meat" say one thing.

Merging is by meaning: the sentence embeddings are close and a value guard finds no disagreement
(no number, date or name on one side only, on both sides; no single swapped word as in "window
seats" / "aisle seats"). The older token rule below still catches near-verbatim repeats. The walk
applies the rules as it meets each statement (`paraphrases.py`); housekeeping merges the memories
no pass has compared yet (memory-adds) with `merge_groups`.

Two memories are duplicates when their canonical tokens overlap strongly (Jaccard >= 0.75) AND
they do not disagree on a value: if each holds a content token the other lacks ("window" vs
"aisle", "2026-03-10" vs "2026-03-11") they are two claims, never merged. One side adding detail
to the other is fine. The embedding only proposes candidate pairs cheaply (one matrix product);
the token rule decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from dreaming.embedding import canonical_tokens
from dreaming.embedding.protocol import EmbedArray
from dreaming.engine.offline.working_set import WorkingMemory, WorkingSet
from language.changes import normal_values
from language.values import value_words

DUPLICATE_JACCARD = 0.75
PARAPHRASE_COSINE = 0.8
"""Two memories say one thing at this sentence-embedding cosine (all-MiniLM-L6-v2: "Ava is
vegetarian" / "Ava doesn't eat meat" 0.85), unless a value guard below finds them disagreeing."""
SWAP_JACCARD = 0.5
"""Mostly the same words with one swapped ("window seats" / "aisle seats"): two values, not a paraphrase..."""
SAME_MEANING_COSINE = 0.9
"""...unless the swap leaves the meaning in place ("lives in Porto" / "is based in Porto", 0.92)."""
_VALUE = re.compile(r"\d[\d.,:/-]*|(?<=[\w,;] )[A-Z][\w'-]+")


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def values_conflict(a: frozenset[str], b: frozenset[str]) -> bool:
    """Each side holds something the other does not: two different values for one thing."""
    return bool(a - b) and bool(b - a)


_INTENT_TOKENS = frozenset({"plan", "want", "hope", "hop", "intend", "wish", "aim", "gonna"})
"""Canonical tokens of a plan or a wish ("planned to play", "hoping to go"; "hoping" stems to "hop")."""


def intent_differs(a: frozenset[str], b: frozenset[str]) -> bool:
    """One side plans or wishes what the other does not ("planned to play the console" / "played
    on the console"): a plan and the deed, or a wish and the fact, are two claims, however close
    their other words."""
    return (a & _INTENT_TOKENS) != (b & _INTENT_TOKENS)


def is_duplicate(a: frozenset[str], b: frozenset[str]) -> bool:
    return (
        bool(a)
        and bool(b)
        and not values_conflict(a, b)
        and not intent_differs(a, b)
        and jaccard(a, b) >= DUPLICATE_JACCARD
    )


_QUANTITY = re.compile(r"(?<![\w-])\$?\d[\d.,:/-]*\d%?|(?<![\w-])\$?\d%?")


_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$|^\d{4}$")


def quantities(text: str) -> set[str]:
    """The numbers and amounts a text states ("45", "78%", "$550"). Dates and years are not among
    them: a second date is usually a second event ("went hiking on …" twice), not a correction."""
    found = {q.rstrip(".,") for q in _QUANTITY.findall(text)}
    return {q for q in found if not _ISO_DAY.match(q)}


def mask_quantities(text: str) -> str:
    return _QUANTITY.sub("#", text)


def new_values(text: str, known: str) -> set[str]:
    """Numbers, dates and names `text` states that `known` does not."""
    return set(_VALUE.findall(text)) - set(_VALUE.findall(known))


def words_beyond(body: str, noted: str) -> frozenset[str]:
    """The content words of `body` that `noted` lacks, values aside (callers compare those as
    meant: "two" / "2", a resolved day)."""
    return frozenset(t for t in canonical_tokens(body) - canonical_tokens(noted) if not normal_values(t))


EXTRA_WORDS = 1
"""A text with more content words than this that a memory lacks says more than the memory: merged
into it, its words beyond the values would be lost to a reader ("Ava paints landscapes in oils"
folded into "Ava enjoys painting")."""
MERGE_EXTRA_WORDS = 2
"""A memory-add merged into a paraphrase joins its text past this many content words the survivor
lacks: "does not eat meat" beside "is vegetarian" (two, the negation aside) says one thing twice;
"paints harbour scenes in oils every Sunday" beside "enjoys painting" says what a reader may ask."""
_NEGATIONS = frozenset({"not", "no", "never", "nor"})


def says_more(text: str, known: str, extra: int = EXTRA_WORDS) -> bool:
    """`text` holds more than `extra` content words `known` lacks, its values (a merge appends a
    text that adds a value) and negations aside."""
    beyond = words_beyond(text, known) - canonical_tokens(" ".join(value_words(text))) - _NEGATIONS
    return len(beyond) > extra


def restates(text: str, known: str) -> bool:
    """`text` repeats everything `known` says, each content word and each value as meant ("two" /
    "2"), and says more: a reader of `text` loses nothing of `known`."""
    return not words_beyond(known, text) and normal_values(known) <= normal_values(text) and says_more(text, known)


def differing_values(a: str, b: str) -> bool:
    """Numbers, dates or names that one text has and the other lacks, on both sides."""
    mine, theirs = set(_VALUE.findall(a)), set(_VALUE.findall(b))
    return bool(mine - theirs) and bool(theirs - mine)


def is_value_swap(a: frozenset[str], b: frozenset[str]) -> bool:
    return values_conflict(a, b) and jaccard(a, b) >= SWAP_JACCARD


def is_paraphrase(a: str, a_tokens: frozenset[str], b: str, b_tokens: frozenset[str], cosine: float) -> bool:
    """Texts `a` and `b` (with their canonical tokens, at sentence cosine `cosine`) are close in
    meaning and do not disagree on any value."""
    if cosine < PARAPHRASE_COSINE or differing_values(a, b) or intent_differs(a_tokens, b_tokens):
        return False
    return cosine >= SAME_MEANING_COSINE or not is_value_swap(a_tokens, b_tokens)


def find_duplicate(tokens: frozenset[str], working: WorkingSet) -> WorkingMemory | None:
    """A live memory that already says what `tokens` say, if any (first in insertion order)."""
    if not tokens:
        return None
    # A duplicate shares >= 75% of the tokens, so it must hold one of this many rarest ones.
    needed = len(tokens) - int(np.ceil(DUPLICATE_JACCARD * len(tokens))) + 1
    for memory in working.sharing_any(tokens, needed):
        if is_duplicate(tokens, memory.tokens):
            return memory
    return None


@dataclass(frozen=True)
class MergeCandidate:
    key: str
    text: str
    """The text to compare: relative times already resolved, so dates compare as dates."""
    tokens: frozenset[str]
    created_at: datetime


@dataclass(frozen=True)
class MergeGroup:
    survivor: MergeCandidate
    duplicates: tuple[MergeCandidate, ...]


def survivor_order(candidate: MergeCandidate) -> tuple[datetime, int, str]:
    """Older first, then shorter, then by id: the survivor keeps the original wording."""
    return candidate.created_at, len(candidate.text), candidate.key


def merge_groups(candidates: list[MergeCandidate], embed: EmbedArray) -> list[MergeGroup]:
    """Clusters of paraphrases: every pair inside a cluster is close in meaning and agrees on
    every value (no chaining), or is a token-level duplicate."""
    if len(candidates) < 2:
        return []
    ordered = sorted(candidates, key=survivor_order)
    vectors = np.asarray(embed([c.text for c in ordered]), dtype=np.float32)
    cosine = vectors @ vectors.T
    similar = cosine >= min(PARAPHRASE_COSINE, 0.7)
    assigned: set[int] = set()
    groups: list[MergeGroup] = []
    for i, survivor in enumerate(ordered):
        if i in assigned:
            continue
        members = [i]
        for j in np.flatnonzero(similar[i]).tolist():
            if j <= i or j in assigned:
                continue
            if all(
                is_duplicate(ordered[m].tokens, ordered[j].tokens)
                or is_paraphrase(
                    ordered[m].text, ordered[m].tokens, ordered[j].text, ordered[j].tokens, float(cosine[m, j])
                )
                for m in members
            ):
                members.append(j)
        if len(members) > 1:
            assigned.update(members)
            groups.append(MergeGroup(survivor, tuple(ordered[m] for m in members[1:])))
    return groups
