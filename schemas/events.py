"""Inbound events from agent runtimes: conversation turns, memory-adds and control commands.

Every inbound model is frozen, rejects unknown fields and carries `schema_version`; a version this
code does not know is rejected, so a producer ahead of us is dead-lettered rather than misread.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from schemas.scope import ScopeStr

MessageId = str
METADATA_MAX_BYTES = 2_048


def _bounded_metadata(value: dict[str, object] | None) -> dict[str, object] | None:
    if value is not None and len(json.dumps(value, separators=(",", ":")).encode()) > METADATA_MAX_BYTES:
        raise ValueError(f"metadata must encode to at most {METADATA_MAX_BYTES} bytes of JSON")
    return value


Metadata = Annotated[
    dict[
        Annotated[str, Field(min_length=1, max_length=64)],
        str | int | Annotated[float, Field(allow_inf_nan=False)] | bool | None,
    ]
    | None,
    AfterValidator(_bounded_metadata),
]
"""Optional producer metadata: a flat JSON object (string keys; string, finite number, boolean or
null values), at most 2 KB encoded. Dreaming never reads it as evidence; it is carried along.
(NUL characters in it are refused by `schemas.validation`, with the other NUL checks.)"""


def _ts_is_text(value: object) -> object:
    # Lax pydantic would read 1776000000 (or true) as a unix time: a producer sending a number
    # has another contract in mind, and the stream worker's decoder refuses it too.
    if not isinstance(value, str | datetime):
        raise ValueError("ts must be an ISO-8601 string with a time zone, e.g. 2026-04-12T11:00:00Z")
    return value


EventTime = Annotated[AwareDatetime, BeforeValidator(_ts_is_text)]
"""When the event happened: an ISO-8601 string with a time zone (a datetime in Python)."""


class Contract(BaseModel):
    """Base of every cross-process message: immutable and strict about its fields."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=False)


class ConversationTurn(Contract):
    """One message of a conversation; the transcripts are the ground truth of dreaming."""

    schema_version: Literal[1] = 1
    scope: ScopeStr
    session_id: str = Field(min_length=1, max_length=256)
    message_id: MessageId = Field(min_length=1, max_length=256)
    role: Literal["user", "assistant", "system", "tool"]
    content: str = Field(max_length=200_000)
    ts: EventTime
    metadata: Metadata = None


class MemoryAdd(Contract):
    """A memory the live agent wrote for itself; dreaming curates it later."""

    schema_version: Literal[1] = 1
    scope: ScopeStr
    memory_id: str = Field(min_length=1, max_length=256)
    text: str = Field(min_length=1, max_length=20_000)
    ts: EventTime
    source_message_ids: tuple[MessageId, ...] = ()
    protected: bool = False
    """User-curated: dreaming never edits, merges or archives it."""
    metadata: Metadata = None


STEERING_MAX_CHARS = 2_000
CorrectionRole = Literal["agent", "operator"]


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty or whitespace only")
    return value


class MemoryCorrection(Contract):
    """What a `correct` control event asks of one memory: a new text (`update`) or its end
    (`retire`). The next pass applies it as a new generation, with `by` and the event's `reason`
    in the diary and the audit trail."""

    memory_id: str = Field(min_length=1, max_length=256)
    op: Literal["update", "retire"]
    text: Annotated[str, Field(max_length=20_000), AfterValidator(_not_blank)] | None = None
    """The memory's new text (update only)."""
    by: Annotated[str, Field(max_length=256), AfterValidator(_not_blank)]
    """Who asks (an agent's or operator's name, as they gave it)."""
    role: CorrectionRole = "agent"
    """`operator` may correct a protected memory. Honoured only from a producer the consolidation
    worker trusts (the API's own, or one named in `trusted_producers`); otherwise read as `agent`."""

    @model_validator(mode="after")
    def _text_goes_with_update(self) -> MemoryCorrection:
        if (self.op == "update") != (self.text is not None):
            raise ValueError("text is required for op 'update' and not allowed for op 'retire'")
        return self


class SteeringChange(Contract):
    """What a `steer` control event sets: an operator's words on what memory is for, for one
    scope or for a whole tenant. An empty text clears it."""

    text: str = Field(max_length=STEERING_MAX_CHARS)
    by: Annotated[str, Field(max_length=256), AfterValidator(_not_blank)]
    applies_to: Literal["scope", "tenant"] = "scope"
    """`tenant`: the event is one of a set sent to every partition (one carrier scope of the
    tenant per partition, `tenant_carrier_scopes`), so every stream worker keeps it."""


class ControlEvent(Contract):
    """An operator or runtime command for one scope."""

    schema_version: Literal[1] = 1
    scope: ScopeStr
    action: Literal["trigger", "reset", "evaluate", "forget", "correct", "steer"]
    """`trigger` asks for a dream pass now; `reset` clears the failure gate; `evaluate` (sent by
    the stream worker's own timer) re-checks the time-based triggers (idle, schedule); `forget`
    deletes the scope's memories, transcripts and signals (the right to be forgotten); `correct`
    asks the next pass to change or retire one memory (`correction`; it also asks for that pass,
    like a trigger); `steer` sets the scope's or the tenant's steering (`steering`)."""
    request_id: str = Field(min_length=1, max_length=128)
    """For `correct`, the correction's id."""
    ts: EventTime = Field(default_factory=lambda: datetime.now(UTC))
    reason: str = Field(default="", max_length=1_000)
    correction: MemoryCorrection | None = None
    steering: SteeringChange | None = None

    @model_validator(mode="after")
    def _payload_matches_action(self) -> ControlEvent:
        if (self.action == "correct") != (self.correction is not None):
            raise ValueError("correction is required for action 'correct' and not allowed for any other")
        if (self.action == "steer") != (self.steering is not None):
            raise ValueError("steering is required for action 'steer' and not allowed for any other")
        if self.action == "correct" and not self.reason.strip():
            raise ValueError("reason is required for action 'correct' (why the memory is wrong)")
        return self
