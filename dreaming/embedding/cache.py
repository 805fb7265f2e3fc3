"""Text -> vector, least recently used out first: the same message is embedded by the transcript
index, the eval baseline and the engine, and a model call is the expensive part."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from language.text_caches import register_clear


class VectorBacking(Protocol):
    """A second level behind the LRU, e.g. the evaluation's on-disk cache (never used by the workers)."""

    def get(self, text: str) -> np.ndarray | None: ...

    def put(self, text: str, row: np.ndarray) -> None: ...


class VectorCache:
    def __init__(self, size: int) -> None:
        self.size = size
        self._rows: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._backing: VectorBacking | None = None
        register_clear(self.clear)  # it holds tenant text: emptied when a scope is forgotten

    def clear(self) -> None:
        """Drop every row held in memory (the backing keeps its own)."""
        with self._lock:
            self._rows.clear()

    def attach(self, backing: VectorBacking | None) -> None:
        """Read `backing` on a miss and write every new row to it; None detaches it."""
        self._backing = backing

    def get(self, text: str) -> np.ndarray | None:
        with self._lock:
            row = self._rows.get(text)
            if row is not None:
                self._rows.move_to_end(text)
                return row
        backing = self._backing
        if backing is None:
            return None
        row = backing.get(text)
        if row is not None:
            self._remember(text, row)
        return row

    def put(self, text: str, row: np.ndarray) -> None:
        backing = self._backing
        if backing is not None:
            backing.put(text, row)
        self._remember(text, row)

    def _remember(self, text: str, row: np.ndarray) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._rows[text] = row
            self._rows.move_to_end(text)
            while len(self._rows) > self.size:
                self._rows.popitem(last=False)

    def __len__(self) -> int:
        return len(self._rows)


def embed_through_cache(
    cache: VectorCache, texts: Sequence[str], compute: Callable[[list[str]], np.ndarray]
) -> np.ndarray:
    """Rows for `texts` (at least one): cached ones as they are, the others by one call of
    `compute` with each distinct missing text once."""
    cached: dict[int, np.ndarray] = {}
    missing: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        row = cache.get(text)
        if row is None:
            missing.setdefault(text, []).append(i)
        else:
            cached[i] = row
    fresh = compute(list(missing)) if missing else None
    width = fresh.shape[1] if fresh is not None else len(next(iter(cached.values())))
    out = np.empty((len(texts), width), dtype=np.float32)
    for i, row in cached.items():
        out[i] = row
    if fresh is not None:
        for (text, rows), vector in zip(missing.items(), fresh):
            out[rows] = vector
            cache.put(text, np.array(vector, dtype=np.float32))  # a copy: keeps no batch alive
    return out
