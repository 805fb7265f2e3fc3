"""TEMPORARY stand-in for `consumers.embedding.make_embedder` and `consumers.embedding.hybrid.HybridIndex`
(branch `embed`), with their signatures, so the evaluation codes against that API today.
Dense cosine only over the hashing embedder. Deleted once branch `embed` is merged in."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from consumers.embedding import LocalEmbedder
from schemas.settings import Settings


def make_embedder(settings: Settings) -> LocalEmbedder:
    return LocalEmbedder(settings.embedding_dims)


class HybridIndex:
    def __init__(self, embedder, texts: Sequence[str], vectors: np.ndarray | None = None) -> None:
        self._embedder = embedder
        self._vectors = embedder.embed_array(list(texts)) if vectors is None else vectors

    def search(self, query: str, k: int, query_vector: np.ndarray | None = None) -> list[tuple[int, float]]:
        if not len(self._vectors):
            return []
        vector = self._embedder.embed_array([query])[0] if query_vector is None else query_vector
        scores = self._vectors @ vector
        order = np.argsort(-scores, kind="stable")[:k]
        return [(int(i), float(scores[i])) for i in order]
