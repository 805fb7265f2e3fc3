"""Steering: the operator's words read by the offline engine's rules, two scopes with the same
transcript steered apart, and the stream worker keeping a scope's and a tenant's steering in its
rows so that every job carries it. (The LLM engine's prompt: tests/unit/dreaming/engine/llm/test_steering_prompt.py.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from consumers.runtime import open_runtime
from dreaming.engine.offline.steering import KEPT_CONFIDENCE, read_steering, steer_plan
from plumbing.tenant_broadcast import carrier_scopes
from schemas import ActionPlan, ControlEvent, ConversationTurn, CreateAction, DreamJob, Steering, SteeringChange
from schemas.settings import Settings
from schemas.validation import home_partition
from streams.processor import Processor
from streams.signals import tenant_row_key
from tests.kafka_record import Record

T0 = datetime(2026, 5, 4, 18, 0, tzinfo=UTC)
BY = "ops-lena"


def steering(text: str) -> Steering:
    return Steering(text=text, by=BY, set_at=T0)


def test_the_rules_read_keep_and_drop_clauses_and_name_what_they_cannot_read():
    rules = read_steering(["Keep hotel and airline preferences exact; drop anything about the weather. Be brief."])
    assert rules.keep == ("hotel", "airline preferences")
    assert rules.drop == ("weather",)
    assert rules.unread == ("Be brief",)
    assert read_steering(["don't keep pets, focus on allergies"]).drop == ("pets",)
    assert read_steering(["don't keep pets, focus on allergies"]).keep == ("allergies",)


def test_steering_drops_new_memories_about_a_dropped_topic_and_ranks_kept_ones_into_the_core():
    from dreaming.embedding.minilm import MiniLMEmbedder

    plan = ActionPlan(
        actions=(
            CreateAction(
                ref="a", text="Omar's cat Pixel sleeps on the piano.", evidence_message_ids=("m0",), rationale="x"
            ),
            CreateAction(
                ref="b", text="Omar needs a gluten-free meal on trains.", evidence_message_ids=("m1",), rationale="x"
            ),
        )
    )
    steered, notes = steer_plan(plan, [steering("drop pets; keep dietary needs")], MiniLMEmbedder().embed_array)
    assert [(a.ref, a.confidence) for a in steered.actions] == [("b", KEPT_CONFIDENCE)]
    assert any("not created" in n and "pets" in n for n in notes)
    assert any("kept for the core tier" in n for n in notes)
    assert steer_plan(plan, [], MiniLMEmbedder().embed_array) == (plan, [])


def _say(scope: str, i: int, content: str) -> ConversationTurn:
    return ConversationTurn(
        scope=scope, session_id="s1", message_id=f"o{i}", role="user", content=content, ts=T0 + timedelta(minutes=i)
    )


TRANSCRIPT = (
    "My cat Pixel is fourteen years old and sleeps on the piano all day.",
    "I can only eat gluten-free food, so please order gluten-free meals for me.",
    "I am flying to Lisbon on 2026-06-12 for a conference.",
)


def test_two_scopes_with_the_same_transcript_and_different_steering_end_with_different_memories(tmp_path: Path):
    rt = open_runtime(Settings(home=tmp_path))
    try:
        steered = {
            "test/travel-desk/omar-a": "drop anything about pets",
            "test/travel-desk/omar-b": "drop anything about food",
        }
        memories = {}
        for n, (scope, text) in enumerate(steered.items()):
            rt.transcripts.index_turns([(_say(scope, i, c), i) for i, c in enumerate(TRANSCRIPT)])
            job = DreamJob(
                job_id=f"job-{n}",
                scope=scope,
                trigger="manual",
                requested_at=T0 + timedelta(hours=1),
                watermarks={rt.settings.topics.turns: len(TRANSCRIPT)},
                scope_steering=steering(text),
            )
            result = rt.dream_pass.run(job)
            assert result.status == "completed", result.reason
            memories[scope] = " | ".join(m.text for m in rt.memories.active_records(scope))
            [entry] = rt.diary.entries(scope)
            assert any(note.startswith("steering (scope, set by ops-lena") for note in entry.notes)
            assert any(note.startswith("steering: not created") for note in entry.notes), entry.notes
        a, b = memories.values()
        assert a != b
        assert "Pixel" not in a and "gluten" in a.lower() and "Lisbon" in a
        assert "Pixel" in b and "gluten" not in b.lower() and "Lisbon" in b
    finally:
        rt.close()


# --- the stream worker keeps steering and every job carries it

SETTINGS = Settings(partitions=6)
TOPICS = SETTINGS.topics
SCOPE = "acme/support-bot/u1"
HOME = home_partition(SCOPE.encode(), SETTINGS.partitions)


def _control(event: ControlEvent, offset: int) -> Record:
    key = event.scope.encode()
    return Record(
        TOPICS.control, home_partition(key, 6), offset, key, event.model_dump_json(exclude_none=True).encode()
    )


def _steer(scope: str, text: str, applies_to: str = "scope", at: datetime = T0) -> ControlEvent:
    change = SteeringChange(text=text, by=BY, applies_to=applies_to)
    return ControlEvent(scope=scope, action="steer", request_id="s1", ts=at, steering=change)


def test_steering_is_kept_in_the_rows_and_carried_by_the_next_job_without_starting_one():
    processor = Processor(SETTINGS)
    tenant_copies = [_steer(carrier, "keep contracts exact", "tenant") for carrier in carrier_scopes("acme", 6)]
    records = [_control(e, i) for i, e in enumerate(tenant_copies)]
    records.append(_control(_steer(SCOPE, "drop small talk", at=T0 + timedelta(seconds=1)), 100))
    batch = processor.process_batch(records, {}, 1000.0)
    assert not batch.jobs, "steering alone asks for no pass"
    assert {key for _, key in batch.rows} == {tenant_row_key(SCOPE), SCOPE}, "no row for the carrier scopes"
    assert {p for p, key in batch.rows if key == tenant_row_key(SCOPE)} == set(range(6)), "one copy per partition"
    tables: dict[int, dict[str, bytes]] = {p: {} for p in range(6)}
    for (p, key), row in batch.rows.items():
        tables[p][key] = row.encode()

    trigger = ControlEvent(scope=SCOPE, action="trigger", request_id="r1", ts=T0)
    [job] = processor.process_batch([_control(trigger, 101)], tables, 1001.0).jobs
    assert job.tenant_steering == Steering(text="keep contracts exact", by=BY, set_at=T0)
    assert job.scope_steering == Steering(text="drop small talk", by=BY, set_at=T0 + timedelta(seconds=1))
    assert TOPICS.control not in job.watermarks, "a plain trigger waits for no control event"


def test_a_correction_asks_for_a_pass_whose_job_covers_the_control_topic():
    from schemas import MemoryCorrection

    processor = Processor(SETTINGS)
    change = MemoryCorrection(memory_id="m-1", op="retire", by="agent-7")
    event = ControlEvent(scope=SCOPE, action="correct", request_id="cor-1", reason="wrong", ts=T0, correction=change)
    [job] = processor.process_batch([_control(event, 41)], {}, 1000.0).jobs
    assert job.trigger == "manual" and job.request_ids == ("cor-1",)
    assert job.watermarks[TOPICS.control] == 42, "the pass must have read the correction"
    assert [m.kind for m in job.motives] == ["memory_correction"]
