"""Audit events: the append-only record of every job's lifecycle and every memory change.

Downstream services subscribe to these, so their ids are deterministic: a redelivered job that
re-emits its events emits the same ids, and consumers can deduplicate on `event_id`.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Literal, Union

from pydantic import AwareDatetime, Field, TypeAdapter

from schemas.events import Contract, MessageId
from schemas.jobs import Motive, Trigger
from schemas.memory import MemoryRecord
from schemas.scope import ScopeStr

JobStatus = Literal["pending", "running", "completed", "no-op", "failed", "quarantined"]
TERMINAL_JOB_STATUSES: frozenset[str] = frozenset({"completed", "no-op", "failed", "quarantined"})
ChangeKind = Literal["created", "updated", "merged", "superseded", "archived"]


class JobLifecycleEvent(Contract):
    schema_version: Literal[1] = 1
    type: Literal["job"] = "job"
    event_id: str
    scope: ScopeStr
    job_id: str
    status: JobStatus
    trigger: Trigger
    ts: AwareDatetime
    request_ids: tuple[str, ...] = ()
    generation: int | None = None
    """The generation this pass promoted (completed) or quarantined."""
    reason: str = ""
    motives: tuple[Motive, ...] = ()
    memories_before: int | None = None
    memories_after: int | None = None


class MemoryChangeEvent(Contract):
    schema_version: Literal[1] = 1
    type: Literal["memory"] = "memory"
    event_id: str
    scope: ScopeStr
    job_id: str
    generation: int
    change: ChangeKind
    memory_id: str
    before: MemoryRecord | None
    after: MemoryRecord | None
    reason: str = Field(min_length=1)
    evidence_message_ids: tuple[MessageId, ...] = ()
    ts: AwareDatetime


AuditEvent = Annotated[Union[JobLifecycleEvent, MemoryChangeEvent], Field(discriminator="type")]
audit_event_adapter: TypeAdapter[JobLifecycleEvent | MemoryChangeEvent] = TypeAdapter(AuditEvent)


def make_event_id(job_id: str, *parts: str) -> str:
    digest = hashlib.sha256("|".join((job_id, *parts)).encode()).hexdigest()
    return f"evt-{digest[:24]}"
