"""The ranker and embedder the evaluation shares with the runtime, so the baseline is ranked exactly
as the memory side is (`MemoryStore.search` uses the same hybrid ranking over the scope's memories)."""

from __future__ import annotations

try:
    from consumers.embedding import make_embedder
    from consumers.embedding.hybrid import HybridIndex
except ImportError:  # until branch `embed` (the real embedder and the hybrid ranker) is merged
    from dreamstream.evaluation._standin import HybridIndex, make_embedder

from consumers.runtime import Runtime


def runtime_embedder(runtime: Runtime):
    """The runtime's own embedder instance when it exposes one (its text cache is then shared with
    the transcript index and the memory search), else one made from the same settings."""
    embedder = getattr(runtime, "embedder", None)
    return embedder if embedder is not None else make_embedder(runtime.settings)


__all__ = ["HybridIndex", "make_embedder", "runtime_embedder"]
