"""Build the memory-change audit events of a pass: one per change, in the order they happened."""

from __future__ import annotations

from datetime import UTC, datetime

from dreaming.passes.apply import Change
from schemas import DreamJob, MemoryChangeEvent, make_event_id


def change_events(job: DreamJob, generation: int, changes: tuple[Change, ...]) -> list[MemoryChangeEvent]:
    now = datetime.now(UTC)
    return [
        MemoryChangeEvent(
            event_id=make_event_id(job.job_id, "memory", change.kind, change.memory_id, str(index)),
            scope=job.scope,
            job_id=job.job_id,
            generation=generation,
            change=change.kind,
            memory_id=change.memory_id,
            before=change.before,
            after=change.after,
            reason=change.reason,
            evidence_message_ids=change.evidence_message_ids,
            ts=now,
            correction_id=change.correction_id,
            by=change.correction.by if change.correction is not None else None,
        )
        for index, change in enumerate(changes)
    ]
