"""Decode and validate one raw input record; anything wrong becomes a DeadLetter with its reason."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from pydantic import BaseModel, ValidationError

from schemas import ControlEvent, ConversationTurn, DeadLetter, JobLifecycleEvent, MemoryAdd
from schemas.audit import audit_event_adapter
from schemas.cloudevents import unframe
from schemas.errors import describe_validation_error
from schemas.topics import TopicCatalog

InputEvent = ConversationTurn | MemoryAdd | ControlEvent | JobLifecycleEvent


class BadEvent(ValueError):
    """Raised with a reason a person can read: which field, what is wrong."""


class Decoder:
    """Maps each input topic to its contract and checks what the contract cannot: size and key."""

    def __init__(self, topics: TopicCatalog, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        self._audit = topics.audit
        self._models: dict[str, type[BaseModel]] = {
            topics.turns: ConversationTurn, topics.memory_adds: MemoryAdd, topics.control: ControlEvent,
        }

    def decode(self, topic: str, key: bytes | None, value: bytes | None) -> InputEvent | None:
        """Return the validated event; None for audit events this worker does not act on."""
        if value is None:
            raise BadEvent("empty value (tombstone) on an event topic")
        if len(value) > self._max_bytes:
            raise BadEvent(f"payload of {len(value)} bytes exceeds the limit of {self._max_bytes}")
        if topic == self._audit:
            value = unframe(value)  # Schema Registry framing (audit_schema_id), when on
            if b'"type":"job"' not in value.replace(b" ", b""):
                return None
            return audit_event_adapter.validate_json(value)
        model = self._models.get(topic)
        if model is None:
            raise BadEvent(f"no contract for topic {topic!r}")
        try:
            event = model.model_validate_json(value)
        except ValidationError as err:
            raise BadEvent(_json_or_schema_reason(value, err)) from err
        if key is not None and key.decode("utf-8", "replace") != event.scope:
            raise BadEvent(f"key {key!r} disagrees with scope {event.scope!r}")
        return event

    def dead_letter(self, reason: str, error_type: str, topic: str, partition: int, offset: int,
                    key: bytes | None, value: bytes | None) -> DeadLetter:
        preview = (value or b"")[:200].decode("utf-8", "replace")
        return DeadLetter(
            reason=reason, error_type=error_type, topic=topic, partition=partition, offset=offset,
            key=key.decode("utf-8", "replace") if key is not None else None,
            value_b64=DeadLetter.encode(value), value_preview=preview, ts=datetime.now(timezone.utc),
        )


def _json_or_schema_reason(value: bytes, err: ValidationError) -> str:
    if any(e["type"] == "json_invalid" for e in err.errors()):
        try:
            json.loads(value)
        except (json.JSONDecodeError, UnicodeDecodeError) as bad:
            return f"not valid JSON: {bad}"
    return describe_validation_error(err)
