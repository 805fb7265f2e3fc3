"""An opt-in on-disk embedding cache for evaluation runs (`--embedding-cache DIR`, or
`DREAMSTREAM_EVAL_EMBED_CACHE`): a repeated run over the same set embeds almost nothing, so it
costs mostly rule time.

Vectors are kept by the sha256 of their text in `DIR/<model>-<dims>.npz`, behind the MiniLM
embedder's process-wide LRU (`VectorCache.attach`): a text the LRU lacks is looked up on disk
before the model is asked, and every vector the model computes is added. The file is written
after the run (merged with what other runs wrote meanwhile, under a lock, then swapped in
atomically).

It cannot change results: MiniLM's vector of a text does not depend on the batch it was computed
in (checked bit for bit), rows are stored as the float32 they were, and the file keeps a probe
sentence's vector: when the embedder now gives the probe another vector (another model, another
tokenizer setting), the file is ignored and rewritten. Only the `minilm` embedder is cached: the
hashing test double costs nothing, and a litellm embedder keeps a cache per instance.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schemas.settings import Settings

ENV = "DREAMSTREAM_EVAL_EMBED_CACHE"
PROBE = "A probe sentence: the cache is valid while this sentence embeds to the same vector."


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


@dataclass
class CacheFigures:
    path: str
    loaded: int = 0
    """Vectors in the file when the run started."""
    hits: int = 0
    """Texts the LRU lacked and the file had."""
    computed: int = 0
    """Texts the model embedded (added to the file)."""
    discarded: bool = False
    """The file was made by another model or setting and was ignored."""


class DiskVectors:
    """sha256(text) -> float32 row; `get`/`put` as `VectorCache` calls them, `save` writes the file."""

    def __init__(self, path: Path, dims: int, probe: np.ndarray) -> None:
        self.path = path
        self.dims = dims
        self._probe = np.asarray(probe, dtype=np.float32)
        self._rows: dict[bytes, np.ndarray] = {}
        self._new: dict[bytes, np.ndarray] = {}
        self._lock = threading.Lock()
        self.figures = CacheFigures(str(path))

    @classmethod
    def open(cls, directory: Path, name: str, dims: int, probe: np.ndarray) -> DiskVectors:
        directory.mkdir(parents=True, exist_ok=True)
        disk = cls(directory / f"{re.sub(r'[^A-Za-z0-9.-]+', '_', name)}-{dims}.npz", dims, probe)
        disk._rows = disk._read()
        disk.figures.loaded = len(disk._rows)
        return disk

    def _read(self) -> dict[bytes, np.ndarray]:
        """The file's rows, or none when it is missing or was made by another embedder."""
        if not self.path.exists():
            return {}
        with np.load(self.path) as data:
            keys, vectors, probe = data["keys"], data["vectors"], data["probe"]
        if vectors.shape[1:] != (self.dims,) or not np.array_equal(probe, self._probe):
            self.figures.discarded = True
            return {}
        return {bytes(key): row for key, row in zip(keys, vectors)}

    def get(self, text: str) -> np.ndarray | None:
        key = text_key(text)
        with self._lock:
            row = self._rows.get(key)
            if row is not None:
                self.figures.hits += 1
        return row

    def put(self, text: str, row: np.ndarray) -> None:
        key = text_key(text)
        with self._lock:
            if key not in self._rows:
                copy = np.array(row, dtype=np.float32)
                self._rows[key] = self._new[key] = copy
                self.figures.computed += 1

    def save(self) -> None:
        """Add this run's vectors to the file (as other runs left it), atomically."""
        with self._lock:
            new = dict(self._new)
        if not new:
            return
        with open(self.path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            rows = self._read()
            rows.update(new)
            keys = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(rows), 32)
            vectors = np.stack(list(rows.values())).astype(np.float32, copy=False)
            temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
            with open(temporary, "wb") as handle:
                np.savez(handle, keys=keys, vectors=vectors, probe=self._probe)
            os.replace(temporary, self.path)
        with self._lock:
            for key in new:
                self._new.pop(key, None)


@contextmanager
def persistent_embeddings(
    directory: Path | None, settings: Settings, say: Callable[[str], None] = lambda _: None
) -> Iterator[DiskVectors | None]:
    """Attach the disk cache in `directory` to the MiniLM embedder's shared cache for the block;
    None (no cache) when `directory` is None or the embedder is not MiniLM."""
    if directory is None:
        yield None
        return
    if settings.embedder != "minilm":
        say(f"embedding cache {directory}: ignored, the {settings.embedder} embedder is not cached on disk")
        yield None
        return
    from dreaming.embedding.minilm import MiniLMEmbedder, shared_cache

    embedder = MiniLMEmbedder(threads=settings.embedding_threads)
    disk = DiskVectors.open(directory, embedder.name, embedder.dims, embedder.embed_array([PROBE])[0])
    if disk.figures.discarded:
        say(f"embedding cache {disk.path}: made by another embedder or setting, ignored (it is rewritten)")
    cache = shared_cache()
    cache.attach(disk)
    try:
        yield disk
    finally:
        cache.attach(None)
        disk.save()
        say(
            f"embedding cache {disk.path}: {disk.figures.loaded} vectors loaded, {disk.figures.hits} used, "
            f"{disk.figures.computed} computed and added"
        )


__all__ = ["ENV", "CacheFigures", "DiskVectors", "persistent_embeddings", "text_key"]
