"""The baseline: everything an agent that never dreams has, searched as the memory side is searched.

That is the scope's raw transcript messages *and* its raw memory-adds (an agent that never dreams
still has the notes it wrote). A message's provenance is its own id; a memory-add's is its
`source_message_ids`. Both are ranked by the same hybrid ranker (`HybridIndex`: dense + lexical,
fused) with the same embedder and the same k as `MemoryStore.search` ranks the curated memories,
so every memory figure reads against what plain retrieval over the raw material already gives.

Built from the evaluation set itself (the events a run indexed), per scope, once; every text is
embedded once, every question once.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from dreamstream_tools.evaluation.dataset import Dataset
from dreamstream_tools.evaluation.metrics import Item
from dreamstream_tools.evaluation.ranking import HybridIndex
from schemas import ConversationTurn, MemoryAdd, MemoryRecord


def message_item(turn: ConversationTurn) -> Item:
    return Item(turn.content, (turn.message_id,), turn.scope, turn.message_id)


def add_item(add: MemoryAdd) -> Item:
    return Item(add.text, tuple(add.source_message_ids), add.scope, add.memory_id)


def memory_item(record: MemoryRecord) -> Item:
    return Item(record.text, tuple(record.evidence_message_ids), record.scope, record.memory_id)


class BaselineSearch:
    """Top-k raw items (messages, then memory-adds) of a scope for a query, hybrid-ranked."""

    def __init__(self, dataset: Dataset, embedder) -> None:
        self._embedder = embedder
        self.messages: dict[str, list[Item]] = defaultdict(list)
        """The scope's raw transcript messages alone (coverage's ceiling is measured over these)."""
        self.items: dict[str, list[Item]] = defaultdict(list)
        """Messages, then memory-adds: what the baseline searches."""
        for scope in dataset.scopes:
            self.messages[scope] = [message_item(t) for t in dataset.turns_of(scope)]
            self.items[scope] = self.messages[scope] + [add_item(a) for a in dataset.adds_of(scope)]
        self._indexes: dict[str, HybridIndex] = {}

    def build(self) -> None:
        """Embed every scope's texts in one batch (the embedder batches by length and caches by text)."""
        scopes = [s for s, items in self.items.items() if items]
        texts = [item.text for s in scopes for item in self.items[s]]
        vectors = np.asarray(self._embedder.embed_array(texts)) if texts else np.zeros((0, 0), np.float32)
        start = 0
        for scope in scopes:
            items = self.items[scope]
            self._indexes[scope] = HybridIndex(
                self._embedder, [i.text for i in items], vectors=vectors[start : start + len(items)]
            )
            start += len(items)

    def search(self, scope: str, query: str, k: int, query_vector: np.ndarray | None = None) -> list[Item]:
        if scope not in self._indexes:
            if not self.items.get(scope):
                return []
            self._indexes[scope] = HybridIndex(self._embedder, [i.text for i in self.items[scope]])
        items = self.items[scope]
        return [items[i] for i, _ in self._indexes[scope].search(query, k, query_vector=query_vector)]


__all__ = ["BaselineSearch", "add_item", "memory_item", "message_item"]
