"""The process's embedder, by the `embedder` setting. Stores create their Qdrant collections with
`embedder.dims`, so the width can never disagree with the model."""

from __future__ import annotations

from dreaming.embedding.protocol import Embedder
from schemas.settings import Settings


def make_embedder(settings: Settings) -> Embedder:
    if settings.embedder == "hashing":
        from dreaming.embedding.hashing import HashingEmbedder

        return HashingEmbedder(settings.embedding_dims)
    if settings.embedder == "litellm":
        from dreaming.embedding.litellm_embedder import LitellmEmbedder  # litellm is slow to import

        return LitellmEmbedder.from_settings(settings)
    from dreaming.embedding.minilm import MiniLMEmbedder

    return MiniLMEmbedder(threads=settings.embedding_threads)
