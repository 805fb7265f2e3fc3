"""Production embeddings through `litellm.embedding`: any provider litellm knows (OpenAI, Azure,
Cohere, ollama, an OpenAI-compatible server), model by the `embedding_model` setting.

Texts go in batches (one request each); the width is whatever the first answer has, and every
later answer must agree. Rows are L2-normalised here (not every provider does it), and kept in an
LRU cache by text, because each request costs money.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dreaming.embedding.cache import VectorCache, embed_through_cache
from schemas.settings import Settings


class EmbeddingError(RuntimeError):
    """The provider failed or answered something that is not one vector per text."""


class LitellmEmbedder:
    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        retries: int = 1,
        batch_size: int = 64,
        cache_size: int = 16_384,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.model = model
        self.name = f"litellm:{model}"
        self._api_base = api_base
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._retries = retries
        self.batch_size = batch_size
        self._cache = VectorCache(cache_size)
        self._dims: int | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> LitellmEmbedder:
        key = settings.embedding_api_key or settings.llm_api_key
        return cls(
            settings.embedding_model,
            api_base=settings.embedding_api_base or settings.llm_api_base,
            api_key=key.get_secret_value() if key else None,
            timeout_s=settings.llm_timeout_s,
            retries=settings.llm_retries,
        )

    @property
    def dims(self) -> int:
        """The width of this model's vectors: asks the provider once if nothing was embedded yet
        (a store creates its collection with it)."""
        if self._dims is None:
            self._request(["dimension probe"])
        assert self._dims is not None
        return self._dims

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        rows: list[list[float]] = self.embed_array(texts).tolist()
        return rows

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        return embed_through_cache(self._cache, texts, self._embed_all)

    def _embed_all(self, texts: list[str]) -> np.ndarray:
        return np.vstack([self._request(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)])

    def _request(self, texts: list[str]) -> np.ndarray:
        import litellm  # slow to import: only processes that embed through a provider pay for it

        # Providers reject an empty string; a space embeds as "nothing" and keeps the row.
        inputs = [text if text.strip() else " " for text in texts]
        try:
            response = litellm.embedding(
                model=self.model,
                input=inputs,
                api_base=self._api_base,
                api_key=self._api_key,
                timeout=self._timeout_s,
                num_retries=self._retries,
            )
        except Exception as err:  # litellm raises provider-specific types; each becomes one clear error
            raise EmbeddingError(
                f"{self.name} at {self._api_base or 'its default endpoint'} failed on "
                f"{len(texts)} texts: {type(err).__name__}: {err}"
            ) from err
        return self._rows(response.data, len(texts))

    def _rows(self, data: list[Any], expected: int) -> np.ndarray:
        items = sorted(data, key=lambda item: _field(item, "index"))
        if [_field(item, "index") for item in items] != list(range(expected)):
            raise EmbeddingError(f"{self.name} answered {len(items)} vectors for {expected} texts")
        rows = np.array([_field(item, "embedding") for item in items], dtype=np.float32)
        if rows.ndim != 2 or rows.shape[1] == 0:
            raise EmbeddingError(f"{self.name} answered vectors of unequal or zero length")
        if self._dims is not None and rows.shape[1] != self._dims:
            raise EmbeddingError(f"{self.name} answered {rows.shape[1]} dims, earlier answers had {self._dims}")
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        if not np.all(np.isfinite(rows)) or np.any(norms == 0):
            raise EmbeddingError(f"{self.name} answered a zero or non-finite vector")
        self._dims = rows.shape[1]
        unit: np.ndarray = rows / norms
        return unit


def _field(item: Any, name: str) -> Any:
    return item[name] if isinstance(item, dict) else getattr(item, name)
