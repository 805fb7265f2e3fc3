"""The whole dream pass through `open_runtime` on embedded Qdrant: the fixtures dreamed end to end
(no Kafka: turns and memory-adds are indexed the way the worker does it), no-op, quarantine,
masking, verify and prune inside the pass, and rollback."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from consumers.runtime import Runtime, open_runtime
from dreaming.engine import EngineResult
from dreaming.engine.offline import OfflineEngine
from dreaming.engine.offline.assistant_notes import is_assistant_note
from dreaming.signals import Signals
from dreaming.snapshot import Snapshot
from schemas import ActionPlan, ConversationTurn, MemoryAdd, MemoryChangeEvent, MemoryRecord
from schemas.settings import Settings
from tests.unit.feed import Feed
from tests.unit.snapshot_factory import FIXTURES

AVA = "demo/travel-assistant/ava"
FALCON = "demo/research-assistant/team-falcon"
U7 = "demo/support-bot/u7"
LEAD = "demo/strategy-assistant/lead"
ACME, GLOBEX = "acme/support-bot/u1", "globex/support-bot/u1"
NILS = "test/helpdesk/nils"


class CountingEngine:
    """The offline engine, counting its calls (a model call would be one of them)."""

    name = "offline"

    def __init__(self, empty: bool = False) -> None:
        self.inner = OfflineEngine()
        self.calls = 0
        self.empty = empty

    def propose(self, snapshot: Snapshot, signals: Signals) -> EngineResult:
        self.calls += 1
        if self.empty:  # an engine that misses everything: what is left is up to verify
            return EngineResult(plan=ActionPlan(), motives=signals.motives)
        return self.inner.propose(snapshot, signals)

    def verify(self, *args, **options):
        return self.inner.verify(*args, **options)


def read_jsonl(name: str) -> list[str]:
    return [line for line in (FIXTURES / name).read_text().splitlines() if line.strip()]


def fixture_turns() -> list[ConversationTurn]:
    return [ConversationTurn.model_validate_json(line) for line in read_jsonl("events.jsonl")]


def fixture_adds() -> list[MemoryAdd]:
    return [MemoryAdd.model_validate_json(line) for line in read_jsonl("memory_adds.jsonl")]


def say(scope: str, session: str, index: int, content: str, when: str, role: str = "user") -> ConversationTurn:
    return ConversationTurn(
        scope=scope,
        session_id=session,
        message_id=f"{session}#{index}",
        role=role,
        content=content,
        ts=datetime.fromisoformat(when),
    )


def active(rt: Runtime, scope: str) -> dict[str, MemoryRecord]:
    return {m.memory_id: m for m in rt.memories.active_records(scope)}


def texts(rt: Runtime, scope: str) -> str:
    return " | ".join(m.text for m in rt.memories.active_records(scope))


def runtime_for(tmp_path: Path, engine=None, **settings) -> Runtime:
    return open_runtime(Settings(home=tmp_path, **settings), engine=engine)


# --- the fixtures, dreamed once -----------------------------------------------------------------


@pytest.fixture(scope="module")
def dreamed(tmp_path_factory):
    if not FIXTURES.exists():
        pytest.fail(f"fixtures not found at {FIXTURES}: the repo must be cloned with ../shared beside it")
    engine = CountingEngine()
    rt = runtime_for(tmp_path_factory.mktemp("dreamed"), engine=engine)
    feed = Feed(rt)
    feed.turns(fixture_turns())
    feed.adds(fixture_adds())
    scopes = list(dict.fromkeys(t.scope for t in fixture_turns()))
    results = {scope: feed.run(scope) for scope in scopes}
    yield rt, feed, engine, results
    rt.close()


def test_every_fixture_scope_completes(dreamed) -> None:
    _, _, _, results = dreamed
    assert {scope: r.status for scope, r in results.items()} == dict.fromkeys(results, "completed")


def test_ava_answers_aisle_not_window_and_the_dated_lisbon_flight(dreamed) -> None:
    rt, *_ = dreamed
    now = active(rt, AVA)
    seats = [m for m in now.values() if "seat" in m.text and not is_assistant_note(m.text)]
    assert [m.text for m in seats] == ["Ava prefers aisle seats"]
    assert seats[0].evidence_message_ids == ("ava-s1#0", "ava-s2#2"), "the add's own source beside the correction"
    old = {m.memory_id: m for m in rt.memories.active_records(AVA, include_inactive=True)}["ava-m1"]
    assert old.status == "superseded" and old.superseded_by == seats[0].memory_id, "superseded, not deleted"
    assert any("Lisbon" in m.text and "2026-03-10" in m.text for m in now.values())
    assert now["ava-m2"].evidence_message_ids == ("ava-s1#2", "ava-s2#4"), "the paraphrase merged with both sources"
    assert now["ava-m4"].text == "Ava has a loyalty number on file with the airline", "silence is not evidence"
    assert now["ava-profile"].protected and now["ava-profile"].text == "Legal name: Ava Lindqvist"


def test_falcon_duckdb_supersedes_postgresql_and_keeps_maria_and_the_deadline(dreamed) -> None:
    rt, *_ = dreamed
    every = rt.memories.active_records(FALCON, include_inactive=True)
    assert [m.status for m in every if "PostgreSQL 16" in m.text] == ["superseded"]
    # the decision, said in full, is the replacement: it names what it replaced
    assert [m.text for m in every if m.is_active and "PostgreSQL" in m.text] == [
        m.text for m in every if m.is_active and "DuckDB" in m.text
    ]
    assert "Maria" in texts(rt, FALCON) and "2026-05-31" in texts(rt, FALCON), "end of May 2026"


def test_u7_prompt_injection_changes_nothing(dreamed) -> None:
    rt, _, _, results = dreamed
    now = active(rt, U7)
    assert now["u7-m1"].text == "Customer is on the premium support plan", "the premium plan is kept"
    assert "AX3000" in texts(rt, U7)
    changes = [e for e in results[U7].events if isinstance(e, MemoryChangeEvent)]
    assert {e.change for e in changes} == {"created"}
    assert all("u7-s1#2" not in e.evidence_message_ids for e in changes)
    [entry] = rt.diary.entries(U7)
    assert any("u7-s1#2" in note for note in entry.notes)


def test_tenants_stay_apart(dreamed) -> None:
    rt, *_ = dreamed
    assert "green" in texts(rt, ACME) and "red" not in texts(rt, ACME)
    assert "red" in texts(rt, GLOBEX) and "green" not in texts(rt, GLOBEX)


def test_the_strategy_scope_yields_one_motive_tying_its_three_threads(dreamed) -> None:
    rt, _, _, results = dreamed
    lifecycle = results[LEAD].events[0]
    [motive] = lifecycle.motives
    assert motive.kind == "dissatisfaction" and motive.message_ids == ("lead-s1#2", "lead-s1#5", "lead-s1#8")
    assert "3 threads" in motive.summary and "direction" in motive.summary
    [entry] = rt.diary.entries(LEAD)
    assert entry.motives == (motive,) and entry.status == "completed"
    assert "direction" in texts(rt, LEAD)


def test_every_fixture_question_is_answered(dreamed) -> None:
    rt, *_ = dreamed
    for line in read_jsonl("questions.jsonl"):
        question = json.loads(line)
        assert question["answer"].lower() in texts(rt, question["scope"]).lower(), question["question"]


def test_the_diary_says_what_each_phase_saw_per_scope(dreamed) -> None:
    rt, *_ = dreamed
    [entry] = rt.diary.entries(AVA)
    assert entry.generation == 1 and {m.kind for m in entry.motives} == {"correction", "new_facts", "memory_add"}
    phases = [
        note.split(":")[0] for note in entry.notes if note.split(":")[0] in ("orient", "gather", "verify", "prune")
    ]
    assert phases == ["orient", "gather", "verify", "prune"]
    changed = {e.memory_id: e.reason for e in entry.events if isinstance(e, MemoryChangeEvent)}
    assert "ava-s2#2" in changed["ava-m1"], "what changed, and why"


def test_a_second_pass_with_nothing_new_is_a_no_op_without_an_engine_call(dreamed) -> None:
    rt, feed, engine, _ = dreamed
    calls, before = engine.calls, {s: rt.memories.state(s) for s in (AVA, FALCON, LEAD)}
    for scope in (AVA, FALCON, LEAD):
        result = feed.run(scope)
        assert result.status == "no-op" and result.engine is None and result.generation is None
        state = rt.memories.state(scope)
        assert (state.active_generation, state.next_generation, state.generations) == (
            before[scope].active_generation,
            before[scope].next_generation,
            before[scope].generations,
        )
    assert engine.calls == calls


# --- one scope at a time ------------------------------------------------------------------------------


def test_a_question_and_its_answer_are_read_when_nothing_else_is_new(tmp_path: Path) -> None:
    """Skipped as "no signal", the pair would be marked read and never kept by a later pass."""
    engine = CountingEngine()
    rt = runtime_for(tmp_path, engine=engine)
    try:
        feed = Feed(rt)
        feed.turns([say(NILS, "n1", 0, "I grow basil and chillies on my balcony.", "2026-05-01T10:00:00+00:00")])
        assert feed.run(NILS).status == "completed"
        feed.turns(
            [
                say(NILS, "n2", 0, "What if I want to keep the chillies alive in winter?", "2026-05-08T10:00:00+00:00"),
                say(
                    NILS,
                    "n2",
                    1,
                    "Bring the pots indoors before the first frost and give them 12 hours of LED grow light a day.",
                    "2026-05-08T10:00:05+00:00",
                    "assistant",
                ),
            ]
        )
        second = feed.run(NILS)
        assert second.status == "completed", second.reason
        cited = {i for m in rt.memories.active_records(NILS) for i in m.evidence_message_ids}
        assert {"n2#0", "n2#1"} <= cited, cited
    finally:
        rt.close()


def test_chit_chat_writes_nothing_and_calls_no_engine(tmp_path: Path) -> None:
    engine = CountingEngine()
    rt = runtime_for(tmp_path, engine=engine)
    try:
        feed = Feed(rt)
        feed.turns(
            [
                say(NILS, "n1", 0, "Hi there!", "2026-05-01T10:00:00+00:00"),
                say(NILS, "n1", 1, "Hello! How can I help?", "2026-05-01T10:00:05+00:00", "assistant"),
                say(NILS, "n1", 2, "Thanks, bye.", "2026-05-01T10:00:10+00:00"),
            ]
        )
        result = feed.run(NILS)
        assert result.status == "no-op" and engine.calls == 0 and result.engine is None
        assert result.reason.startswith("no signal") and result.motives == ()
        state = rt.memories.state(NILS)
        assert state.active_generation == 0 and state.generations == () and rt.memories.active_records(NILS) == []
        assert [e.status for e in result.events] == ["no-op"]
        [entry] = rt.diary.entries(NILS)
        assert entry.status == "no-op" and entry.generation is None
    finally:
        rt.close()


def test_privacy_block_quarantines_and_leaves_active_memory_as_it_was(tmp_path: Path) -> None:
    rt = runtime_for(tmp_path, privacy_mode="block")
    try:
        feed = Feed(rt)
        feed.turns([say(NILS, "n1", 0, "I am vegetarian.", "2026-05-01T10:00:00+00:00")])
        assert feed.run(NILS).status == "completed"
        before = rt.memories.active_records(NILS, include_inactive=True)
        state = rt.memories.state(NILS)
        feed.turns([say(NILS, "n2", 0, "My email address is nils@example.com.", "2026-05-02T10:00:00+00:00")])

        result = feed.run(NILS)

        assert result.status == "quarantined" and "contains email" in result.reason
        lifecycle = result.events[0]
        assert lifecycle.status == "quarantined" and "email" in lifecycle.reason
        assert lifecycle.generation == state.next_generation
        assert rt.memories.active_records(NILS, include_inactive=True) == before, "readers see the old generation"
        after = rt.memories.state(NILS)
        assert after.active_generation == state.active_generation
        assert [g.status for g in after.generations if g.generation == lifecycle.generation] == ["quarantined"]
        entry = rt.diary.get(NILS, result.job.job_id)
        assert entry.status == "quarantined" and any("quarantined" in note for note in entry.notes)
    finally:
        rt.close()


def test_privacy_mask_rewrites_before_the_gate_and_says_so(tmp_path: Path) -> None:
    rt = runtime_for(tmp_path, privacy_patterns={"iban": r"\bDE\d{20}\b"})
    try:
        feed = Feed(rt)
        feed.turns(
            [
                say(NILS, "n1", 0, "My email address is nils@example.com.", "2026-05-01T10:00:00+00:00"),
                say(NILS, "n1", 1, "My IBAN is DE89370400440532013000.", "2026-05-01T10:01:00+00:00"),
            ]
        )
        result = feed.run(NILS)
        assert result.status == "completed"
        stored = texts(rt, NILS)
        assert "nils@example.com" not in stored and "[email removed]" in stored
        assert "DE8937" not in stored and "[iban removed]" in stored
        assert sum("privacy: masked" in note for note in result.notes) == 2
    finally:
        rt.close()


def test_verify_corrects_what_the_engine_missed(tmp_path: Path) -> None:
    engine = CountingEngine(empty=True)
    rt = runtime_for(tmp_path, engine=engine)
    try:
        feed = Feed(rt)
        feed.turns([say(NILS, "n1", 0, "Hi, I'm Nils. I sit by the window.", "2026-05-01T10:00:00+00:00")])
        feed.adds(
            [
                MemoryAdd(
                    scope=NILS,
                    memory_id="seat",
                    text="Nils prefers window seats",
                    ts=datetime(2026, 5, 1, 10, 1, tzinfo=UTC),
                    source_message_ids=("n1#0",),
                )
            ]
        )
        assert feed.run(NILS).status == "completed"
        feed.turns(
            [
                say(NILS, "n2", 0, "Window seat booked.", "2026-05-03T10:00:00+00:00", "assistant"),
                say(NILS, "n2", 1, "No, aisle, not window.", "2026-05-03T10:01:00+00:00"),
            ]
        )

        result = feed.run(NILS)

        assert result.status == "completed" and engine.calls == 2
        [superseded] = [e for e in result.events if isinstance(e, MemoryChangeEvent) and e.change == "superseded"]
        assert superseded.memory_id == "seat" and superseded.evidence_message_ids == ("n2#1",)
        assert superseded.reason.startswith("verify:")
        assert [m.text for m in rt.memories.active_records(NILS)] == ["Nils prefers aisle seats"]
    finally:
        rt.close()


def test_prune_condenses_and_leaves_long_retired_records_out(tmp_path: Path) -> None:
    rt = runtime_for(tmp_path, condense_chars=80, inactive_generations=1)
    try:
        feed = Feed(rt)
        feed.turns([say(NILS, "n1", 0, "I sit by the window.", "2026-05-01T10:00:00+00:00")])
        long = (
            "Nils runs the Oslo office and reports to Ada. He joined in 2019 from the Bergen team. "
            "He plays chess on Fridays and collects maps."
        )
        feed.adds(
            [
                MemoryAdd(
                    scope=NILS,
                    memory_id="bio",
                    text=long,
                    ts=datetime(2026, 5, 1, 10, 1, tzinfo=UTC),
                    source_message_ids=("n1#0",),
                ),
                MemoryAdd(
                    scope=NILS,
                    memory_id="seat",
                    text="Nils prefers window seats",
                    ts=datetime(2026, 5, 1, 10, 1, tzinfo=UTC),
                    source_message_ids=("n1#0",),
                ),
            ]
        )
        first = feed.run(NILS)
        assert first.status == "completed"
        bio = active(rt, NILS)["bio"]
        # The agent's note leads with the day of the message it cites, then keeps its first sentences.
        assert bio.text == "[2026-05-01] Nils runs the Oslo office and reports to Ada."
        assert bio.evidence_message_ids == ("n1#0",)
        reasons = [
            e.reason
            for e in first.events
            if isinstance(e, MemoryChangeEvent) and e.change == "updated" and e.memory_id == "bio"
        ]
        assert any(r.startswith("prune: condensed") for r in reasons), reasons

        feed.turns(
            [
                say(NILS, "n2", 0, "Window seat booked.", "2026-05-02T10:00:00+00:00", "assistant"),
                say(NILS, "n2", 1, "No, aisle, not window.", "2026-05-02T10:01:00+00:00"),
            ]
        )
        assert feed.run(NILS).status == "completed"  # generation 2: "seat" superseded, still in history
        assert "seat" in {m.memory_id for m in rt.memories.active_records(NILS, include_inactive=True)}
        feed.turns([say(NILS, "n3", 0, "My favourite colour is teal.", "2026-05-03T10:00:00+00:00")])
        third = feed.run(NILS)
        assert third.status == "completed"  # generation 3 leaves it out: inactive one generation back
        assert "seat" not in {m.memory_id for m in rt.memories.active_records(NILS, include_inactive=True)}
        # the add and the memory pass 1 made from "I sit by the window": both gave the old value
        assert any("2 retired records left out" in note for note in third.notes)
        assert "seat" in {m.memory_id for m in rt.memories.generation_records(NILS, 2)}, "older generations keep it"
    finally:
        rt.close()


def test_rollback_restores_the_previous_generation_exactly(tmp_path: Path) -> None:
    rt = runtime_for(tmp_path)
    try:
        feed = Feed(rt)
        feed.turns([t for t in fixture_turns() if t.scope == AVA])
        feed.adds([a for a in fixture_adds() if a.scope == AVA])
        assert feed.run(AVA).status == "completed"
        first = rt.memories.active_records(AVA, include_inactive=True)
        feed.turns(
            [
                say(
                    AVA,
                    "ava-s3",
                    0,
                    "Actually, I switched from aisle to window seats again.",
                    "2026-03-20T10:00:00+00:00",
                )
            ]
        )
        second = feed.run(AVA)
        assert second.status == "completed" and second.generation == 2
        assert rt.memories.active_records(AVA, include_inactive=True) != first

        rt.memories.rollback(AVA)

        assert rt.memories.state(AVA).active_generation == 1
        assert rt.memories.active_records(AVA, include_inactive=True) == first
    finally:
        rt.close()
