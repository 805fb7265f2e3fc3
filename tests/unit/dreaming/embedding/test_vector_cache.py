"""The embedders' LRU vector cache and its optional second level (the evaluation's disk cache)."""

from __future__ import annotations

import gc

import numpy as np

from dreaming.embedding.cache import VectorCache, embed_through_cache
from language.text_caches import clear_text_caches


class Backing:
    def __init__(self, rows: dict[str, np.ndarray] | None = None) -> None:
        self.rows = dict(rows or {})
        self.asked: list[str] = []

    def get(self, text: str) -> np.ndarray | None:
        self.asked.append(text)
        return self.rows.get(text)

    def put(self, text: str, row: np.ndarray) -> None:
        self.rows[text] = row


def _compute(calls: list[list[str]]):
    def compute(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return np.array([[float(len(t)), 1.0] for t in texts], dtype=np.float32)

    return compute


def test_a_miss_reads_the_backing_before_computing_and_new_rows_are_written_to_it():
    backing = Backing({"known": np.array([7.0, 7.0], np.float32)})
    cache = VectorCache(8)
    cache.attach(backing)
    calls: list[list[str]] = []
    rows = embed_through_cache(cache, ["known", "fresh"], _compute(calls))
    assert calls == [["fresh"]]  # only what neither level had
    assert rows.tolist() == [[7.0, 7.0], [5.0, 1.0]]
    assert backing.rows["fresh"].tolist() == [5.0, 1.0]
    backing.asked.clear()
    embed_through_cache(cache, ["known", "fresh"], _compute(calls))
    assert backing.asked == [] and len(calls) == 1  # both now in the LRU


def test_a_detached_cache_is_a_plain_lru():
    backing = Backing({"known": np.array([7.0, 7.0], np.float32)})
    cache = VectorCache(0)  # keeps nothing itself
    cache.attach(backing)
    cache.attach(None)
    calls: list[list[str]] = []
    embed_through_cache(cache, ["known"], _compute(calls))
    assert calls == [["known"]] and backing.asked == []


def test_a_vector_cache_is_emptied_while_it_lives_and_forgotten_when_it_does_not() -> None:
    rows = VectorCache(4)
    rows.put("Rosa's account number is 12-99", np.ones(4, dtype=np.float32))
    gone = VectorCache(4)
    gone.put("a sentence nobody holds any more", np.ones(4, dtype=np.float32))
    del gone
    gc.collect()
    clear_text_caches()  # a cache collected before the call is skipped, not an error
    assert len(rows) == 0 and rows.get("Rosa's account number is 12-99") is None
