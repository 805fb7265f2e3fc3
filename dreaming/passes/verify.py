"""Verify: the claims the plan left alone, checked against the transcripts by the engine.

The rules are the engine's (`Engine.verify`; the offline engine's are in
`dreaming/engine/offline/verifier.py`, and the LLM engine uses the same ones for now): this phase
only hands it the candidate and the transcript index, and gives the pass the actions to apply.
`window_search` is an in-memory stand-in for that index, for tests and benchmarks.
"""

from __future__ import annotations

import numpy as np

from dreaming.embedding import LocalEmbedder
from dreaming.engine.base import Curated, Engine, Search, Verified
from dreaming.snapshot import Snapshot
from schemas import ConversationTurn


def verify(
    snapshot: Snapshot, candidate: Curated, engine: Engine, search: Search, *, top_k: int, max_claims: int
) -> Verified:
    """Judge the existing claims of `candidate` against the transcripts; returns the actions for
    the contradicted ones (to be applied like any plan) and a verdict per claim checked."""
    return engine.verify(snapshot, candidate, search, top_k=top_k, max_claims=max_claims)


def window_search(snapshot: Snapshot, embedder: LocalEmbedder | None = None) -> Search:
    """An in-memory stand-in for the transcript index over the snapshot's window (same embedder,
    same cosine ranking): for pure tests and for measuring the rules without a store."""
    embedder = embedder or LocalEmbedder()
    turns = [t for t in snapshot.transcript if t.scope == snapshot.scope]
    vectors = embedder.embed_array([t.content for t in turns]) if turns else np.zeros((0, embedder.dims))

    def search(scope: str, query: str, k: int) -> list[tuple[ConversationTurn, float]]:
        if scope != snapshot.scope or not turns:
            return []
        scores = vectors @ embedder.embed_array([query])[0]
        top = np.argpartition(-scores, k - 1)[:k] if k < len(turns) else np.arange(len(turns))
        best = sorted(top.tolist(), key=lambda i: (-scores[i], i))
        return [(turns[i], float(scores[i])) for i in best]

    return search
