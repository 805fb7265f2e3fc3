"""What every embedder offers: a name, a fixed width, and unit rows for a batch of texts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

EmbedArray = Callable[[Sequence[str]], np.ndarray]
"""An embedder's `embed_array` as a plain function (what the engine's steps take)."""


@runtime_checkable
class Embedder(Protocol):
    name: str
    """Which model made the vectors (vectors of two models never share a collection)."""

    @property
    def dims(self) -> int:
        """The width of every vector (a store creates its collection with it)."""
        ...

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dims) float32, every row L2-normalised, so a dot product is a cosine."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """The same rows as plain lists (what Qdrant's client takes)."""
        ...
