"""How audit events travel: CloudEvents binary-mode headers, optional Schema Registry framing,
and the schema policy (additive changes keep schema_version; subscribers ignore unknown fields)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import jsonschema

from schemas import JobLifecycleEvent, OperatorDecisionEvent, audit_event_adapter
from schemas.cloudevents import audit_record, frame, header_map, schema_id_url, unframe
from schemas.export import CONTRACTS, OUTPUTS, drift
from schemas.settings import Settings

JSON_DIR = Path(__file__).resolve().parents[3] / "schemas" / "json"
T = datetime(2026, 3, 5, 12, 0, tzinfo=UTC)


def operator_event(**extra) -> OperatorDecisionEvent:
    return OperatorDecisionEvent(
        event_id="evt-1",
        scope="acme/bot/u1",
        action="rolled-back",
        by="oncall",
        reason="bad",
        generation=2,
        previous_generation=3,
        active_generation=2,
        deactivated=("m9",),
        ts=T,
        **extra,
    )


def test_binary_mode_headers_carry_the_cloudevents_attributes():
    key, value, headers = audit_record(operator_event(), Settings(topic_prefix="prod"), "operator")
    attrs = header_map(headers)
    assert key == b"acme/bot/u1" and json.loads(value)["type"] == "operator"
    assert attrs == {
        "ce_specversion": "1.0",
        "ce_id": "evt-1",
        "ce_type": "dev.dreamstream.audit.operator.v1",
        "ce_source": "/dreamstream/prod/operator",
        "ce_time": "2026-03-05T12:00:00+00:00",
        "ce_subject": "acme/bot/u1",
        "ce_dataschema": schema_id_url("audit_event"),
        "content-type": "application/json",
    }


def test_schema_registry_framing_only_when_a_schema_id_is_set():
    event = operator_event()
    _, plain, _ = audit_record(event, Settings(), "operator")
    _, framed, _ = audit_record(event, Settings(audit_schema_id=42), "operator")
    assert plain == event.model_dump_json().encode() and plain[:1] == b"{"
    assert framed[:5] == b"\x00\x00\x00\x00\x2a" and framed[5:] == plain
    assert unframe(framed) == unframe(plain) == plain
    assert audit_event_adapter.validate_json(unframe(framed)) == event
    assert frame(b"{}", None) == b"{}"


def test_subscribers_ignore_fields_a_newer_producer_adds():
    newer = json.loads(operator_event().model_dump_json()) | {"added_in_a_later_release": {"x": 1}}
    assert audit_event_adapter.validate_python(newer) == operator_event()
    job = JobLifecycleEvent(event_id="e", scope="a/b/c", job_id="j", status="completed", trigger="manual", ts=T)
    assert audit_event_adapter.validate_python(json.loads(job.model_dump_json()) | {"new": 1}) == job


def test_exported_schemas_have_absolute_ids_and_outputs_stay_open():
    assert drift() == [], "run python -m schemas.export"
    for name in CONTRACTS:
        schema = json.loads((JSON_DIR / f"{name}.schema.json").read_text())
        assert schema["$id"] == schema_id_url(name) and schema["$id"].startswith("https://")
        closed = '"additionalProperties": false' in (JSON_DIR / f"{name}.schema.json").read_text()
        assert closed is (name not in OUTPUTS), name
    audit = json.loads((JSON_DIR / "audit_event.schema.json").read_text())
    newer = json.loads(operator_event().model_dump_json()) | {"added_in_a_later_release": 1}
    jsonschema.Draft202012Validator(audit).validate(newer)


def test_memory_add_metadata_is_bounded_and_kept_on_the_record_it_becomes():
    import pytest
    from pydantic import ValidationError

    from dreaming.take_snapshot import record_from_add
    from schemas import ConversationTurn, MemoryAdd

    add = MemoryAdd(
        scope="acme/bot/u1",
        memory_id="m1",
        text="likes tea",
        ts=T,
        metadata={"source": "crm", "confidence": 0.9, "pinned": True, "note": None},
    )
    assert record_from_add(add).metadata == add.metadata
    turn = dict(scope="acme/bot/u1", session_id="s", message_id="t1", role="user", content="hi", ts=T)
    assert ConversationTurn(**turn, metadata={"channel": "web"}).metadata == {"channel": "web"}
    for bad, reason in (
        ({"nested": {"a": 1}}, "valid string"),
        ({"k": "x" * 2100}, "2048 bytes"),
        ({"": 1}, "at least 1 character"),
    ):
        with pytest.raises(ValidationError, match=reason):
            ConversationTurn(**turn, metadata=bad)
    with pytest.raises(ValidationError, match="Extra inputs"):
        ConversationTurn(**turn, meta={"x": 1})  # other unknown fields are still refused (dead-lettered)
