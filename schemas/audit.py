"""Audit events: the append-only record of every job's lifecycle and every memory change.

Downstream services subscribe to these, so their ids are deterministic: a redelivered job that
re-emits its events emits the same ids, and consumers can deduplicate on `event_id`.

Schema policy (the change stream is a public contract):
- an additive change (a new optional field, a new event `type`) keeps `schema_version`; removing or
  renaming a field, or changing a field's meaning, is a new `schema_version`;
- subscribers ignore fields and event types they do not know (these models do: `extra="ignore"`,
  and the exported JSON Schemas of outputs leave `additionalProperties` open);
- every exported schema has an absolute `$id` (see schemas/export.py);
- each Kafka record also carries CloudEvents binary-mode headers (schemas/cloudevents.py).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import AwareDatetime, ConfigDict, Field, TypeAdapter

from schemas.events import Contract, MessageId
from schemas.jobs import DreamJob, Motive, Trigger
from schemas.memory import MemoryRecord
from schemas.scope import ScopeStr

JobStatus = Literal["pending", "running", "completed", "no-op", "failed", "quarantined", "skipped"]
TERMINAL_JOB_STATUSES: frozenset[str] = frozenset({"completed", "no-op", "failed", "quarantined", "skipped"})
ChangeKind = Literal["created", "updated", "merged", "superseded", "archived"]
OperatorAction = Literal["approved", "rejected", "rolled-back"]


class OutputContract(Contract):
    """An event others subscribe to: tolerant of fields a newer producer adds (additive changes)."""

    model_config = ConfigDict(frozen=True, extra="ignore", str_strip_whitespace=False)


class JobLifecycleEvent(OutputContract):
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

    @classmethod
    def for_job(
        cls,
        job: DreamJob,
        status: JobStatus,
        *,
        reason: str = "",
        generation: int | None = None,
        motives: tuple[Motive, ...] | None = None,
        before: int | None = None,
        after: int | None = None,
    ) -> JobLifecycleEvent:
        """The event for `job` reaching `status`; its id is the same every time, so consumers
        can drop the copies a redelivered job re-publishes."""
        return cls(
            event_id=make_event_id(job.job_id, "job", status),
            scope=job.scope,
            job_id=job.job_id,
            status=status,
            trigger=job.trigger,
            ts=datetime.now(UTC),
            request_ids=job.request_ids,
            generation=generation,
            reason=reason,
            motives=job.motives if motives is None else motives,
            memories_before=before,
            memories_after=after,
        )


class MemoryChangeEvent(OutputContract):
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
    correction_id: str | None = None
    """Set when an agent's or operator's correction (PATCH/DELETE) made the change: its id."""
    by: str | None = None
    """Who sent that correction, as they named themselves."""


class ScopeForgottenEvent(OutputContract):
    """The tombstone of a scope: its memories, generations, transcripts, pending memory-adds and
    diary were deleted. Downstream services that copied any of it should delete their copies."""

    schema_version: Literal[1] = 1
    type: Literal["forgotten"] = "forgotten"
    event_id: str
    scope: ScopeStr
    job_id: str
    ts: AwareDatetime
    request_ids: tuple[str, ...] = ()
    deleted: dict[str, int] = Field(default_factory=dict)
    """Records deleted, per store (memories, generations, transcripts, inbox, diary, scopes)."""


class OperatorDecisionEvent(OutputContract):
    """An operator changed which generation readers see (rollback, approval of a quarantined
    candidate) or rejected a candidate. A subscriber that mirrors a scope's memories applies
    `activated` (upsert) and `deactivated` (delete) and is in step with readers again."""

    schema_version: Literal[1] = 1
    type: Literal["operator"] = "operator"
    event_id: str
    scope: ScopeStr
    action: OperatorAction
    by: str = Field(min_length=1)
    reason: str = ""
    generation: int
    """The generation decided about: rolled back to, approved, or rejected."""
    previous_generation: int
    """The generation readers saw before the decision."""
    active_generation: int
    """The generation readers see after it (unchanged by a rejection)."""
    activated: tuple[MemoryRecord, ...] = ()
    """Active records readers see now that they did not see (new ids, or the same id with other content)."""
    deactivated: tuple[str, ...] = ()
    """Memory ids readers saw before and no longer see."""
    ts: AwareDatetime


AnyAuditEvent = JobLifecycleEvent | MemoryChangeEvent | ScopeForgottenEvent | OperatorDecisionEvent
AuditEvent = Annotated[AnyAuditEvent, Field(discriminator="type")]
audit_event_adapter: TypeAdapter[AnyAuditEvent] = TypeAdapter(AuditEvent)


def make_event_id(job_id: str, *parts: str) -> str:
    digest = hashlib.sha256("|".join((job_id, *parts)).encode()).hexdigest()
    return f"evt-{digest[:24]}"
