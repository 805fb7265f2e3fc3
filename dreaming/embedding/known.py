"""Vectors already at hand before the model: a pass reads its scope's stored memory vectors, and
the engine asks for the same texts again (the paraphrase index embeds every live memory's
statement). The process-wide LRU holds them only while the fleet is small; at 2,000 scopes a
later pass found its scope's texts evicted and embedded them all once more."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from dreaming.embedding.protocol import EmbedArray


def known_first(known: Mapping[str, np.ndarray], embed: EmbedArray) -> EmbedArray:
    """`embed` that answers the texts of `known` from it and sends only the others to the model,
    in one call, each once."""
    if not known:
        return embed

    def embed_array(texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if len(missing) == len(texts):
            return np.asarray(embed(texts), dtype=np.float32)
        fresh = dict(zip(missing, np.asarray(embed(missing), dtype=np.float32))) if missing else {}
        return np.stack([known[t] if t in known else fresh[t] for t in texts]).astype(np.float32, copy=False)

    return embed_array
