"""Reading a scope's history and the operator decisions (approve, reject, rollback), on real
embedded Qdrant in a temp directory."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from dreaming.metrics import ROLLBACKS
from dreaming.store import AppliedJob, Diary, DiaryEntry, GenerationInfo, MemoryStore, TranscriptStore
from dreaming.store import quarantine as decisions
from dreaming.store.history import (
    GenerationNotKept,
    ScopeView,
    UnknownScope,
    change_trail,
    diff_generations,
    diff_records,
    record_history,
)
from schemas import MemoryAdd, MemoryChangeEvent, MemoryRecord, ScopeError

T0 = datetime(2026, 3, 5, tzinfo=UTC)
T1 = datetime(2026, 3, 6, tzinfo=UTC)
DIMS = 16
SCOPE = "acme/bot/u1"


def embed(texts):
    return [[float(sum(map(ord, t)) % (i + 2)) + 1.0 for i in range(DIMS)] for t in texts]


def record(memory_id: str, text: str, status: str = "active", updated=T0, origin: str = "transcript") -> MemoryRecord:
    return MemoryRecord(
        scope=SCOPE,
        memory_id=memory_id,
        text=text,
        origin=origin,
        status=status,
        evidence_message_ids=("m1",),
        created_at=T0,
        updated_at=updated,
    )


class Stores:
    def __init__(self, client) -> None:
        self.client = client
        self.memories = MemoryStore(self.client, "test", DIMS, embed, generations_kept=4)
        self.transcripts = TranscriptStore(self.client, "test", DIMS, embed)
        self.diary = Diary(self.client, "test")
        self.view = ScopeView(self.memories, self.diary)

    def promote(self, records, job_id: str) -> int:
        state = self.memories.state(SCOPE)
        number = state.next_generation
        self.memories.write_candidate(SCOPE, number, records)
        info = GenerationInfo(generation=number, job_id=job_id, status="active", created_at=T0)
        self.memories.promote(state, info, AppliedJob(job_id=job_id, outcome="completed", generation=number))
        return number

    def quarantine(self, records, job_id: str) -> int:
        state = self.memories.state(SCOPE)
        number = state.next_generation
        self.memories.write_candidate(SCOPE, number, records)
        info = GenerationInfo(
            generation=number, job_id=job_id, status="quarantined", created_at=T0, reason="contains email"
        )
        self.memories.record_quarantine(
            state, info, AppliedJob(job_id=job_id, outcome="quarantined", generation=number, watermarks={"turns": 7})
        )
        return number


@pytest.fixture
def stores(store_client):
    return Stores(store_client)


def test_unknown_and_malformed_scopes(stores):
    with pytest.raises(UnknownScope):
        stores.view.state(SCOPE)
    with pytest.raises(UnknownScope):
        stores.view.records(SCOPE)
    with pytest.raises(ScopeError):
        stores.view.state("acme/../globex")
    stores.promote([record("a", "x")], "j1")
    assert stores.view.state(SCOPE).active_generation == 1
    with pytest.raises(GenerationNotKept, match="no generation 7"):
        stores.view.records(SCOPE, 7)


def test_diff_records_sorts_out_added_removed_and_changed():
    before = [record("a", "window seat"), record("b", "vegetarian"), record("c", "old")]
    after = [
        record("a", "window seat", "superseded", updated=T1),
        record("b", "vegetarian", updated=T1),
        record("d", "aisle seat"),
    ]
    diff = diff_records(SCOPE, 1, 2, before, after)
    assert [m.memory_id for m in diff.added] == ["d"]
    assert [m.memory_id for m in diff.removed] == ["c"]
    assert [(c.memory_id, c.fields) for c in diff.changed] == [("a", ("status",))], "updated_at alone is no change"
    assert diff.to_json()["changed"][0]["after"]["status"] == "superseded"


def test_diff_defaults_to_the_previous_generation_against_the_active_one(stores):
    stores.promote([record("a", "one")], "j1")
    assert diff_generations(stores.view, SCOPE).from_generation == 0  # nothing before: everything added
    stores.promote([record("a", "one"), record("b", "two")], "j2")
    stores.promote([record("a", "one!"), record("b", "two")], "j3")
    diff = diff_generations(stores.view, SCOPE)
    assert (diff.from_generation, diff.to_generation) == (2, 3)
    assert [(c.memory_id, c.fields) for c in diff.changed] == [("a", ("text",))] and not diff.added
    diff = diff_generations(stores.view, SCOPE, 1)
    assert (diff.from_generation, diff.to_generation) == (1, 3) and [m.memory_id for m in diff.added] == ["b"]
    assert diff_generations(stores.view, SCOPE, 3, 3).empty


def test_record_history_follows_one_memory_across_kept_generations(stores):
    stores.promote([record("a", "window")], "j1")
    stores.promote([record("a", "window", "superseded"), record("b", "aisle")], "j2")
    versions = record_history(stores.view, SCOPE, "b")
    assert [(v.generation.generation, v.record.text if v.record else None) for v in versions] == [
        (1, None),
        (2, "aisle"),
    ]
    assert [v.record.status for v in record_history(stores.view, SCOPE, "a")] == ["active", "superseded"]
    with pytest.raises(LookupError, match="nope"):
        record_history(stores.view, SCOPE, "nope")


def test_approve_promotes_the_quarantined_generation_and_records_who_and_why(stores):
    stores.promote([record("a", "one")], "j1")
    stores.transcripts.add_pending([MemoryAdd(scope=SCOPE, memory_id="add-1", text="mail me", ts=T0)])
    number = stores.quarantine(
        [record("a", "one"), record("add-1", "mail me at x@example.com", origin="memory_add")], "j2"
    )
    state = decisions.approve(
        stores.memories, stores.transcripts, stores.diary, SCOPE, number, "alice", "it is a work address"
    )
    assert state == stores.memories.state(SCOPE)
    assert state.active_generation == number
    assert [(g.generation, g.status) for g in state.generations] == [(1, "retired"), (2, "active")]
    decision = state.generation(number).decisions[-1]
    assert (decision.action, decision.by, decision.reason) == ("approved", "alice", "it is a work address")
    assert state.applied("j2").outcome == "completed" and state.covered_offset("turns") == 7
    assert [m.memory_id for m in stores.memories.active_records(SCOPE)] == ["a", "add-1"]
    assert stores.transcripts.pending(SCOPE) == [], "the add now lives in the active generation"
    entry = stores.diary.entries(SCOPE)[-1]
    assert (entry.trigger, entry.status, entry.generation) == ("operator", "approved", number)
    assert "alice" in entry.reason and "it is a work address" in entry.reason
    with pytest.raises(decisions.DecisionRefused, match="is active, not quarantined"):
        decisions.approve(stores.memories, stores.transcripts, stores.diary, SCOPE, number, "alice", "again")


def test_approving_a_candidate_older_than_the_active_generation_needs_force(stores):
    stores.promote([record("a", "one")], "j1")
    stale = stores.quarantine([record("a", "one"), record("b", "x@example.com")], "j2")
    newer = stores.promote([record("a", "one"), record("c", "three")], "j3")
    with pytest.raises(decisions.DecisionRefused, match="predates the active generation"):
        decisions.approve(stores.memories, stores.transcripts, stores.diary, SCOPE, stale, "bob", "ok")
    assert stores.memories.state(SCOPE).active_generation == newer
    state = decisions.approve(stores.memories, stores.transcripts, stores.diary, SCOPE, stale, "bob", "ok", force=True)
    assert state.active_generation == stale and state.generation(newer).status == "retired"


def test_reject_marks_the_generation_and_deletes_its_records(stores):
    stores.promote([record("a", "one")], "j1")
    number = stores.quarantine([record("b", "x@example.com")], "j2")
    state = decisions.reject(stores.memories, stores.diary, SCOPE, number, "carol", "personal data")
    assert state.generation(number).status == "rejected" and state.generation(number).decisions[-1].by == "carol"
    assert state.active_generation == 1
    assert stores.memories.generation_records(SCOPE, number) == []
    with pytest.raises(GenerationNotKept, match="rejected"):
        stores.view.records(SCOPE, number)
    with pytest.raises(GenerationNotKept):
        decisions.approve(stores.memories, stores.transcripts, stores.diary, SCOPE, number, "carol", "changed my mind")
    assert stores.diary.entries(SCOPE)[-1].status == "rejected"
    with pytest.raises(decisions.DecisionRefused, match="needs who"):
        decisions.reject(stores.memories, stores.diary, SCOPE, 1, " ", "x")


def test_rollback_counts_and_records_the_decision(stores):
    stores.promote([record("a", "one")], "j1")
    stores.promote([record("a", "two")], "j2")
    before = ROLLBACKS._value.get()
    state = decisions.rollback(stores.memories, stores.diary, SCOPE, None, "dave", "bad pass")
    assert ROLLBACKS._value.get() == before + 1
    assert state.active_generation == 1 and [d.action for d in state.generation(1).decisions] == ["rolled-back"]
    assert stores.memories.state(SCOPE) == state
    assert [m.text for m in stores.memories.active_records(SCOPE)] == ["one"]
    assert stores.diary.entries(SCOPE)[-1].status == "rolled-back"
    with pytest.raises(UnknownScope):
        decisions.rollback(stores.memories, stores.diary, "acme/bot/nobody", None, "dave", "")
    with pytest.raises(LookupError, match="no promotable generation 9"):
        decisions.rollback(stores.memories, stores.diary, SCOPE, 9, "dave", "")


def test_change_trail_keeps_passes_that_changed_memory_and_operator_decisions():
    change = MemoryChangeEvent(
        event_id="e1",
        scope=SCOPE,
        job_id="j1",
        generation=1,
        change="created",
        memory_id="a",
        before=None,
        after=record("a", "one"),
        reason="new fact",
        ts=T0,
    )
    entries = [
        DiaryEntry(scope=SCOPE, job_id="j1", trigger="manual", status="completed", written_at=T0, events=(change,)),
        DiaryEntry(scope=SCOPE, job_id="j2", trigger="idle", status="no-op", written_at=T0),
        DiaryEntry(scope=SCOPE, job_id="op-1", trigger="operator", status="rolled-back", written_at=T1),
    ]
    trail = change_trail(entries)
    assert [t.entry.job_id for t in trail] == ["j1", "op-1"]
    assert trail[0].to_json()["changes"][0]["memory_id"] == "a"
