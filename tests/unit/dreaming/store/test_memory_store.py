"""The versioned memory store on every backend (`store_client`: the embedded engine, local mode, a server)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from dreaming.store import AppliedJob, GenerationInfo, MemoryStore
from schemas import MemoryRecord
from tests.unit.snapshot_factory import transcript_record

T0 = datetime(2026, 3, 5, tzinfo=UTC)
DIMS = 16


def embed(texts):
    # Any deterministic vector will do: these tests are about generations, not retrieval quality.
    return [[float(sum(map(ord, t)) % (i + 2)) + 1.0 for i in range(DIMS)] for t in texts]


def record(scope: str, memory_id: str, text: str) -> MemoryRecord:
    return transcript_record(scope, memory_id, text, T0)


@pytest.fixture
def store(store_client):
    return MemoryStore(store_client, "test", DIMS, embed, generations_kept=3)


def promote(store: MemoryStore, scope: str, records: list[MemoryRecord], job_id: str) -> int:
    state = store.state(scope)
    generation = state.next_generation
    store.write_candidate(scope, generation, records)
    info = GenerationInfo(generation=generation, job_id=job_id, status="active", created_at=T0)
    store.promote(state, info, AppliedJob(job_id=job_id, outcome="completed", generation=generation))
    return generation


def test_readers_see_only_the_promoted_generation(store):
    scope = "acme/bot/u1"
    promote(store, scope, [record(scope, "a", "first")], "j1")
    state = store.state(scope)
    store.write_candidate(scope, state.next_generation, [record(scope, "a", "second")])  # written, not promoted
    assert [m.text for m in store.active_records(scope)] == ["first"]
    assert state.applied("j1").generation == 1


def test_rollback_restores_the_previous_generation_exactly(store):
    scope = "acme/bot/u1"
    first = [record(scope, "a", "aisle"), record(scope, "b", "vegetarian")]
    promote(store, scope, first, "j1")
    promote(store, scope, [record(scope, "a", "window")], "j2")
    assert [m.text for m in store.active_records(scope)] == ["window"]
    state = store.rollback(scope)
    assert state.active_generation == 1
    assert store.active_records(scope) == first


def test_old_generations_are_dropped_beyond_the_kept_count(store):
    scope = "acme/bot/u1"
    for n in range(5):
        promote(store, scope, [record(scope, "a", f"v{n}")], f"j{n}")
    state = store.state(scope)
    assert [g.generation for g in state.generations] == [3, 4, 5]
    assert store.generation_records(scope, 1) == []
    with pytest.raises(LookupError):
        store.rollback(scope, 1)


def test_rewriting_a_generation_replaces_what_a_crashed_attempt_left(store):
    scope = "acme/bot/u1"
    store.write_candidate(scope, 1, [record(scope, "a", "x"), record(scope, "orphan", "y")])
    store.write_candidate(scope, 1, [record(scope, "a", "x")])
    assert [m.memory_id for m in store.generation_records(scope, 1)] == ["a"]


def test_scopes_with_the_same_names_in_two_tenants_stay_apart(store):
    promote(store, "acme/bot/u1", [record("acme/bot/u1", "a", "green")], "j1")
    promote(store, "globex/bot/u1", [record("globex/bot/u1", "a", "red")], "j1")
    assert [m.text for m in store.active_records("acme/bot/u1")] == ["green"]
    assert [m.text for m in store.active_records("globex/bot/u1")] == ["red"]
    assert {m.scope for m, _ in store.search("acme/bot/u1", "red", k=5)} == {"acme/bot/u1"}
