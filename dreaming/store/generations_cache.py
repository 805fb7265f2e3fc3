"""This process's copy of recently written or read generations, so reading one costs what it
returns, not a scan and a parse of the scope.

A generation listed in a scope's pointer never changes (copy-on-write: a pass writes a new
number), so a copy stays right for as long as it is kept; the only writes that touch an existing
number (a crashed candidate rewritten, a generation deleted) go through `MemoryStore`, which drops
the copy first. The records the worker has just written are put here as they are written, with
their vectors: the first list, get or search after a promotion reads nothing back from Qdrant.
Bounded by the records held (least recently used generation out first). The same bounded map
(`GenerationLru`) keeps the generations' manifests (`manifests.py`), bounded by their entries.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np

from schemas import MemoryRecord

MAX_CACHED_RECORDS = 60_000
"""About 60 MB of records plus their vectors while they wait for the search index (~1.5 KB each)."""


@dataclass
class CachedGeneration:
    records: tuple[MemoryRecord, ...]
    """Sorted as readers see them: (created_at, memory_id)."""
    vectors: np.ndarray | None = None
    """One row per record when known (just written); dropped once the search index holds them."""
    by_id: dict[str, MemoryRecord] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.by_id:
            self.by_id = {m.memory_id: m for m in self.records}


V = TypeVar("V")


class GenerationLru(Generic[V]):
    """Values kept per (scope, generation), least recently used out first once their `size` adds
    up to more than `max_size` (a value larger than it all is not kept)."""

    def __init__(self, max_size: int, size: Callable[[V], int]) -> None:
        self._max = max_size
        self._size = size
        self._held = 0
        self._entries: OrderedDict[tuple[str, int], V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, scope: str, generation: int) -> V | None:
        with self._lock:
            entry = self._entries.get((scope, generation))
            if entry is not None:
                self._entries.move_to_end((scope, generation))
            return entry

    def put(self, scope: str, generation: int, entry: V) -> None:
        with self._lock:
            self._drop((scope, generation))  # an older copy never outlives a newer value
            if self._size(entry) > self._max:
                return  # larger than the whole cache: read from the store each time
            self._entries[(scope, generation)] = entry
            self._held += self._size(entry)
            while self._held > self._max:
                _, evicted = self._entries.popitem(last=False)
                self._held -= self._size(evicted)

    def drop(self, scope: str, generation: int | None = None) -> None:
        """Forget one generation of a scope, or (None) all of them."""
        with self._lock:
            keys = [k for k in self._entries if k[0] == scope] if generation is None else [(scope, generation)]
            for key in keys:
                self._drop(key)

    def _drop(self, key: tuple[str, int]) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._held -= self._size(old)

    def __len__(self) -> int:
        return self._held


class GenerationsCache(GenerationLru[CachedGeneration]):
    """Generations' records (and vectors), bounded by the records held."""

    def __init__(self, max_records: int = MAX_CACHED_RECORDS) -> None:
        super().__init__(max_records, lambda entry: len(entry.records))
