"""The baseline: the same questions asked of the raw transcript messages, with no dreaming.

It searches the scope's indexed transcript with the same embedder and the same k as the memory
search, so each memory figure can be read against what plain retrieval over the conversation
already gives. A message's provenance is its own id. Memory-adds are not searched: the baseline is
"no curated memory at all".

The ranking is exact cosine top-k — what `TranscriptStore.search` asks Qdrant for — computed here
over the transcript read once per scope from the store (`TranscriptStore.window`): embedded Qdrant
checks payload filters in Python, point by point, which costs about 0.2 s per query over 6,000
messages. Ties keep transcript order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from consumers.embedding import LocalEmbedder
from consumers.store import TranscriptStore
from dreamstream.evaluation.dataset import Question
from dreamstream.evaluation.metrics import (
    Item,
    answer_containment,
    baseline_knowledge_update,
    evidence_recall,
    knowledge_update,
)
from schemas import ConversationTurn, MemoryRecord


@dataclass(frozen=True)
class Scores:
    evidence_recall: float | None
    answer_containment: bool
    knowledge_update: bool | None


def message_item(turn: ConversationTurn) -> Item:
    return Item(turn.content, (turn.message_id,), turn.scope, turn.message_id)


def memory_item(record: MemoryRecord) -> Item:
    return Item(record.text, tuple(record.evidence_message_ids), record.scope, record.memory_id)


class TranscriptSearch:
    """Top-k raw messages of a scope for a query, ranked as the transcript index ranks them."""

    def __init__(self, transcripts: TranscriptStore, embedder: LocalEmbedder) -> None:
        self._transcripts = transcripts
        self._embedder = embedder
        self._scopes: dict[str, tuple[list[ConversationTurn], np.ndarray]] = {}

    def _index(self, scope: str) -> tuple[list[ConversationTurn], np.ndarray]:
        if scope not in self._scopes:
            turns = [turn for turn, _ in self._transcripts.window(scope, 1 << 62)]
            self._scopes[scope] = (turns, self._embedder.embed_array([t.content for t in turns]))
        return self._scopes[scope]

    def search(self, scope: str, query: str, k: int) -> list[Item]:
        turns, vectors = self._index(scope)
        if not turns:
            return []
        scores = vectors @ self._embedder.embed_array([query])[0]
        order = np.argsort(-scores, kind="stable")[:k]
        return [message_item(turns[i]) for i in order]


def baseline_scores(question: Question, top_k: list[Item]) -> Scores:
    return Scores(
        evidence_recall(question.evidence_message_ids, top_k),
        answer_containment(question.answer, top_k),
        baseline_knowledge_update(question.answer, question.stale_message_ids, top_k),
    )


def memory_scores(question: Question, top_k: list[Item], active: list[Item]) -> Scores:
    return Scores(
        evidence_recall(question.evidence_message_ids, top_k),
        answer_containment(question.answer, top_k),
        knowledge_update(question.answer, question.stale_message_ids, top_k, active),
    )
