"""The dream job: what the stream processors emit and the consolidation workers execute."""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import AwareDatetime, Field

from schemas.events import STEERING_MAX_CHARS, Contract, MessageId
from schemas.scope import ScopeStr

Trigger = Literal["threshold", "idle", "schedule", "manual", "pressure", "forget"]
"""`forget` is not a dream: the worker that owns the scope deletes everything it holds of it."""
MotiveKind = Literal[
    "correction",
    "decision",
    "new_facts",
    "repetition",
    "memory_add",
    "unresolved",
    "dissatisfaction",
    "memory_correction",
]
"""`memory_correction`: corrections an agent or operator sent for stored memories (PATCH/DELETE)."""


class Motive(Contract):
    """Why a scope is worth dreaming about now: a signal kind and the messages behind it."""

    kind: MotiveKind
    summary: str = Field(max_length=2_000)
    message_ids: tuple[MessageId, ...] = ()


class Steering(Contract):
    """An operator's words on what a scope's memory is for ("keep travel preferences exact; drop
    small talk"), as set for a scope or a tenant. Engines read it as the operator's words, never
    as the transcript's."""

    text: str = Field(min_length=1, max_length=STEERING_MAX_CHARS)
    by: str = Field(min_length=1, max_length=256)
    set_at: AwareDatetime


class DreamJob(Contract):
    """A request to run one dream pass over one scope.

    `watermarks` maps an input topic to the next offset, in this job's partition, that the pass
    must have seen; the worker waits until its transcript index has reached them, so a pass never
    runs over less than the events that caused it.
    """

    schema_version: Literal[1] = 1
    job_id: str = Field(min_length=1, max_length=128)
    scope: ScopeStr
    trigger: Trigger
    requested_at: AwareDatetime
    watermarks: dict[str, int] = Field(default_factory=dict)
    request_ids: tuple[str, ...] = ()
    """Control request ids this job answers (manual triggers), so callers can wait for it."""
    motives: tuple[Motive, ...] = ()
    messages_since_last_pass: int = Field(default=0, ge=0)
    tokens_since_last_pass: int = Field(default=0, ge=0)
    tenant_steering: Steering | None = None
    """The tenant's steering when the job was emitted: what the pass ran with."""
    scope_steering: Steering | None = None
    """The scope's own steering when the job was emitted (read after the tenant's)."""

    @property
    def steering(self) -> tuple[Steering, ...]:
        """The steering this pass runs with, the tenant's first."""
        return tuple(s for s in (self.tenant_steering, self.scope_steering) if s is not None)


def make_job_id(scope: str, trigger: str, watermarks: dict[str, int], request_ids: tuple[str, ...] = ()) -> str:
    """Deterministic: the same scope, cause and input position always name the same job, so a
    replayed or re-emitted job is recognised instead of run twice."""
    marks = ",".join(f"{topic}={offset}" for topic, offset in sorted(watermarks.items()))
    digest = hashlib.sha256(f"{scope}|{trigger}|{marks}|{','.join(sorted(request_ids))}".encode()).hexdigest()
    return f"job-{digest[:24]}"
