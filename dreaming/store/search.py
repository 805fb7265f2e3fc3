"""What agents search: one scope's active memories, core and archive tiers alike, plus the
memory-adds no pass has curated yet (marked `consolidated=False`), ranked by meaning and by exact
words at once (`dreaming.embedding.hybrid.HybridIndex`: names, numbers and dates matter).

The index of a scope is built once per (active generation, pending adds) and kept, so a burst of
searches costs one embedding of the query each. Qdrant does the tenant and scope filtering when
the records are read; ranking runs here, which keeps embedded Qdrant (filters evaluated in
Python, point by point) off the hot path and gives a Qdrant server and local mode the same answers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Hashable, Sequence
from datetime import date
from typing import TypeVar

import numpy as np

from dreaming.embedding.hybrid import HybridIndex
from dreaming.embedding.protocol import Embedder
from language.dates import stamp_day, without_stamp
from language.text_caches import text_cache
from schemas import MemoryAdd, MemoryRecord

MAX_CACHED_SCOPES = 256
T = TypeVar("T")


def pending_record(add: MemoryAdd) -> MemoryRecord:
    """A memory-add as readers see it before a pass: searchable at once, flagged unconsolidated."""
    return MemoryRecord.from_add(add, pending=True)


TEXT_CACHE_SIZE = 65_536
"""Memory texts whose derived texts are kept: rebuilding a scope's index after a promotion reads
the same texts again, and their stamps cost two regular expressions each."""


@text_cache(maxsize=TEXT_CACHE_SIZE)
def embedding_text(record_text: str) -> str:
    """What a memory's vector is computed from: its statement, not the "(said on …)" stamp."""
    return without_stamp(record_text)


def lexical_text(record: MemoryRecord) -> str:
    """What a memory is matched on word by word: its statement and the day it was said (its
    stamp; a memory without one, the day its evidence made it true). "What did Ava share on
    9 May 2023?" then finds the memories of that day, as a reader scanning dated notes would;
    the vector stays the statement's alone, and the reader reads the text as it is."""
    return _lexical_text(record.text, (record.valid_from or record.created_at).date())


@text_cache(maxsize=TEXT_CACHE_SIZE)
def _lexical_text(text: str, undated: date) -> str:
    return day_words(embedding_text(text), stamp_day(text) or undated)


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
            index = _index(self._embedder, records, vectors)
            cached = (key, index, records)
            with self._lock:
                if len(self._indexes) >= MAX_CACHED_SCOPES:
                    self._indexes.pop(next(iter(self._indexes)))
                self._indexes[scope] = cached
        _, index, records = cached
        mask = None if allow is None else np.fromiter((allow(r) for r in records), dtype=bool, count=len(records))
        found = [(records[i], score) for i, score in index.search(query, k * WIDEN + DEFER, mask=mask)]
        return evidence_diverse(found, _cited, DEFER)[:k]

    def rank(self, records: Sequence[MemoryRecord], query: str, k: int) -> list[tuple[MemoryRecord, float]]:
        """The same ranking over records in hand, with no index kept."""
        if not records:
            return []
        index = _index(self._embedder, records, None)
        return [(records[i], score) for i, score in index.search(query, k)]

    def forget(self, scope: str) -> None:
        with self._lock:
            self._indexes.pop(scope, None)


DEFER = 3
"""A memory whose every cited message a better-ranked memory already cites is read after this
many memories that bring new evidence (`evidence_diverse`)."""
WIDEN = 2
"""Ranked past k by this factor, so the deferred ones are replaced by fresh ones."""


def evidence_diverse(ranked: Sequence[T], evidence: Callable[[T], Collection[str]], defer: int = DEFER) -> list[T]:
    """The ranking read as a reader pays for it: an item resting only on messages a better one
    already cites (an agent's note and the fact it notes, two wordings of one message) says
    little the reader does not have, so it moves `defer` places down behind items that bring
    other evidence, in its order. Items citing nothing are never deferred. One rule for memories
    and for the evaluation's raw baseline (`evidence` gives an item's cited message ids)."""
    seen: set[str] = set()
    out: list[T] = []
    waiting: list[tuple[int, T]] = []
    fresh = 0
    for item in ranked:
        while waiting and waiting[0][0] <= fresh:
            out.append(waiting.pop(0)[1])
        cited = evidence(item)
        if cited and seen.issuperset(cited):
            waiting.append((fresh + defer, item))
            continue
        seen.update(cited)
        out.append(item)
        fresh += 1
    out.extend(item for _, item in waiting)
    return out


def day_words(text: str, day: date) -> str:
    """What an item is matched on word by word: its text and the day it holds for (`lexical_text`)."""
    return f"{text} {day.isoformat()}"


def _cited(found: tuple[MemoryRecord, float]) -> Sequence[str]:
    return found[0].evidence_message_ids


def _index(embedder: Embedder, records: Sequence[MemoryRecord], vectors: np.ndarray | None) -> HybridIndex:
    return HybridIndex(
        embedder, [embedding_text(r.text) for r in records], vectors, lexical=[lexical_text(r) for r in records]
    )


def stack(vectors: Sequence[Sequence[float] | None], dims: int) -> np.ndarray | None:
    """Stored vectors as one matrix, or None when any is missing (then the index embeds)."""
    if any(v is None for v in vectors):
        return None
    return np.asarray(vectors, dtype=np.float32).reshape(len(vectors), dims)
