"""Contracts: validation errors name the field, JSON Schemas match the models, secrets stay masked."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from schemas import ControlEvent, ConversationTurn, DreamJob, JobLifecycleEvent, MemoryAdd, make_job_id, parse_scope
from schemas.audit import audit_event_adapter
from schemas.export import drift
from schemas.settings import Settings

TURN = {
    "scope": "acme/support-bot/u1",
    "session_id": "s1",
    "message_id": "m1",
    "role": "user",
    "content": "hello",
    "ts": "2026-04-12T11:00:00+00:00",
}


def errors_of(model, data) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate_json(json.dumps(data))
    return [".".join(str(p) for p in e["loc"]) for e in caught.value.errors()]


def test_valid_turn_parses_and_is_frozen():
    turn = ConversationTurn.model_validate_json(json.dumps(TURN))
    assert turn.scope == "acme/support-bot/u1" and turn.ts.tzinfo is not None
    with pytest.raises(ValidationError):
        turn.content = "changed"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"scope": None}, "scope"),
        ({"role": "robot"}, "role"),
        ({"ts": "yesterday"}, "ts"),
        ({"ts": "2026-04-12T11:00:00"}, "ts"),  # naive timestamps are ambiguous across a fleet
        ({"message_id": 7}, "message_id"),
        ({"schema_version": 2}, "schema_version"),
        ({"colour": "green"}, "colour"),
    ],
)
def test_invalid_turn_names_the_field(change, field):
    assert field in errors_of(ConversationTurn, {**TURN, **change})


def test_missing_scope_is_named():
    data = {k: v for k, v in TURN.items() if k != "scope"}
    assert errors_of(ConversationTurn, data) == ["scope"]


@pytest.mark.parametrize(
    "scope", ["acme", "acme/bot", "acme//u1", "acme/../globex/u1", "/bot/u1", "a/b/c/d", "acme/bot/u 1"]
)
def test_bad_scopes_are_rejected_with_the_part_named(scope):
    with pytest.raises(ValueError) as caught:
        parse_scope(scope)
    assert scope in str(caught.value)


def test_memory_add_protected_defaults_false():
    add = MemoryAdd(scope="demo/travel-assistant/ava", memory_id="m", text="t", ts="2026-03-02T09:05:00+00:00")
    assert add.protected is False and add.source_message_ids == ()


def test_job_ids_are_deterministic_and_sensitive_to_their_inputs():
    a = make_job_id("a/b/c", "manual", {"t": 3, "u": 1}, ("r1",))
    assert a == make_job_id("a/b/c", "manual", {"u": 1, "t": 3}, ("r1",))
    assert a != make_job_id("a/b/c", "manual", {"t": 4, "u": 1}, ("r1",))
    assert a != make_job_id("a/b/d", "manual", {"t": 3, "u": 1}, ("r1",))
    assert a != make_job_id("a/b/c", "threshold", {"t": 3, "u": 1}, ("r1",))


def test_audit_events_round_trip_through_the_discriminated_union():
    job = DreamJob(job_id="job-1", scope="a/b/c", trigger="manual", requested_at="2026-01-01T00:00:00+00:00")
    event = JobLifecycleEvent.for_job(job, "completed", reason="ok", generation=2)
    assert audit_event_adapter.validate_json(event.model_dump_json()) == event


def test_control_event_rejects_unknown_action():
    assert "action" in errors_of(ControlEvent, {"scope": "a/b/c", "action": "forget-everything", "request_id": "r"})


def test_checked_in_json_schemas_match_the_models():
    assert drift() == [], "run `python -m schemas.export` and commit schemas/json/"


def test_secrets_are_masked_in_settings_repr(monkeypatch):
    monkeypatch.setenv("DREAMSTREAM_LLM_API_KEY", "sk-very-secret-key")
    settings = Settings()
    assert "sk-very-secret-key" not in repr(settings) and "sk-very-secret-key" not in str(settings.model_dump())
    assert settings.llm_api_key.get_secret_value() == "sk-very-secret-key"


def test_settings_are_frozen_and_validated(monkeypatch):
    monkeypatch.setenv("DREAMSTREAM_PARTITIONS", "0")
    with pytest.raises(ValidationError) as caught:
        Settings()
    assert "partitions" in str(caught.value)
    monkeypatch.delenv("DREAMSTREAM_PARTITIONS")
    with pytest.raises(ValidationError):
        Settings().partitions = 3


def test_conventional_env_names_are_honoured(monkeypatch):
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:19092")
    monkeypatch.setenv("QDRANT_URL", "http://127.0.0.1:6333")
    settings = Settings()
    assert settings.kafka_bootstrap_servers == "127.0.0.1:19092" and settings.qdrant_url == "http://127.0.0.1:6333"


AGENT_TOKEN, OPERATOR_TOKEN = "agents-token-0123456789", "operator-token-0123456789"


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        ({"DREAMSTREAM_API_OPERATOR_TOKEN": OPERATOR_TOKEN}, "needs api_token too"),
        ({"DREAMSTREAM_API_TOKEN": AGENT_TOKEN, "DREAMSTREAM_API_OPERATOR_TOKEN": AGENT_TOKEN}, "must differ"),
        (
            {"DREAMSTREAM_API_TOKEN": AGENT_TOKEN, "DREAMSTREAM_API_OPERATOR_TOKEN": "short"},
            "OPERATOR_TOKEN is too short",
        ),
        (
            {"DREAMSTREAM_API_TOKEN": AGENT_TOKEN, "DREAMSTREAM_API_OPERATOR_TOKEN": " "},
            "OPERATOR_TOKEN is set but empty",
        ),
    ],
)
def test_the_operator_token_is_a_second_real_token(monkeypatch, env, problem):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError, match=problem):
        Settings()


def test_the_operator_token_is_masked(monkeypatch):
    monkeypatch.setenv("DREAMSTREAM_API_TOKEN", AGENT_TOKEN)
    monkeypatch.setenv("DREAMSTREAM_API_OPERATOR_TOKEN", OPERATOR_TOKEN)
    settings = Settings()
    assert OPERATOR_TOKEN not in repr(settings) and OPERATOR_TOKEN not in str(settings.model_dump())
