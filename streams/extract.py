"""Cheap signal extraction for the stream worker, a batch of turns at a time.

This runs on every turn of every tenant, so it is three precompiled regexes and no model: it only
has to say "something here is worth a pass"; the dream pass does the careful reading. The regexes
are the language layer's (`language.patterns`: the stream worker's cues beside the clause markers
the pass uses). They run in polars (Rust's regex engine, over the whole batch at once: ~1 µs a
turn against ~7 µs for Python's `re` one turn at a time), and so does the entities' clean-up
(drop, de-duplicate, cap: ~0.5 µs a turn less than in Python); `extract` is the same code for a
single turn.

Entities are capitalised words not at a sentence start, and tokens mixing letters and digits.
Rust's regex has no look-behind, so each text gets a leading ". " and a match that begins with
its sentence end (". Word") is dropped: the same rule as "(?<![.!?]\\s)(?<!^)" before the word.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import polars as pl

from language.patterns import STREAM_COMMON_CAPS, STREAM_CORRECTION_CUE, STREAM_DECISION_CUE, STREAM_ENTITY

MAX_ENTITIES_PER_TURN = 8
_DROPPED = "^(?:[.!?]|(?:" + "|".join(re.escape(word) for word in sorted(STREAM_COMMON_CAPS)) + ")$)"
"""Entity matches to drop: those that begin with their sentence end, and the common capitalised words."""


class TurnSignals(NamedTuple):
    correction: bool
    decision: bool
    entities: tuple[str, ...]


def extract_batch(roles: list[str], contents: list[str]) -> list[TurnSignals]:
    """Signals of each turn. Corrections and decisions count only when the user says them."""
    if not contents:
        return []
    frame = pl.DataFrame({"role": roles, "text": contents}, schema={"role": pl.String, "text": pl.String})
    user, text, match = pl.col("role") == "user", pl.col("text"), pl.element()
    found = frame.select(
        correction=user & text.str.contains(STREAM_CORRECTION_CUE),
        decision=user & text.str.contains(STREAM_DECISION_CUE),
        entities=(". " + text)
        .str.extract_all(STREAM_ENTITY)
        .list.eval(match.filter(~match.str.contains(_DROPPED)).unique(maintain_order=True).head(MAX_ENTITIES_PER_TURN)),
    )
    corrections, decisions, names = (column.to_list() for column in found.get_columns())
    return list(map(TurnSignals, corrections, decisions, map(tuple, names)))


def extract(role: str, content: str) -> TurnSignals:
    """Signals in one turn (the batch code on a batch of one)."""
    return extract_batch([role], [content])[0]
