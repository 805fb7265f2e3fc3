"""The baseline: what an agent that never dreams reads when it retrieves its raw history.

That is the scope's raw transcript messages *and* its raw memory-adds (an agent that never dreams
still has the notes it wrote), each as a retrieval tool shows it, with its own date:

- a message as `[YYYY-MM-DD] Speaker: text`, the speaker being the name the content starts with
  ("Caroline: …", never doubled) or else the role (`user`, `assistant`);
- a memory-add as `[YYYY-MM-DD] text`.

Those lines are the baseline's item texts: its containment, coverage and word counts are computed
on them, as the memory side's are on the memory texts with their "(said on …)" stamps. Ranking is
on the message's own content (the add's text), as `MemoryStore.search` ranks a memory on its
statement without the stamp, by the same hybrid ranker (`HybridIndex`: dense + lexical, fused) and
the same embedder, with the memory side's two reading rules (`dreaming.store.search`): the lexical
side also reads the item's day (a question naming a day finds what was said that day), and an item
resting only on messages a better-ranked one already cites (a raw memory-add beside the message it
notes) is read `DEFER` places later (`evidence_diverse`). A message's provenance is its own id;
a memory-add's is its `source_message_ids`.

Built from the evaluation set itself (the events a run indexed), per scope, once; every text is
embedded once (the transcript index already embedded the contents: cache hits), every question once.
"""

from __future__ import annotations

from collections import defaultdict
from operator import attrgetter

import numpy as np

from dreaming.embedding.protocol import Embedder
from dreaming.store.search import DEFER, WIDEN, day_words, evidence_diverse
from dreamstream_tools.evaluation.dataset import Dataset
from dreamstream_tools.evaluation.metrics import Item
from dreamstream_tools.evaluation.ranking import HybridIndex
from language.speakers import split_speaker
from schemas import ConversationTurn, MemoryAdd, MemoryRecord


def message_line(turn: ConversationTurn) -> str:
    """`[YYYY-MM-DD] Speaker: text`: the message's date, its named speaker or else its role."""
    named = split_speaker(turn.content)
    speaker = named.name if named.name is not None else turn.role
    return f"[{turn.ts.date().isoformat()}] {speaker}: {named.body.strip()}"


def add_line(add: MemoryAdd) -> str:
    """`[YYYY-MM-DD] text`: the memory-add with the date it was written."""
    return f"[{add.ts.date().isoformat()}] {add.text.strip()}"


def message_item(turn: ConversationTurn) -> Item:
    """A raw message as the baseline reads it (dated, with its speaker)."""
    return Item(message_line(turn), (turn.message_id,), turn.scope, turn.message_id)


def dated_add_item(add: MemoryAdd) -> Item:
    """A raw memory-add as the baseline reads it (dated)."""
    return Item(add_line(add), tuple(add.source_message_ids), add.scope, add.memory_id)


def add_item(add: MemoryAdd) -> Item:
    """A memory-add still pending in the inbox, as the memory side's search returns it (its text)."""
    return Item(add.text, tuple(add.source_message_ids), add.scope, add.memory_id)


def memory_item(record: MemoryRecord) -> Item:
    return Item(record.text, tuple(record.evidence_message_ids), record.scope, record.memory_id)


class BaselineSearch:
    """A scope's raw items (messages, then memory-adds) for a query, hybrid-ranked, best first."""

    def __init__(self, dataset: Dataset, embedder: Embedder) -> None:
        self._embedder = embedder
        self.messages: dict[str, list[Item]] = defaultdict(list)
        """The scope's raw transcript messages alone (coverage's ceiling is measured over these)."""
        self.items: dict[str, list[Item]] = defaultdict(list)
        """Messages, then memory-adds: what the baseline searches and reads."""
        self._ranked_texts: dict[str, list[str]] = {}
        """What each item is ranked on: the message's content, the add's text (no date line)."""
        self._lexical_texts: dict[str, list[str]] = {}
        """What each item is matched on word by word: the ranked text and the item's day."""
        for scope in dataset.scopes:
            turns, adds = dataset.turns_of(scope), dataset.adds_of(scope)
            self.messages[scope] = [message_item(t) for t in turns]
            self.items[scope] = self.messages[scope] + [dated_add_item(a) for a in adds]
            self._ranked_texts[scope] = [t.content for t in turns] + [a.text for a in adds]
            days = [t.ts.date() for t in turns] + [a.ts.date() for a in adds]
            self._lexical_texts[scope] = [day_words(t, d) for t, d in zip(self._ranked_texts[scope], days, strict=True)]
        self._indexes: dict[str, HybridIndex] = {}

    def build(self) -> None:
        """Embed every scope's texts in one batch (the embedder batches by length and caches by text)."""
        scopes = [s for s, texts in self._ranked_texts.items() if texts]
        texts = [text for s in scopes for text in self._ranked_texts[s]]
        vectors = np.asarray(self._embedder.embed_array(texts)) if texts else np.zeros((0, 0), np.float32)
        start = 0
        for scope in scopes:
            ranked = self._ranked_texts[scope]
            self._indexes[scope] = self._index(scope, vectors[start : start + len(ranked)])
            start += len(ranked)

    def _index(self, scope: str, vectors: np.ndarray | None) -> HybridIndex:
        return HybridIndex(self._embedder, self._ranked_texts[scope], vectors, lexical=self._lexical_texts[scope])

    def search(self, scope: str, query: str, k: int, query_vector: np.ndarray | None = None) -> list[Item]:
        """The best `k` items (k >= the scope's size: all of them, ranked)."""
        if scope not in self._indexes:
            if not self._ranked_texts.get(scope):
                return []
            self._indexes[scope] = self._index(scope, None)
        items = self.items[scope]
        ranked = [items[i] for i, _ in self._indexes[scope].search(query, k * WIDEN + DEFER, query_vector=query_vector)]
        return evidence_diverse(ranked, attrgetter("provenance"), DEFER)[:k]


__all__ = [
    "BaselineSearch",
    "add_item",
    "add_line",
    "dated_add_item",
    "memory_item",
    "message_item",
    "message_line",
]
