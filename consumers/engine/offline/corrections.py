"""Which memories a correction or a newer statement overrules, and what replaces them.

Two kinds of contradiction are recognised, both resolved in favour of the newest evidence:

- explicit: the user states a value change ("No, it's aisle, not window", "DuckDB instead of
  PostgreSQL"). Targets are live memories that hold the old value, share some context with the
  correction (its message or the assistant turn it answers), and are older than it. The
  replacement is the old memory with the old value swapped for the new one.
- attribute: two statements "<subject> is <value>" with the same subject and different values
  ("The user's favourite colour is green" / "... is red"). Only copular statements with a subject
  of two or more tokens count: "Ava is vegetarian" and "Ava is a teacher" are not rivals.

Protected memories are never targets; they are reported so the pass can note them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from consumers.embedding import canonical_tokens
from consumers.engine.offline.duplicates import values_conflict
from consumers.engine.offline.working_set import WorkingMemory, WorkingSet
from language.changes import ValueChange
from language.dates import without_stamp

_COPULA = re.compile(r"\s(?:is|are|was|were)\s", re.IGNORECASE)
_MIN_SUBJECT_TOKENS = 2
_VERSION = r"(?:\s+v?\d[\w.]*)?"


@dataclass
class Targets:
    overruled: list[WorkingMemory] = field(default_factory=list)
    protected: list[WorkingMemory] = field(default_factory=list)


def apply_change(text: str, change: ValueChange) -> str | None:
    """`text` with the change's old value replaced by its new one, or None if it holds no old value."""
    if change.old is None:
        return None
    if change.elided_head is not None:
        modifier, head = change.elided_head
        if re.search(rf"(?<![\w-]){re.escape(change.old)}\s+{re.escape(head)}(?![\w-])", text, re.IGNORECASE):
            return substitute_value(text, change.old, modifier)  # "red wine" + "white wine instead of red"
    return substitute_value(text, change.old, change.new)


def substitute_value(text: str, old: str, new: str) -> str | None:
    """`text` with `old` replaced by `new`; None when `old` is not a whole phrase of `text`.

    A version right after the old value goes with it ("PostgreSQL 16" -> "DuckDB"), and words the
    new value shares with what follows are not repeated ("window seats" + "aisle seats").
    """
    version = "" if any(ch.isdigit() for ch in new) else _VERSION
    match = re.search(rf"(?<![\w-]){re.escape(old)}{version}(?![\w-])", text, re.IGNORECASE)
    if match is None:
        return None
    new_words = new.split()
    following = text[match.end() :].split()
    for overlap in range(len(new_words) - 1, 0, -1):
        if [w.lower() for w in new_words[-overlap:]] == [w.strip(".,;:!?").lower() for w in following[:overlap]]:
            new_words = new_words[:-overlap]
            break
    replacement = " ".join(new_words)
    if match.start() == 0:
        replacement = replacement[:1].upper() + replacement[1:]
    return text[: match.start()] + replacement + text[match.end() :]


GENERIC_SHARE = 0.5
MIN_MEMORIES_FOR_GENERIC = 4


def generic_tokens(token_sets: Iterable[frozenset[str]]) -> frozenset[str]:
    """Tokens in more than half of a scope's memories (given at least four): in a scope where
    every memory is about "Project <name>", the word "project" ties a correction to none of them."""
    sets = list(token_sets)
    if len(sets) < MIN_MEMORIES_FOR_GENERIC:
        return frozenset()
    counts = Counter(token for tokens in sets for token in tokens)
    return frozenset(token for token, count in counts.items() if count > GENERIC_SHARE * len(sets))


def overruled_text(
    text: str,
    tokens: frozenset[str],
    evidence_ts: datetime,
    change: ValueChange,
    context: frozenset[str],
    said_at: datetime,
    ignore: frozenset[str] = frozenset(),
) -> str | None:
    """The contradiction test for a stated change: what the claim `text` says once `change` is
    applied, or None when the change does not overrule it.

    It overrules the claim only when the claim holds the old value as a whole phrase, is older than
    the change (newest evidence wins), does not already say the new value, and shares some context
    with the conversation the change was said in (`context`: tokens of the message and the answer
    it replies to), so "window" in an unrelated memory is left alone. `ignore` holds words that
    tie nothing: the user's name and the scope's generic words (`generic_tokens`).
    """
    if change.old is None:
        return None
    old_tokens = canonical_tokens(change.old)
    if not old_tokens or not old_tokens <= tokens or evidence_ts >= said_at:
        return None
    replaced = apply_change(text, change)
    if replaced is None:
        return None  # the old value is only part of another word
    new_tokens = canonical_tokens(replaced) - tokens
    if not new_tokens:
        return None  # it already says the new value too
    if not (tokens - old_tokens - new_tokens - ignore) & context:
        return None  # nothing ties the claim to this conversation
    return replaced


def explicit_targets(
    change: ValueChange,
    working: WorkingSet,
    context: frozenset[str],
    said_at: datetime,
    ignore: frozenset[str] = frozenset(),
) -> Targets:
    """Live memories a stated change overrules (only when the old value is known)."""
    targets = Targets()
    old_tokens = canonical_tokens(change.old) if change.old is not None else frozenset()
    for memory in working.containing_all(old_tokens):
        if overruled_text(memory.text, memory.tokens, memory.evidence_ts, change, context, said_at, ignore) is not None:
            (targets.protected if memory.protected else targets.overruled).append(memory)
    return targets


def attribute_of(text: str, ignore: frozenset[str] = frozenset()) -> tuple[frozenset[str], frozenset[str]] | None:
    """(subject tokens, value tokens) of "<subject> is <value>", or None for any other shape
    (the said-on stamp is no part of either)."""
    parts = _COPULA.split(without_stamp(text), maxsplit=1)
    if len(parts) != 2:
        return None
    subject, value = canonical_tokens(parts[0]) - ignore, canonical_tokens(parts[1]) - ignore
    if len(subject) < _MIN_SUBJECT_TOKENS or not value:
        return None
    return subject, value


def rival_values(text: str, other: str, ignore: frozenset[str] = frozenset()) -> bool:
    """The contradiction test for two statements: both say "<subject> is <value>" of the same
    subject, with different values."""
    mine, theirs = attribute_of(text, ignore), attribute_of(other, ignore)
    return mine is not None and theirs is not None and mine[0] == theirs[0] and values_conflict(mine[1], theirs[1])


def attribute_rivals(text: str, working: WorkingSet, ignore: frozenset[str] = frozenset()) -> list[WorkingMemory]:
    """Live memories giving the same subject a different value than `text` does."""
    attribute = attribute_of(text, ignore)
    if attribute is None:
        return []
    return [memory for memory in working.containing_all(attribute[0]) if rival_values(text, memory.text, ignore)]
