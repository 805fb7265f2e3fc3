"""Sentence embedders behind one protocol (`Embedder`), chosen by `make_embedder(settings)`:
MiniLM on onnxruntime (the offline default), litellm (production), feature hashing (tests only);
and `HybridIndex`, dense + BM25 search over one scope's texts."""

from dreaming.embedding.factory import make_embedder
from dreaming.embedding.hashing import (
    STOPWORDS,
    HashingEmbedder,
    LocalEmbedder,
    canonical_terms,
    canonical_tokens,
    stem,
)
from dreaming.embedding.protocol import Embedder

__all__ = [
    "STOPWORDS",
    "Embedder",
    "HashingEmbedder",
    "LocalEmbedder",
    "canonical_terms",
    "canonical_tokens",
    "make_embedder",
    "stem",
]
