"""Snapshot phase: read the scope's active generation, pending memory-adds and transcript window."""

from __future__ import annotations

from datetime import datetime, timezone

from consumers.snapshot import Snapshot
from consumers.store import MemoryStore, ScopeState, TranscriptStore
from schemas import DreamJob, MemoryAdd, MemoryRecord


def record_from_add(add: MemoryAdd) -> MemoryRecord:
    return MemoryRecord(
        scope=add.scope, memory_id=add.memory_id, text=add.text, origin="memory_add",
        evidence_message_ids=add.source_message_ids, protected=add.protected,
        created_at=add.ts, updated_at=add.ts,
    )


def take_snapshot(job: DreamJob, state: ScopeState, memories: MemoryStore, transcripts: TranscriptStore,
                  window: int, turns_topic: str) -> Snapshot:
    current = memories.generation_records(job.scope, state.active_generation)
    known = {m.memory_id for m in current}
    # An add whose id is already in the generation was absorbed earlier (a redelivered event):
    # the curated record wins, since the pass may have merged or corrected it since.
    pending = [record_from_add(a) for a in transcripts.pending(job.scope) if a.memory_id not in known]
    rows = transcripts.window(job.scope, window)
    covered = state.covered_offset(turns_topic)
    return Snapshot(
        job=job,
        generation=state.active_generation,
        memories=tuple(current) + tuple(pending),
        transcript=tuple(turn for turn, _ in rows),
        pending_add_ids=frozenset(m.memory_id for m in pending),
        new_message_ids=frozenset(turn.message_id for turn, offset in rows if offset >= covered),
        taken_at=datetime.now(timezone.utc),
    )
