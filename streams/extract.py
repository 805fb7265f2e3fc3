"""Cheap signal extraction for the stream worker, a batch of turns at a time.

This runs on every turn of every tenant, so it is three precompiled regexes and no model: it only
has to say "something here is worth a pass"; the dream pass does the careful reading. The regexes
are the language layer's (`language.patterns`: the stream worker's cues beside the clause markers
the pass uses). They run in polars (Rust's regex engine, over the whole batch at once: ~1 µs a
turn against ~7 µs for Python's `re` one turn at a time); `extract` is the same code for a single
turn.

Entities are capitalised words not at a sentence start, and tokens mixing letters and digits.
Rust's regex has no look-behind, so each text gets a leading ". " and a match that begins with
its sentence end (". Word") is dropped: the same rule as "(?<![.!?]\\s)(?<!^)" before the word.
"""

from __future__ import annotations

from typing import NamedTuple

import polars as pl

from language.patterns import STREAM_COMMON_CAPS, STREAM_CORRECTION_CUE, STREAM_DECISION_CUE, STREAM_ENTITY

MAX_ENTITIES_PER_TURN = 8
_SENTENCE_END = (".", "!", "?")


class TurnSignals(NamedTuple):
    correction: bool
    decision: bool
    entities: tuple[str, ...]


def extract_batch(roles: list[str], contents: list[str]) -> list[TurnSignals]:
    """Signals of each turn. Corrections and decisions count only when the user says them."""
    if not contents:
        return []
    text = pl.Series("c", contents, dtype=pl.String)
    corrections = text.str.contains(STREAM_CORRECTION_CUE).to_list()
    decisions = text.str.contains(STREAM_DECISION_CUE).to_list()
    found = (". " + text).str.extract_all(STREAM_ENTITY).to_list()
    out = []
    common, limit, ends = STREAM_COMMON_CAPS, MAX_ENTITIES_PER_TURN, _SENTENCE_END
    for role, correction, decision, matches in zip(roles, corrections, decisions, found):
        if matches:
            names = tuple(dict.fromkeys(m for m in matches if not m.startswith(ends) and m not in common))[:limit]
        else:
            names = ()
        user = role == "user"
        out.append(TurnSignals(user and correction, user and decision, names))
    return out


def extract(role: str, content: str) -> TurnSignals:
    """Signals in one turn (the batch code on a batch of one)."""
    return extract_batch([role], [content])[0]
