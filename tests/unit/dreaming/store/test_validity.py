"""Validity time: where the apply phase sets `valid_from` / `valid_to`, and how a memory's values
along the active generation's lineage answer `as_of`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dreaming.passes.apply import apply_plan
from dreaming.snapshot import Snapshot
from dreaming.store.memories import GenerationInfo, OperatorDecision, ScopeState
from dreaming.store.validity import lineage, records_as_of, spans
from dreaming.take_snapshot import record_from_add
from schemas import (
    ActionPlan,
    ArchiveAction,
    ConversationTurn,
    CreateAction,
    DreamJob,
    MemoryAdd,
    MemoryRecord,
    MergeAction,
    SupersedeAction,
)

SCOPE = "test/travel-desk/noor"
DAY = timedelta(days=1)
T0 = datetime(2026, 2, 1, 12, 0, tzinfo=UTC)


def turn(i: int, when: datetime) -> ConversationTurn:
    return ConversationTurn(scope=SCOPE, session_id="s", message_id=f"n{i}", role="user", content=f"note {i}", ts=when)


def record(memory_id: str, text: str, since: datetime | None = T0, **extra) -> MemoryRecord:
    fields = {"created_at": T0, "updated_at": T0, "valid_from": since, **extra}
    return MemoryRecord(scope=SCOPE, memory_id=memory_id, text=text, origin="transcript", **fields)


SNAP = Snapshot(
    job=DreamJob(job_id="job-1", scope=SCOPE, trigger="manual", requested_at=T0 + 10 * DAY),
    generation=1,
    memories=(
        record("bus", "Noor takes the bus to work", evidence_message_ids=("n0",)),
        record("rail", "Noor commutes by rail", evidence_message_ids=("n0",), since=T0 + DAY),
        record("old", "Noor's passport expires in 2027", since=None, evidence_message_ids=("n0",)),
    ),
    transcript=(turn(0, T0), turn(1, T0 + 2 * DAY), turn(2, T0 + 3 * DAY), turn(3, T0 + 4 * DAY)),
    new_message_ids=frozenset({"n1", "n2", "n3"}),
)


def test_a_created_memory_holds_from_its_earliest_evidence():
    create = CreateAction(ref="r", text="Noor cycles to work", evidence_message_ids=("n2", "n1"), rationale="said")
    candidate = apply_plan(SNAP, ActionPlan(actions=(create,)))
    [made] = [c.after for c in candidate.changes]
    assert made.valid_from == T0 + 2 * DAY and made.valid_to is None


def test_a_superseded_memory_ends_at_the_evidence_that_replaced_it_and_its_replacement_begins_there():
    actions = (
        CreateAction(ref="r", text="Noor cycles to work", evidence_message_ids=("n3",), rationale="said"),
        SupersedeAction(target="bus", replacement="r", evidence_message_ids=("n3",), rationale="changed"),
    )
    candidate = apply_plan(SNAP, ActionPlan(actions=actions))
    old = candidate.records["bus"]
    new = next(c.after for c in candidate.changes if c.kind == "created")
    assert old.valid_to == T0 + 4 * DAY == new.valid_from
    assert old.valid_from == T0, "when it began does not change"


def test_an_archive_on_evidence_ends_the_memory_and_a_prune_does_not_say_when():
    actions = (
        ArchiveAction(target="bus", evidence_message_ids=("n2",), rationale="no longer true"),
        ArchiveAction(target="old", rationale="stale", prune=True),
    )
    candidate = apply_plan(SNAP, ActionPlan(actions=actions))
    assert candidate.records["bus"].valid_to == T0 + 3 * DAY
    assert candidate.records["old"].valid_to is None


def test_a_merge_keeps_the_earliest_start_of_the_memories_it_joins():
    merge = MergeAction(survivor="rail", duplicates=("bus",), rationale="one commute")
    candidate = apply_plan(SNAP, ActionPlan(actions=(merge,)))
    assert candidate.records["rail"].valid_from == T0


def test_a_memory_add_holds_from_its_earliest_source_message_else_from_when_it_was_written():
    written = T0 + 9 * DAY
    add = MemoryAdd(scope=SCOPE, memory_id="a", text="Noor is allergic to cats", ts=written, source_message_ids=("n2",))
    assert record_from_add(add, {"n2": T0 + 3 * DAY}).valid_from == T0 + 3 * DAY
    assert record_from_add(add, {}).valid_from == written


# --- values along a lineage


def test_each_value_holds_until_the_next_begins():
    newest = record("city", "Noor lives in Ghent", since=T0 + 5 * DAY)
    older = record("city", "Noor lives in Leuven", since=T0)
    found = spans([newest, older, older])
    assert [(s.record.text, s.since, s.until) for s in found] == [
        ("Noor lives in Ghent", T0 + 5 * DAY, None),
        ("Noor lives in Leuven", T0, T0 + 5 * DAY),
    ]

    def held(at: datetime) -> dict[str, datetime | None]:
        return {m.text: m.valid_to for m in records_as_of([[newest], [older]], at)}

    assert held(T0 + DAY) == {"Noor lives in Leuven": T0 + 5 * DAY}
    assert held(T0 + 6 * DAY) == {"Noor lives in Ghent": None}
    assert held(T0 - DAY) == {}


def test_retired_records_hold_until_they_ended_and_merged_ones_hold_nothing_of_their_own():
    superseded = record("a", "Noor works nights", status="superseded", valid_to=T0 + 2 * DAY)
    pruned = record("b", "Noor likes jazz", status="archived", updated_at=T0 + 3 * DAY)
    merged = record("c", "Noor enjoys jazz", status="merged", merged_into="b")
    assert [(s.since, s.until) for s in spans([superseded])] == [(T0, T0 + 2 * DAY)]
    assert [(s.since, s.until) for s in spans([pruned])] == [(T0, T0 + 3 * DAY)]
    assert spans([merged]) == []
    assert {m.memory_id for m in records_as_of([[superseded, pruned, merged]], T0 + DAY)} == {"a", "b"}


def info(number: int, based_on: int | None, status: str = "retired", **extra) -> GenerationInfo:
    return GenerationInfo(
        generation=number, job_id=f"j{number}", status=status, created_at=T0, based_on=based_on, **extra
    )


def test_the_lineage_follows_what_each_generation_was_built_from_past_rollbacks_and_quarantine():
    rolled_back = OperatorDecision(action="rolled-back", by="ops", at=T0)
    state = ScopeState(
        scope=SCOPE,
        tenant="test",
        active_generation=4,
        generations=(
            info(1, 0),
            info(2, 1, decisions=(rolled_back,)),
            info(3, 2),  # rolled back: 4 was built from 2
            info(4, 2, "active"),
            info(5, 4, "quarantined"),
        ),
    )
    assert lineage(state) == [4, 2, 1]
    older = state.model_copy(update={"generations": (info(1, None), info(2, None, "active"))}, deep=True)
    assert lineage(older.model_copy(update={"active_generation": 2})) == [2], "unknown parents: the active one only"
