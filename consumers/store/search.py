"""What agents search: one scope's active memories, core and archive tiers alike, plus the
memory-adds no pass has curated yet (marked `consolidated=False`), ranked by meaning and by exact
words at once (`consumers.embedding.hybrid.HybridIndex`: names, numbers and dates matter).

The index of a scope is built once per (active generation, pending adds) and kept, so a burst of
searches costs one embedding of the query each. Qdrant does the tenant and scope filtering when
the records are read; ranking runs here, which keeps embedded Qdrant (filters evaluated in
Python, point by point) off the hot path and gives a Qdrant server and local mode the same answers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence

import numpy as np

from consumers.embedding.hybrid import HybridIndex
from consumers.embedding.protocol import Embedder
from language.dates import without_stamp
from schemas import MemoryAdd, MemoryRecord

MAX_CACHED_SCOPES = 256


def pending_record(add: MemoryAdd) -> MemoryRecord:
    """A memory-add as readers see it before a pass: searchable at once, flagged unconsolidated."""
    return MemoryRecord.from_add(add, pending=True)


def embedding_text(record_text: str) -> str:
    """What a memory's vector is computed from: its statement, not the "(said on …)" stamp."""
    return without_stamp(record_text)


class ScopeSearch:
    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._lock = threading.Lock()
        self._indexes: dict[str, tuple[Hashable, HybridIndex, list[MemoryRecord]]] = {}

    def search(
        self,
        scope: str,
        key: Hashable,
        load: Callable[[], tuple[list[MemoryRecord], np.ndarray | None]],
        query: str,
        k: int,
        allow: Callable[[MemoryRecord], bool] | None = None,
    ) -> list[tuple[MemoryRecord, float]]:
        """`key` changes whenever what `load` returns would (generation, pending adds); `allow`
        keeps the ranking to the records it accepts (a reader's filter)."""
        with self._lock:
            cached = self._indexes.get(scope)
        if cached is None or cached[0] != key:
            records, vectors = load()
            index = HybridIndex(self._embedder, [embedding_text(r.text) for r in records], vectors)
            cached = (key, index, records)
            with self._lock:
                if len(self._indexes) >= MAX_CACHED_SCOPES:
                    self._indexes.pop(next(iter(self._indexes)))
                self._indexes[scope] = cached
        _, index, records = cached
        mask = None if allow is None else np.fromiter((allow(r) for r in records), dtype=bool, count=len(records))
        return [(records[i], score) for i, score in index.search(query, k, mask=mask)]

    def rank(self, records: Sequence[MemoryRecord], query: str, k: int) -> list[tuple[MemoryRecord, float]]:
        """The same ranking over records in hand, with no index kept."""
        if not records:
            return []
        index = HybridIndex(self._embedder, [embedding_text(r.text) for r in records], None)
        return [(records[i], score) for i, score in index.search(query, k)]

    def forget(self, scope: str) -> None:
        with self._lock:
            self._indexes.pop(scope, None)


def stack(vectors: Sequence[Sequence[float] | None], dims: int) -> np.ndarray | None:
    """Stored vectors as one matrix, or None when any is missing (then the index embeds)."""
    if any(v is None for v in vectors):
        return None
    return np.asarray(vectors, dtype=np.float32).reshape(len(vectors), dims)
