"""The ranker and embedder the evaluation shares with the runtime, so the baseline is ranked exactly
as the memory side is (`MemoryStore.search` ranks the curated memories with the same hybrid ranker)."""

from __future__ import annotations

from consumers.runtime import Runtime
from dreaming.embedding import Embedder, make_embedder
from dreaming.embedding.hybrid import HybridIndex


def runtime_embedder(runtime: Runtime) -> Embedder:
    """The runtime's own embedder when it exposes one, else one made from the same settings (the
    MiniLM embedder's text cache is process-wide, so the transcript index's vectors are reused)."""
    embedder = getattr(runtime, "embedder", None)
    return embedder if embedder is not None else make_embedder(runtime.settings)


__all__ = ["HybridIndex", "make_embedder", "runtime_embedder"]
