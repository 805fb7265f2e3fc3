"""How audit events travel on Kafka: CloudEvents binary-mode headers, and optional Confluent
Schema Registry framing of the value.

Binary mode (CloudEvents Kafka protocol binding 1.0): the value is the event's JSON and the
attributes are headers: `ce_specversion`, `ce_id` (the event id, so a redelivered copy has the
same one), `ce_type` (`dev.dreamstream.audit.<type>.v<schema_version>`), `ce_source`, `ce_time`,
`ce_subject` (the scope, also the record key), `ce_dataschema` and `content-type`.

With `audit_schema_id` set, the value is framed the way Confluent's JSON Schema serializer
frames it — magic byte 0, the schema id as 4 bytes big-endian, then the JSON — so Schema Registry
aware consumers can read it. JSON never starts with a zero byte, so `unframe` tells the two apart.
"""

from __future__ import annotations

from typing import Any

from schemas.settings import Settings

SPEC_VERSION = "1.0"
TYPE_PREFIX = "dev.dreamstream.audit"
SCHEMA_BASE = "https://schemas.dreamstream.dev"
"""Absolute base of every exported schema's `$id` (schemas/export.py)."""
_MAGIC = b"\x00"


def schema_id_url(name: str, version: int = 1) -> str:
    return f"{SCHEMA_BASE}/{name}/v{version}.schema.json"


def event_source(settings: Settings, producer: str) -> str:
    """A URI reference naming the deployment (topic prefix) and the producing component."""
    return f"/dreamstream/{settings.topic_prefix}/{producer}"


def binary_headers(event: Any, source: str) -> list[tuple[str, bytes]]:
    """The CloudEvents attributes of one audit event (any schemas.audit model)."""
    attributes = {
        "ce_specversion": SPEC_VERSION,
        "ce_id": event.event_id,
        "ce_type": f"{TYPE_PREFIX}.{event.type}.v{event.schema_version}",
        "ce_source": source,
        "ce_time": event.ts.isoformat(),
        "ce_subject": event.scope,
        "ce_dataschema": schema_id_url("audit_event"),
        "content-type": "application/json",
    }
    return [(name, value.encode()) for name, value in attributes.items()]


def frame(value: bytes, schema_id: int | None) -> bytes:
    """Confluent wire format when a schema id is given; the plain JSON otherwise."""
    if schema_id is None:
        return value
    return _MAGIC + schema_id.to_bytes(4, "big") + value


def unframe(value: bytes) -> bytes:
    """The JSON of a value, framed or not."""
    if value[:1] == _MAGIC and len(value) >= 5:
        return value[5:]
    return value


def audit_record(event: Any, settings: Settings, producer: str) -> tuple[bytes, bytes, list[tuple[str, bytes]]]:
    """key, value and headers of the Kafka record that carries `event` on the audit topic."""
    value = frame(event.model_dump_json().encode(), settings.audit_schema_id)
    return event.scope.encode(), value, binary_headers(event, event_source(settings, producer))


def header_map(headers: list[tuple[str, bytes]] | None) -> dict[str, str]:
    """Headers of a consumed record as text (for subscribers and tests)."""
    return {name: (value or b"").decode() for name, value in headers or ()}
