"""Corrections through the whole dream pass on embedded Qdrant: a new generation with who and why
in the diary and the audit events, validity time and `as_of` before and after, rollback, the
protected rule, and the corrections inbox emptied only when the pass is done with them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from consumers.runtime import Runtime, open_runtime
from dreaming.store import quarantine
from dreaming.store.history import ScopeView, record_history
from dreaming.store.validity import memories_as_of
from schemas import ControlEvent, MemoryAdd, MemoryChangeEvent, MemoryCorrection
from schemas.settings import Settings
from tests.unit.dreaming.test_dream_pass import CountingEngine
from tests.unit.feed import Feed

SCOPE = "test/notes-bot/kim"
T0 = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)


def add(memory_id: str, text: str, at: datetime = T0, protected: bool = False) -> MemoryAdd:
    return MemoryAdd(scope=SCOPE, memory_id=memory_id, text=text, ts=at, protected=protected)


def correction(cid: str, memory_id: str, text: str | None, at: datetime, role: str = "agent") -> ControlEvent:
    op = "update" if text is not None else "retire"
    change = MemoryCorrection(memory_id=memory_id, op=op, text=text, by="kim-agent", role=role)
    return ControlEvent(
        scope=SCOPE, action="correct", request_id=cid, ts=at, reason="the user said so", correction=change
    )


@pytest.fixture
def kim(tmp_path: Path):
    engine = CountingEngine()
    rt = open_runtime(Settings(home=tmp_path), engine=engine)
    feed = Feed(rt, SCOPE, start=T0 + timedelta(hours=1))
    feed.adds(
        [
            add("city", "Kim lives in Porto"),
            add("tea", "Kim drinks green tea every morning"),
            add("name", "Kim's legal name is Kim Arvidsson", protected=True),
        ]
    )
    assert feed.run().status == "completed"
    yield rt, feed, engine
    rt.close()


def test_a_correction_is_applied_by_the_next_pass_as_a_new_generation_without_the_engine(kim):
    rt, feed, engine = kim
    calls = engine.calls
    sent = T0 + timedelta(days=2)
    rt.corrections.add([correction("c1", "city", "Kim lives in Braga", sent)])
    result = feed.run()
    assert result.status == "completed" and result.generation == 2
    assert engine.calls == calls, "corrections alone are applied without the engine (no model call)"
    city = {m.memory_id: m for m in rt.memories.active_records(SCOPE)}["city"]
    assert (city.text, city.valid_from) == ("Kim lives in Braga", sent)
    [change] = [e for e in result.events if isinstance(e, MemoryChangeEvent)]
    assert (change.change, change.correction_id, change.by) == ("updated", "c1", "kim-agent")
    assert change.before.text == "Kim lives in Porto" and change.after.valid_from == sent
    assert [m.kind for m in result.motives] == ["memory_correction"]
    [entry] = [e for e in rt.diary.entries(SCOPE) if e.generation == 2]
    [logged] = [e for e in entry.events if isinstance(e, MemoryChangeEvent)]
    assert logged.reason == "correction c1 by kim-agent (agent): the user said so", "who and why, in the diary"
    assert rt.corrections.pending(SCOPE) == [], "applied and promoted: cleared"
    assert feed.run().status == "no-op", "nothing is applied twice"


def test_as_of_before_and_after_a_correction_and_the_history_of_each_value(kim):
    rt, feed, _ = kim
    sent = T0 + timedelta(days=2)
    rt.corrections.add([correction("c1", "city", "Kim lives in Braga", sent), correction("c2", "tea", None, sent)])
    assert feed.run().status == "completed"
    reader = ScopeView(rt.memories, rt.diary)

    def at(moment: datetime) -> dict[str, str]:
        return {m.memory_id: m.text for m in memories_as_of(reader, SCOPE, moment)}

    before, after = at(sent - timedelta(hours=1)), at(sent + timedelta(hours=1))
    assert before["city"] == "Kim lives in Porto" and after["city"] == "Kim lives in Braga"
    assert "tea" in before and "tea" not in after, "retired at the correction's time"
    assert at(T0 - timedelta(days=1)) == {}, "nothing held before its evidence"
    old_city = next(m for m in memories_as_of(reader, SCOPE, sent - timedelta(hours=1)) if m.memory_id == "city")
    assert old_city.valid_to == sent, "the old value, with when it stopped holding"

    history = [v.to_json() for v in record_history(reader, SCOPE, "city")]
    assert [(h["record"]["text"], h["valid_from"], h["valid_to"]) for h in history] == [
        ("Kim lives in Porto", T0.isoformat(), sent.isoformat()),
        ("Kim lives in Braga", sent.isoformat(), None),
    ]


def test_rollback_restores_what_the_correction_changed(kim):
    rt, feed, _ = kim
    rt.corrections.add([correction("c1", "city", "Kim lives in Braga", T0 + timedelta(days=2))])
    assert feed.run().generation == 2
    quarantine.rollback(rt.memories, rt.diary, SCOPE, None, "ops", "the agent was wrong")
    city = {m.memory_id: m for m in rt.memories.active_records(SCOPE)}["city"]
    assert rt.memories.state(SCOPE).active_generation == 1 and city.text == "Kim lives in Porto"


def test_a_protected_memory_an_agent_corrects_is_quarantined_and_an_operator_correction_passes(kim):
    rt, feed, _ = kim
    sent = T0 + timedelta(days=2)
    rt.corrections.add([correction("c1", "name", "Kim's legal name is Kim Berg", sent)])
    result = feed.run()
    assert result.status == "quarantined" and "[protected]" in result.reason
    assert rt.memories.state(SCOPE).active_generation == 1
    assert rt.corrections.pending(SCOPE) == [], "refused for good, so it cannot quarantine every later pass"

    rt.corrections.add([correction("c2", "name", "Kim's legal name is Kim Berg", sent, role="operator")])
    result = feed.run()
    assert result.status == "completed", result.reason
    name = {m.memory_id: m for m in rt.memories.active_records(SCOPE)}["name"]
    assert name.text == "Kim's legal name is Kim Berg" and name.protected


def test_a_quarantined_pass_keeps_its_good_corrections_for_the_next_pass(kim):
    rt, feed, _ = kim
    sent = T0 + timedelta(days=2)
    rt.corrections.add(
        [
            correction("c1", "name", "Kim's legal name is Kim Berg", sent),  # refused: an agent's, protected
            correction("c2", "city", "Kim lives in Braga", sent + timedelta(seconds=1)),
        ]
    )
    assert feed.run().status == "quarantined"
    assert [c.request_id for c in rt.corrections.pending(SCOPE)] == ["c2"]
    assert feed.run().status == "completed"
    assert {m.memory_id: m.text for m in rt.memories.active_records(SCOPE)}["city"] == "Kim lives in Braga"


def test_a_correction_of_a_memory_add_no_pass_has_curated_yet(tmp_path: Path):
    rt: Runtime = open_runtime(Settings(home=tmp_path), engine=CountingEngine())
    try:
        feed = Feed(rt, SCOPE, start=T0 + timedelta(hours=1))
        feed.adds([add("bike", "Kim rides a red bike to work")])
        rt.corrections.add([correction("c1", "bike", "Kim rides a blue bike to work", T0 + timedelta(minutes=5))])
        result = feed.run()
        assert result.status == "completed"
        assert [m.text for m in rt.memories.active_records(SCOPE)] == ["Kim rides a blue bike to work"]
        changes = [(e.change, e.memory_id) for e in result.events if isinstance(e, MemoryChangeEvent)]
        assert changes == [("created", "bike"), ("updated", "bike")]
    finally:
        rt.close()
