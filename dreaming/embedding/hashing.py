"""A deterministic feature-hashing embedder: no model, no network, the same vector in every process.

A test double only: it knows spelling, not meaning (production and the offline
engine use MiniLM or litellm, see `factory.make_embedder`). Text is canonicalised into content
tokens (lowercase, contractions expanded, stopwords out, light stemming: `language.tokens`); each
token, and with a lower weight each character trigram of it, is hashed into `dims` signed buckets
(blake2b, never Python's salted `hash()`), and the vector is L2-normalised.

`canonical_terms` / `canonical_tokens` keep the token rules the offline engine was written
against (the same words, the same stopwords plus a few domain words) until it moves to
`language.tokens`; the fixture-shaped paraphrase lexicon that used to live here is gone.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Sequence

import numpy as np

from language.text_caches import text_cache
from language.tokens import NEGATIONS, normalise, stem
from language.tokens import STOPWORDS as ENGLISH_STOPWORDS

__all__ = ["STOPWORDS", "HashingEmbedder", "LocalEmbedder", "canonical_terms", "canonical_tokens", "stem"]

STOPWORDS = ENGLISH_STOPWORDS | frozenset("user users customer customers client team".split())
"""English stopwords plus the words every memory of a support agent shares, for the engine's overlap checks."""

_TOKEN = re.compile(r"[a-z0-9]+(?:[.\-+#][a-z0-9]+)*\+*")


@text_cache(maxsize=8192)
def canonical_terms(text: str) -> tuple[tuple[str, str], ...]:
    """(token, surface word) pairs in text order; the surface word is what a reader would see."""
    terms: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(normalise(text)):
        word = match.group(0)
        if word in NEGATIONS:
            terms.append(("not", word))
        elif word not in STOPWORDS:
            terms.append((stem(word), word))
    return tuple(terms)


@text_cache(maxsize=32_768)
def canonical_tokens(text: str) -> frozenset[str]:
    """The content of `text` as a set of canonical tokens, used for similarity and duplicates.
    Cached: a pass reads each memory's text in several steps (working set, generic words, verify,
    the gate), and the next pass of the scope reads most of them again. Sized for a scope of
    tens of thousands of memories (a smaller cache is swept by one pass over it and keeps nothing);
    the tokens are interned, so an entry costs about 1 KB."""
    return frozenset(sys.intern(token) for token, _ in canonical_terms(text))


@text_cache(maxsize=65536)
def _bucket(feature: str, dims: int) -> tuple[int, float]:
    digest = int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "big")
    return digest % dims, (1.0 if digest >> 63 else -1.0)


def _trigrams(token: str) -> list[str]:
    padded = f"#{token}#"
    return [padded[i : i + 3] for i in range(len(padded) - 2)]


def _normalise_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: np.ndarray = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return unit


class HashingEmbedder:
    """Feature-hashing embedder over canonical tokens (weight 1) and their char trigrams."""

    EMPTY_FEATURE = "\u2205"  # an empty text still gets a unit vector (Qdrant rejects zero vectors)

    def __init__(self, dims: int = 256, trigram_weight: float = 0.35) -> None:
        if dims < 8:
            raise ValueError(f"dims must be at least 8, got {dims}")
        self.dims = dims
        self.name = f"hashing-{dims}"
        self.trigram_weight = trigram_weight

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        rows: list[list[float]] = self.embed_array(texts).tolist()
        return rows

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised row per text, as a float32 matrix of shape (len(texts), dims)."""
        token_part = np.zeros((len(texts), self.dims))
        trigram_part = np.zeros((len(texts), self.dims))
        for row, text in enumerate(texts):
            tokens = [token for token, _ in canonical_terms(text)] or [self.EMPTY_FEATURE]
            self._accumulate(token_part, row, tokens)
            self._accumulate(trigram_part, row, [tri for token in tokens for tri in _trigrams(token)])
        combined = _normalise_rows(token_part) + self.trigram_weight * _normalise_rows(trigram_part)
        return _normalise_rows(combined).astype(np.float32)

    def _accumulate(self, matrix: np.ndarray, row: int, features: list[str]) -> None:
        if not features:
            return
        buckets = [_bucket(feature, self.dims) for feature in features]
        columns = np.fromiter((index for index, _ in buckets), dtype=np.intp, count=len(buckets))
        signs = np.fromiter((sign for _, sign in buckets), dtype=np.float64, count=len(buckets))
        np.add.at(matrix[row], columns, signs)


LocalEmbedder = HashingEmbedder
"""The old name, kept while callers move to `make_embedder`."""
