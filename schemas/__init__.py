"""Every contract that crosses a process boundary: events, jobs, audit events, memory records,
engine actions, topic names and settings. JSON Schema exports live in `schemas/json/`."""

from schemas.actions import (
    ActionPlan,
    ArchiveAction,
    CreateAction,
    MemoryAction,
    MergeAction,
    SupersedeAction,
    UpdateAction,
)
from schemas.audit import (
    TERMINAL_JOB_STATUSES,
    AnyAuditEvent,
    AuditEvent,
    JobLifecycleEvent,
    MemoryChangeEvent,
    OperatorDecisionEvent,
    ScopeForgottenEvent,
    audit_event_adapter,
    make_event_id,
)
from schemas.dead_letter import DeadLetter
from schemas.events import ControlEvent, ConversationTurn, MemoryAdd, MemoryCorrection, SteeringChange
from schemas.jobs import DreamJob, Motive, Steering, make_job_id
from schemas.memory import MemoryRecord
from schemas.scope import ScopeError, parse_scope, tenant_of

__all__ = [
    "ActionPlan",
    "ArchiveAction",
    "AnyAuditEvent",
    "AuditEvent",
    "ControlEvent",
    "ConversationTurn",
    "CreateAction",
    "DeadLetter",
    "DreamJob",
    "JobLifecycleEvent",
    "MemoryAction",
    "MemoryAdd",
    "MemoryChangeEvent",
    "MemoryCorrection",
    "MemoryRecord",
    "MergeAction",
    "Motive",
    "OperatorDecisionEvent",
    "ScopeError",
    "ScopeForgottenEvent",
    "Steering",
    "SteeringChange",
    "SupersedeAction",
    "TERMINAL_JOB_STATUSES",
    "UpdateAction",
    "audit_event_adapter",
    "make_event_id",
    "make_job_id",
    "parse_scope",
    "tenant_of",
]
