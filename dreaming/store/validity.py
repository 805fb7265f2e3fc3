"""Validity time: when each value of a memory held, and what held at a given time (`as_of`).

A record says from when it holds (`valid_from`, else `created_at` for records older than the
field) and, once superseded or retired, until when (`valid_to`). A correction rewrites a memory's
text in place (same id) with a later `valid_from`, so the value before it lives in an earlier
generation: readers follow the active generation's lineage (`GenerationInfo.based_on`: the
generation each one was built from) back through the kept generations, and each earlier value of
a memory held until the next one began.

What `as_of` can answer is bounded by what is kept: the lineage's generations (`generations_kept`)
and the retired records each carries (`inactive_generations`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from dreaming.store.pointer import ScopeState
from schemas import MemoryRecord


class _Records(Protocol):
    """The part of a `ScopeReader` this needs (dreaming/store/history.py)."""

    def state(self, scope: str) -> ScopeState: ...
    def records(
        self, scope: str, generation: int | None = None, include_inactive: bool = False
    ) -> list[MemoryRecord]: ...


def held_from(record: MemoryRecord) -> datetime:
    return record.valid_from or record.created_at


def lineage(state: ScopeState) -> list[int]:
    """The active generation and the kept generations it descends from, newest first."""
    kept = {g.generation: g for g in state.generations if g.status != "rejected"}
    chain: list[int] = []
    number: int | None = state.active_generation
    while number and number in kept and number not in chain:
        chain.append(number)
        number = kept[number].based_on
    return chain


@dataclass(frozen=True)
class Span:
    """One value of a memory and when it held (`until` None: it still does)."""

    record: MemoryRecord
    since: datetime
    until: datetime | None


def spans(versions: Sequence[MemoryRecord]) -> list[Span]:
    """The values one memory held, newest first, from its versions along a lineage (newest
    generation first). Versions that start at the same time are one value (a rewording, or the
    record carried unchanged); a value with an earlier start held until the next one began. A
    retired memory held until the evidence that ended it (`valid_to`), or until it was archived
    (a prune: `updated_at`); a merged one holds nothing of its own (its survivor carries it and
    starts no later)."""
    out: list[Span] = []
    for record in versions:
        since = held_from(record)
        if out and since >= out[-1].since:
            continue  # the same value as the newer version (or an older copy of it)
        if record.status == "merged":
            if not out:
                return []
            continue
        if out:
            until: datetime | None = out[-1].since
        elif record.is_active:
            until = record.valid_to
        else:
            until = record.valid_to or record.updated_at
        out.append(Span(record, since, until))
    return out


def held_at(span: Span, at: datetime) -> bool:
    return span.since <= at and (span.until is None or at < span.until)


def records_as_of(generations: Sequence[Sequence[MemoryRecord]], at: datetime) -> list[MemoryRecord]:
    """What held at `at`, from the records of a lineage's generations (newest generation first,
    every status): per memory, the value whose span holds `at`, its `valid_to` set to when that
    value stopped holding (None: it still holds). Oldest first, as generations are read."""
    versions: dict[str, list[MemoryRecord]] = {}
    for records in generations:
        for record in records:
            versions.setdefault(record.memory_id, []).append(record)
    out = []
    for chain in versions.values():
        span = next((s for s in spans(chain) if held_at(s, at)), None)
        if span is not None:
            record = span.record
            out.append(record if record.valid_to == span.until else record.model_copy(update={"valid_to": span.until}))
    return sorted(out, key=lambda m: (held_from(m), m.memory_id))


def memories_as_of(reader: _Records, scope: str, at: datetime) -> list[MemoryRecord]:
    """The scope's memories that held at `at`, as the active generation and its lineage tell it."""
    state = reader.state(scope)
    return records_as_of([reader.records(scope, g, include_inactive=True) for g in lineage(state)], at)


def when_each_value_held(versions: Sequence[tuple[int, MemoryRecord | None]], state: ScopeState) -> dict[int, Span]:
    """For a memory's versions (generation number, record), the span of the value the version of
    each lineage generation stands for. Generations off the lineage (quarantined, rolled back,
    rejected) and versions that hold nothing (merged) get none."""
    by_generation = {number: record for number, record in versions if record is not None}
    along = [(g, by_generation[g]) for g in lineage(state) if g in by_generation]
    starts = {span.since: span for span in spans([record for _, record in along])}
    return {number: starts[held_from(r)] for number, r in along if held_from(r) in starts and r.status != "merged"}
