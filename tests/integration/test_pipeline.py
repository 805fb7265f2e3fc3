"""The pipeline end to end on real Kafka and embedded Qdrant: fixtures in, curated memories and
audit events out. One run of the fixtures serves every test in this module."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest
from confluent_kafka import Consumer, TopicPartition

from dreaming.engine.offline.assistant_notes import is_assistant_note
from dreamstream_tools.pipeline import LocalPipeline
from schemas import DeadLetter, DreamJob, JobLifecycleEvent, MemoryChangeEvent

pytestmark = pytest.mark.integration
AVA = "demo/travel-assistant/ava"
BAD_EVENTS = {
    "not json": b"{this is not json",
    "missing scope": json.dumps(
        {"session_id": "s", "message_id": "x#1", "role": "user", "content": "hi", "ts": "2026-04-12T11:00:00+00:00"}
    ).encode(),
    "wrong type": json.dumps(
        {
            "scope": AVA,
            "session_id": "s",
            "message_id": "x#2",
            "role": "user",
            "content": 42,
            "ts": "2026-04-12T11:00:00+00:00",
        }
    ).encode(),
}


@pytest.fixture(scope="module")
def dreamed(kafka_bootstrap, tmp_path_factory, fixtures_dir):
    from tests.integration.kafka_env import unique_settings

    settings = unique_settings(kafka_bootstrap, tmp_path_factory.mktemp("pipeline"))
    pipeline = LocalPipeline(settings).start()
    try:
        for value in BAD_EVENTS.values():  # first, so the valid events behind them prove the worker kept going
            pipeline.produce_raw(settings.topics.turns, AVA.encode(), value)
        pipeline.replay([fixtures_dir / "events.jsonl", fixtures_dir / "memory_adds.jsonl"])
        pipeline.wait_until_read()
        scopes = sorted(
            {json.loads(line)["scope"] for line in (fixtures_dir / "events.jsonl").read_text().splitlines()}
        )
        pipeline.wait_for(pipeline.trigger(scopes), timeout_s=180)
        pipeline.read_audit(0.5)
        yield pipeline
    finally:
        pipeline.stop()
        if pipeline.runtime is not None:
            pipeline.runtime.close()


def texts(pipeline, scope):
    return [m.text for m in pipeline.runtime.memories.active_records(scope)]


def test_ava_correction_supersedes_window_with_aisle(dreamed):
    memories = dreamed.runtime.memories.active_records(AVA)
    aisle = [m for m in memories if "aisle" in m.text.lower() and not is_assistant_note(m.text)]
    assert len(aisle) == 1, [m.text for m in memories]  # beside it, what the assistant said it booked (22C)
    assert "ava-s2#2" in aisle[0].evidence_message_ids
    assert not [m for m in memories if "window" in m.text.lower()]
    superseded = [
        m for m in dreamed.runtime.memories.active_records(AVA, include_inactive=True) if m.memory_id == "ava-m1"
    ]
    assert superseded and superseded[0].status == "superseded" and superseded[0].superseded_by == aisle[0].memory_id


def test_ava_paraphrases_merged_with_both_sources(dreamed):
    diet = [
        m
        for m in dreamed.runtime.memories.active_records(AVA)
        if "vegetarian" in m.text.lower() or "meat" in m.text.lower()
    ]
    assert len(diet) == 1, [m.text for m in diet]
    assert {"ava-s1#2", "ava-s2#4"} <= set(diet[0].evidence_message_ids)


def test_protected_and_unmentioned_memories_survive(dreamed):
    by_id = {m.memory_id: m for m in dreamed.runtime.memories.active_records(AVA)}
    assert by_id["ava-profile"].text == "Legal name: Ava Lindqvist" and by_id["ava-profile"].protected
    assert by_id["ava-m4"].text == "Ava has a loyalty number on file with the airline"


def test_tenants_never_see_each_others_memories(dreamed):
    acme, globex = "acme/support-bot/u1", "globex/support-bot/u1"
    assert any("green" in t for t in texts(dreamed, acme)) and not any("red" in t for t in texts(dreamed, acme))
    assert any("red" in t for t in texts(dreamed, globex)) and not any("green" in t for t in texts(dreamed, globex))
    hits = dreamed.runtime.memories.search(acme, "favourite colour red", k=10)
    assert hits and all(m.scope == acme for m, _ in hits)


def test_malformed_events_are_dead_lettered_with_reasons(dreamed):
    letters = read_topic(dreamed, dreamed.topics.dead_letter, DeadLetter, expect=len(BAD_EVENTS))
    by_value = {letter.original_value(): letter for letter in letters}
    assert "not valid JSON" in by_value[BAD_EVENTS["not json"]].reason
    assert "scope" in by_value[BAD_EVENTS["missing scope"]].reason
    assert "content" in by_value[BAD_EVENTS["wrong type"]].reason
    assert all(letter.topic == dreamed.topics.turns for letter in letters)
    # The worker kept going: Ava's valid events, produced after the bad ones, were dreamed.
    assert any("aisle" in t.lower() for t in texts(dreamed, AVA))


def test_replaying_a_job_changes_nothing(dreamed):
    jobs = [j for j in read_topic(dreamed, dreamed.topics.jobs, DreamJob, expect=1) if j.scope == AVA]
    job = jobs[-1]
    before = dreamed.runtime.memories.active_records(AVA, include_inactive=True)
    changes_before = [e for e in dreamed.audit_events if isinstance(e, MemoryChangeEvent) and e.job_id == job.job_id]
    outcomes_before = outcome_count(dreamed, job.job_id)
    dreamed.produce_raw(dreamed.topics.jobs, AVA.encode(), job.model_dump_json().encode())
    deadline = time.monotonic() + 60
    while outcome_count(dreamed, job.job_id) == outcomes_before:
        assert time.monotonic() < deadline, "the replayed job was never handled"
        dreamed.read_audit(0.5)
    assert dreamed.runtime.memories.active_records(AVA, include_inactive=True) == before
    changes_after = [e for e in dreamed.audit_events if isinstance(e, MemoryChangeEvent) and e.job_id == job.job_id]
    assert changes_after == changes_before and changes_before, "no second set of change events"


def outcome_count(pipeline, job_id: str) -> int:
    return sum(
        1
        for e in pipeline.audit_events
        if isinstance(e, JobLifecycleEvent) and e.job_id == job_id and e.status in ("completed", "no-op")
    )


def read_topic(pipeline, topic, model, expect: int, timeout_s: float = 20.0):
    consumer = Consumer(
        {
            **pipeline.settings.kafka_client_config(),
            "group.id": f"reader-{time.time_ns()}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    consumer.assign([TopicPartition(topic, p, 0) for p in range(pipeline.settings.partitions)])
    found, deadline = [], time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for msg in consumer.consume(100, timeout=0.5):
            if not msg.error():
                found.append(model.model_validate_json(msg.value()))
        if len(found) >= expect:
            time.sleep(0.5)
            found.extend(
                model.model_validate_json(m.value()) for m in consumer.consume(100, timeout=0.5) if not m.error()
            )
            break
    consumer.close()
    return found


def test_every_fixture_question_is_answered_by_an_active_memory(dreamed, fixtures_dir):
    for line in (fixtures_dir / "questions.jsonl").read_text().splitlines():
        question = json.loads(line)
        active = " | ".join(texts(dreamed, question["scope"]))
        assert question["answer"].lower() in active.lower(), (question["question"], active)


def test_falcon_keeps_the_superseded_warehouse_in_history(dreamed):
    scope = "demo/research-assistant/team-falcon"
    records = dreamed.runtime.memories.active_records(scope, include_inactive=True)
    # What stated PostgreSQL as the warehouse is kept, superseded from the day of the change; the
    # active memory may still name PostgreSQL as what DuckDB replaced ("DuckDB instead of PostgreSQL").
    old = [m for m in records if "PostgreSQL" in m.text and "DuckDB" not in m.text]
    summary = [(m.text, m.status, m.valid_to) for m in records]
    assert old and all(m.status == "superseded" for m in old), summary
    assert all(m.valid_to == datetime(2026, 4, 8, 16, 0, tzinfo=UTC) for m in old), summary
    assert any("DuckDB" in m.text and m.is_active for m in records), summary


def test_prompt_injection_changes_nothing(dreamed):
    scope = "demo/support-bot/u7"
    changes = [e for e in dreamed.audit_events if isinstance(e, MemoryChangeEvent) and e.scope == scope]
    assert all("u7-s1#2" not in e.evidence_message_ids for e in changes)
    assert all(e.change == "created" for e in changes), "nothing was archived, superseded or rewritten"
    diary = dreamed.runtime.diary.entries(scope)
    assert any("u7-s1#2" in note for entry in diary for note in entry.notes)
