"""Snapshot phase: read the scope's active generation, pending memory-adds and transcript window."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from dreaming.snapshot import Snapshot
from dreaming.store import MemoryStore, ScopeState, TranscriptStore
from dreaming.store.corrections import CorrectionInbox
from schemas import ConversationTurn, DreamJob, MemoryAdd, MemoryRecord


def record_from_add(add: MemoryAdd, message_ts: Mapping[str, datetime] | None = None) -> MemoryRecord:
    """The add as a record of the snapshot; it holds from its earliest source message the window
    has, else from the add's own time."""
    sources = [message_ts[i] for i in add.source_message_ids if i in message_ts] if message_ts else []
    return MemoryRecord.from_add(add, valid_from=min(sources, default=add.ts))


def generation_back(state: ScopeState, back: int) -> int | None:
    """The promoted generation `back` promotions before the next one (1 = the active one), if kept."""
    promoted = sorted(
        g.generation
        for g in state.generations
        if g.status in ("active", "retired") and g.generation <= state.active_generation
    )
    return promoted[-back] if 0 < back <= len(promoted) else None


def long_inactive_ids(
    state: ScopeState, memories: MemoryStore, current: list[MemoryRecord], inactive_after: int
) -> frozenset[str]:
    """Records already inactive `inactive_after` generations back (read from that kept generation)."""
    number = generation_back(state, inactive_after)
    if number is None:
        return frozenset()
    records = current if number == state.active_generation else memories.generation_records(state.scope, number)
    return frozenset(m.memory_id for m in records if not m.is_active)


def _unproven_adds(
    scope: str, pending: list[MemoryRecord], rows: list[tuple[ConversationTurn, int]], transcripts: TranscriptStore
) -> tuple[frozenset[str], frozenset[str]]:
    """Pending adds citing a message this scope's index does not hold: (foreign, deferred).

    The messages an add cites come before it, but turns and memory-adds arrive on two topics, so
    an add can be indexed before the turn it cites. Once the index holds a turn at or after the
    add's time, a cited message it still lacks is not this scope's: the add is refused (foreign),
    as the stream worker dead-letters it. Until then the add waits in the inbox (deferred)."""
    in_window = {turn.message_id for turn, _ in rows}
    unknown = transcripts.unknown_messages(
        scope, {m for add in pending for m in add.evidence_message_ids if m not in in_window}
    )
    newest = rows[-1][0].ts if rows else None
    foreign: set[str] = set()
    deferred: set[str] = set()
    for add in pending:
        if unknown.intersection(add.evidence_message_ids):
            (foreign if newest is not None and newest >= add.created_at else deferred).add(add.memory_id)
    return frozenset(foreign), frozenset(deferred)


def take_snapshot(
    job: DreamJob,
    state: ScopeState,
    memories: MemoryStore,
    transcripts: TranscriptStore,
    window: int,
    turns_topic: str,
    inactive_after: int = 3,
    corrections: CorrectionInbox | None = None,
) -> Snapshot:
    current = memories.generation_records(job.scope, state.active_generation)
    known = {m.memory_id for m in current}
    rows = transcripts.window(job.scope, window)
    message_ts = {turn.message_id: turn.ts for turn, _ in rows}
    # An add whose id is already in the generation was absorbed earlier (a redelivered event):
    # the curated record wins, since the pass may have merged or corrected it since.
    pending = [record_from_add(a, message_ts) for a in transcripts.pending(job.scope) if a.memory_id not in known]
    foreign, deferred = _unproven_adds(job.scope, pending, rows, transcripts)
    pending = [a for a in pending if a.memory_id not in deferred]
    covered = state.covered_offset(turns_topic)
    return Snapshot(
        job=job,
        generation=state.active_generation,
        memories=tuple(current) + tuple(pending),
        transcript=tuple(turn for turn, _ in rows),
        pending_add_ids=frozenset(m.memory_id for m in pending),
        new_message_ids=frozenset(turn.message_id for turn, offset in rows if offset >= covered),
        long_inactive_ids=long_inactive_ids(state, memories, current, inactive_after),
        foreign_evidence_adds=foreign,
        deferred_add_ids=deferred,
        taken_at=datetime.now(UTC),
        corrections=tuple(corrections.pending(job.scope)) if corrections is not None else (),
        offsets={turn.message_id: offset for turn, offset in rows},
    )
