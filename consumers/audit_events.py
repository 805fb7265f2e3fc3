"""Build the audit events a pass publishes: its lifecycle and one event per memory change."""

from __future__ import annotations

from datetime import datetime, timezone

from consumers.passes.apply import Change
from schemas import DreamJob, JobLifecycleEvent, MemoryChangeEvent, Motive, make_event_id
from schemas.audit import JobStatus


def lifecycle(job: DreamJob, status: JobStatus, *, reason: str = "", generation: int | None = None,
              motives: tuple[Motive, ...] = (), before: int | None = None, after: int | None = None) -> JobLifecycleEvent:
    return JobLifecycleEvent(
        event_id=make_event_id(job.job_id, "job", status), scope=job.scope, job_id=job.job_id, status=status,
        trigger=job.trigger, ts=datetime.now(timezone.utc), request_ids=job.request_ids, generation=generation,
        reason=reason, motives=motives, memories_before=before, memories_after=after,
    )


def change_events(job: DreamJob, generation: int, changes: tuple[Change, ...]) -> list[MemoryChangeEvent]:
    now = datetime.now(timezone.utc)
    return [
        MemoryChangeEvent(
            event_id=make_event_id(job.job_id, "memory", change.kind, change.memory_id, str(index)),
            scope=job.scope, job_id=job.job_id, generation=generation, change=change.kind,
            memory_id=change.memory_id, before=change.before, after=change.after, reason=change.reason,
            evidence_message_ids=change.evidence_message_ids, ts=now,
        )
        for index, change in enumerate(changes)
    ]
