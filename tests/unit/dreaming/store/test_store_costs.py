"""What a store read or write costs: one memory is one point read, unchanged texts keep their
vectors, a memory written from messages can reuse theirs, the generations cache stays bounded;
and the embedded engine's own contract (one process per folder, data kept across a reopen, a
clear error for a query it does not translate)."""

from __future__ import annotations

import math
import shutil
from collections import Counter
from datetime import UTC, datetime

import numpy as np
import pytest
from qdrant_client import models

from dreaming.embedding.hybrid import Bm25
from dreaming.store import AppliedJob, GenerationInfo, MemoryStore, TranscriptStore
from dreaming.store.edge import EdgeClient, StoreInUse, UnsupportedQuery
from dreaming.store.generations_cache import CachedGeneration, GenerationsCache
from schemas import ConversationTurn, MemoryRecord
from tests.unit.snapshot_factory import transcript_record

SCOPE = "acme/bot/u1"
T0 = datetime(2026, 4, 1, tzinfo=UTC)
DIMS = 8


class CountingEmbed:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts):
        self.texts.extend(texts)
        return [[1.0 + ((len(t) * (i + 3)) % 7) for i in range(DIMS)] for t in texts]


class CountingClient:
    """Any store client, counting the calls made through it."""

    def __init__(self, inner) -> None:
        self.inner, self.calls = inner, Counter()

    def __getattr__(self, name):
        self.calls[name] += 1
        return getattr(self.inner, name)


def rec(memory_id: str, text: str, evidence=("t1",)) -> MemoryRecord:
    return transcript_record(SCOPE, memory_id, text, T0, evidence)


def promote(store: MemoryStore, records, job: str) -> int:
    state = store.state(SCOPE)
    number = state.next_generation
    store.write_candidate(SCOPE, number, records)
    info = GenerationInfo(generation=number, job_id=job, status="active", created_at=T0)
    store.promote(state, info, AppliedJob(job_id=job, outcome="completed", generation=number))
    return number


def test_one_memory_is_one_point_read_even_from_a_cold_process(store_client):
    embed = CountingEmbed()
    writer = MemoryStore(store_client, "test", DIMS, embed, 3)
    number = promote(writer, [rec(f"m{i}", f"statement {i}") for i in range(50)], "j1")
    counted = CountingClient(store_client)
    reader = MemoryStore(counted, "test", DIMS, embed, 3)  # another process: nothing cached
    counted.calls.clear()
    assert reader.record(SCOPE, number, "m7").text == "statement 7"
    assert counted.calls == Counter(retrieve=2)  # the generation's manifest, once, and the point
    counted.calls.clear()
    assert reader.record(SCOPE, number, "nope") is None  # the manifest says so: no read
    assert reader.record(SCOPE, number, "m8").text == "statement 8"
    assert counted.calls == Counter(retrieve=1)


def test_a_new_generation_embeds_only_the_texts_it_changes(store_client):
    embed = CountingEmbed()
    store = MemoryStore(store_client, "test", DIMS, embed, 3)
    texts = [f"statement {i}" for i in range(20)]
    promote(store, [rec(f"m{i}", t) for i, t in enumerate(texts)], "j1")
    assert len(embed.texts) == 20
    embed.texts.clear()
    promote(store, [rec(f"m{i}", t if i else "statement zero, corrected") for i, t in enumerate(texts)], "j2")
    assert embed.texts == ["statement zero, corrected"]
    assert [m.text for m in store.active_records(SCOPE)][0] == "statement zero, corrected"


def test_a_memory_written_from_messages_can_reuse_their_vectors(store_client):
    embed = CountingEmbed()
    transcripts = TranscriptStore(store_client, "test", DIMS, embed)
    turns = [
        ConversationTurn(scope=SCOPE, session_id="s", message_id=f"t{i}", role="user", content=f"said {i}", ts=T0)
        for i in range(2)
    ]
    transcripts.index_turns([(t, i) for i, t in enumerate(turns)])
    store = MemoryStore(store_client, "test", DIMS, embed, 3, evidence_vectors=transcripts.message_vectors)
    embed.texts.clear()
    promote(store, [rec("a", "The user said one and two", ("t0", "t1")), rec("b", "unknown source", ("t9",))], "j1")
    assert embed.texts == ["unknown source"]  # its evidence is not indexed: embedded
    hits = store.search(SCOPE, "one and two", k=2)
    assert {m.memory_id for m, _ in hits} == {"a", "b"}


