"""Generations share the points of the records they did not change (`store/manifests.py`), on
every backend: a pass writes what it changed and a manifest; every kept generation still reads
back exactly; a dropped or rejected generation takes only the points no kept one names; and a
store written before manifests (a point per record and generation) is read and carried on."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from qdrant_client import models

from dreaming.store import AppliedJob, Diary, GenerationInfo, MemoryStore
from dreaming.store import quarantine as decisions
from dreaming.store.client import point_id, scope_filter
from schemas import MemoryRecord
from tests.unit.snapshot_factory import transcript_record

SCOPE = "acme/bot/u1"
T0 = datetime(2026, 4, 1, tzinfo=UTC)
DIMS = 8


def embed(texts):
    return [[1.0 + ((len(t) * (i + 3)) % 7) for i in range(DIMS)] for t in texts]


def rec(memory_id: str, text: str, minutes: int = 0, **update) -> MemoryRecord:
    return transcript_record(SCOPE, memory_id, text, T0 + timedelta(minutes=minutes), ("t1",), **update)


class Upserts:
    """A store client that counts the points each collection is sent."""

    def __init__(self, inner) -> None:
        self.inner, self.points = inner, Counter()

    def upsert(self, collection_name, points, **kwargs):
        self.points[collection_name] += len(points)
        return self.inner.upsert(collection_name, points, **kwargs)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def promote(store: MemoryStore, records, job: str, status: str = "active") -> int:
    state = store.state(SCOPE)
    number = state.next_generation
    store.write_candidate(SCOPE, number, records)
    info = GenerationInfo(generation=number, job_id=job, status=status, created_at=T0)
    applied = AppliedJob(job_id=job, outcome="completed" if status == "active" else "quarantined", generation=number)
    if status == "active":
        store.promote(state, info, applied)
    else:
        store.record_quarantine(state, info, applied)
    return number


def stored_points(client, store: MemoryStore, scope: str = SCOPE) -> int:
    return client.count(store.memories, count_filter=scope_filter(scope), exact=True).count


def fresh_reader(client, kept: int = 3) -> MemoryStore:
    """Another process over the same store: nothing cached."""
    return MemoryStore(client, "test", DIMS, embed, kept)


def test_a_pass_writes_the_records_it_changed_and_one_manifest(store_client):
    counted = Upserts(store_client)
    store = MemoryStore(counted, "test", DIMS, embed, 3)
    first = [rec(f"m{i}", f"statement {i}", i) for i in range(40)]
    promote(store, first, "j1")
    assert counted.points["test_memories"] == 40
    counted.points.clear()
    second = [*first[:-1], first[-1].model_copy(update={"text": "statement 39, corrected"}), rec("new", "new", 50)]
    promote(store, second, "j2")
    assert counted.points["test_memories"] == 2  # the corrected record and the new one
    assert counted.points["test_generations"] == 1
    assert stored_points(store_client, store) == 42  # 40 shared, one old version kept for generation 1
    reader = fresh_reader(store_client)
    assert reader.generation_records(SCOPE, 1) == first
    assert reader.generation_records(SCOPE, 2) == sorted(second, key=lambda m: (m.created_at, m.memory_id))


def test_every_kept_generation_reads_back_exactly_and_dropped_ones_take_only_their_own_points(store_client):
    store = MemoryStore(store_client, "test", DIMS, embed, 3)
    records = [rec(f"m{i}", f"statement {i}", i) for i in range(10)]
    written = {}
    for n in range(6):  # each pass changes one record and adds one
        changed = [
            r.model_copy(update={"text": f"statement {n}, pass {n}"}) if r.memory_id == f"m{n}" else r for r in records
        ]
        records = [*changed, rec(f"n{n}", f"added in pass {n}", 20 + n)]
        written[promote(store, records, f"j{n}")] = sorted(records, key=lambda m: (m.created_at, m.memory_id))
    state = store.state(SCOPE)
    kept = [g.generation for g in state.generations]
    assert kept == [4, 5, 6]
    reader = fresh_reader(store_client)
    for number in kept:
        assert reader.generation_records(SCOPE, number) == written[number]
    assert reader.generation_records(SCOPE, 1) == []
    distinct = {(m.memory_id, m.model_dump_json()) for number in kept for m in written[number]}
    assert stored_points(store_client, store) == len(distinct)  # nothing a kept generation lacks
    store.rollback(SCOPE, 4)
    assert fresh_reader(store_client).active_records(SCOPE) == written[4]


def test_a_rejected_candidate_takes_its_own_points_and_leaves_the_shared_ones(store_client):
    store = MemoryStore(store_client, "test", DIMS, embed, 3)
    diary = Diary(store_client, "test")
    active = [rec("a", "aisle seat", 0), rec("b", "vegetarian", 1)]
    promote(store, active, "j1")
    candidate = promote(store, [active[0], rec("b", "vegan now", 1), rec("c", "lives in Graz", 2)], "j2", "quarantined")
    assert stored_points(store_client, store) == 4
    decisions.reject(store, diary, SCOPE, candidate, "ops", "not convinced")
    assert stored_points(store_client, store) == 2
    assert fresh_reader(store_client).active_records(SCOPE) == active


def test_points_a_crashed_pass_wrote_before_its_manifest_go_at_the_next_drop(store_client):
    store = MemoryStore(store_client, "test", DIMS, embed, 2)
    promote(store, [rec("a", "one")], "j1")
    store.write_candidate(SCOPE, 2, [rec("a", "one"), rec("orphan", "never promoted")])  # then the crash
    store.manifests.delete(SCOPE, 2)  # as if killed between its points and its manifest
    assert stored_points(store_client, store) == 2
    for n in range(2, 5):
        promote(store, [rec("a", "one"), rec(f"p{n}", f"pass {n}", n)], f"j{n}")
    kept = [g.generation for g in store.state(SCOPE).generations]
    assert kept == [3, 4]
    assert stored_points(store_client, store) == 3  # "one", pass 3, pass 4: the orphan is gone


def test_a_generation_written_before_manifests_is_read_and_carried_on(store_client):
    """Points as the store wrote them before: one per record and generation, with its number."""
    store = MemoryStore(store_client, "test", DIMS, embed, 2)
    old = [rec("a", "aisle seat", 0), rec("b", "vegetarian", 1)]
    points = [
        models.PointStruct(
            id=point_id(SCOPE, 1, m.memory_id),
            vector=embed([m.text])[0],
            payload={
                "tenant": "acme",
                "agent": "bot",
                "subject": "u1",
                "scope": SCOPE,
                "generation": 1,
                "memory_id": m.memory_id,
                "status": m.status,
                "record": m.model_dump(mode="json"),
            },
        )
        for m in old
    ]
    store_client.upsert(store.memories, points, wait=True)
    state = store.state(SCOPE)
    info = GenerationInfo(generation=1, job_id="j1", status="active", created_at=T0)
    store.promote(state, info, AppliedJob(job_id="j1", outcome="completed", generation=1))
    reader = fresh_reader(store_client, 2)
    assert reader.active_records(SCOPE) == old
    assert reader.record(SCOPE, 1, "b") == old[1]
    assert [m.memory_id for m, _ in reader.search(SCOPE, "vegetarian", k=1)] == ["b"]
    promote(reader, [old[0], rec("b", "vegan now", 1)], "j2")
    promote(reader, [old[0], rec("b", "vegan now", 1), rec("c", "Graz", 2)], "j3")  # generation 1 dropped
    assert [m.text for m in fresh_reader(store_client, 2).active_records(SCOPE)] == ["aisle seat", "vegan now", "Graz"]
    assert stored_points(store_client, store) == 3  # the old layout's points went with generation 1


@pytest.mark.parametrize("kept", [2, 5])
def test_what_readers_see_does_not_depend_on_the_layout(store_client, kept):
    """The same passes give the same generations whether or not records are shared: compared
    with each generation written whole (the records themselves, not the points)."""
    store = MemoryStore(store_client, "test", DIMS, embed, kept)
    history = []
    records = [rec(f"m{i}", f"fact {i}", i) for i in range(6)]
    for n in range(7):
        records = [
            r.model_copy(update={"status": "superseded", "superseded_by": f"x{n}"}) if i == n % 6 else r
            for i, r in enumerate(records)
        ] + [rec(f"x{n}", f"fact {n}, corrected", 10 + n)]
        history.append(sorted(records, key=lambda m: (m.created_at, m.memory_id)))
        promote(store, records, f"j{n}")
    reader = fresh_reader(store_client, kept)
    for g in store.state(SCOPE).generations:
        assert reader.generation_records(SCOPE, g.generation) == history[g.generation - 1]


def test_forget_deletes_the_manifests_with_the_points(store_client):
    from dreaming.forget import forget_scope
    from dreaming.store import TranscriptStore

    store = MemoryStore(store_client, "test", DIMS, embed, 3)
    other = "acme/bot/u2"
    promote(store, [rec("a", "one")], "j1")
    promote(store, [rec("a", "one"), rec("b", "two", 1)], "j2")
    store.write_candidate(other, 1, [rec("a", "one").model_copy(update={"scope": other})])
    deleted = forget_scope(
        store_client, store, TranscriptStore(store_client, "test", DIMS, embed), Diary(store_client, "test"), SCOPE
    )
    assert (deleted["memories"], deleted["generations"]) == (2, 2)
    for collection in (store.memories, store.manifests.collection):
        assert store_client.count(collection, count_filter=scope_filter(SCOPE), exact=True).count == 0
    assert store.generation_records(SCOPE, 2) == []
    assert [m.text for m in fresh_reader(store_client).generation_records(other, 1)] == ["one"]