def test_the_generations_cache_is_bounded_by_the_records_it_holds():
    cache = GenerationsCache(max_records=5)
    cache.put("s", 1, CachedGeneration((rec("a", "x"), rec("b", "y"))))
    cache.put("s", 2, CachedGeneration((rec("a", "x"), rec("b", "y"), rec("c", "z"))))
    assert len(cache) == 5
    cache.get("s", 1)  # used: the older one stays
    cache.put("t", 1, CachedGeneration((rec("d", "w"),)))
    assert cache.get("s", 2) is None and cache.get("s", 1) is not None and len(cache) == 3
    cache.put("big", 1, CachedGeneration(tuple(rec(f"m{i}", "v") for i in range(6))))  # larger than it all
    assert cache.get("big", 1) is None
    cache.put("s", 1, CachedGeneration(tuple(rec(f"m{i}", "v") for i in range(6))))  # too large to keep...
    assert cache.get("s", 1) is None, "...and the older copy of that generation is not kept either"
    cache.drop("s")
    assert cache.get("s", 1) is None and len(cache) == 1


def test_a_collection_whose_creation_a_kill_interrupted_is_made_again(tmp_path):
    # A kill -9 inside `EdgeShard.create` left a folder with its write-ahead log alone: the shard
    # could never be loaded, and every later pass of the worker failed on it (chaos trial, CI).
    first = EdgeClient(tmp_path / "edge")
    promote(MemoryStore(first, "test", DIMS, CountingEmbed(), 3), [rec("a", "kept across a reopen")], "j1")
    first.close()
    interrupted = tmp_path / "edge" / "test_memories"
    (interrupted / "edge_config.json").unlink()
    shutil.rmtree(interrupted / "segments")
    assert (interrupted / "wal").is_dir()
    again = EdgeClient(tmp_path / "edge")
    try:
        assert not again.collection_exists("test_memories")
        store = MemoryStore(again, "test", DIMS, CountingEmbed(), 3)  # makes it again
        promote(store, [rec("b", "written after the restart")], "j2")
        assert [m.text for m in store.active_records(SCOPE)] == ["written after the restart"]
        assert again.collection_exists("test_scopes")  # a whole shard is kept as it is
    finally:
        again.close()


def test_a_collection_a_kill_left_without_its_indexes_gets_them_at_the_next_open(tmp_path):
    # Killed between `create_collection` and the payload indexes: the collection exists, so it was
    # never indexed, and every read filtered by scope scanned all of it.
    killed = EdgeClient(tmp_path / "edge")
    killed.create_collection("test_memories", vectors_config=models.VectorParams(size=DIMS, distance="Cosine"))
    assert killed.get_collection("test_memories").payload_schema == {}
    killed.close()
    again = EdgeClient(tmp_path / "edge")
    try:
        store = MemoryStore(again, "test", DIMS, CountingEmbed(), 3)
        assert {"tenant", "scope", "generation", "status"} <= set(again.get_collection("test_memories").payload_schema)
        promote(store, [rec("a", "indexed after the restart")], "j1")
        assert [m.text for m in store.active_records(SCOPE)] == ["indexed after the restart"]
    finally:
        again.close()


def test_the_embedded_engine_is_one_process_per_folder_and_keeps_its_data(tmp_path):
    first = EdgeClient(tmp_path / "edge")
    store = MemoryStore(first, "test", DIMS, CountingEmbed(), 3)
    promote(store, [rec("a", "kept across a reopen")], "j1")
    with pytest.raises(StoreInUse, match="in use by another process"):
        EdgeClient(tmp_path / "edge")
    first.close()
    again = EdgeClient(tmp_path / "edge")
    try:
        reopened = MemoryStore(again, "test", DIMS, CountingEmbed(), 3)
        assert [m.text for m in reopened.active_records(SCOPE)] == ["kept across a reopen"]
        assert again.get_collection("test_memories").config.params.vectors.size == DIMS
        with pytest.raises(UnsupportedQuery, match="does not translate"):
            flt = models.Filter(must=[models.FieldCondition(key="text", match=models.MatchText(text="kept"))])
            again.scroll("test_memories", scroll_filter=flt)
    finally:
        again.close()


def test_bm25_postings_score_as_the_formula_says():
    docs = [["red", "kite", "red"], ["blue", "kite"], [], ["green", "owl", "owl", "owl"]]
    bm25 = Bm25(docs)
    k1, b, n = 1.2, 0.75, len(docs)
    average = sum(map(len, docs)) / n

    def expected(query: list[str], doc: list[str]) -> float:
        total = 0.0
        for term in dict.fromkeys(query):
            df = sum(term in d for d in docs)
            tf = doc.count(term)
            if tf:
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                total += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / average))
        return total

    for query in (["red"], ["kite", "owl"], ["owl", "owl"], ["absent"]):
        assert np.allclose(bm25.scores(query), [expected(query, d) for d in docs], rtol=0, atol=1e-12)
