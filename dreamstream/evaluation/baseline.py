"""The baseline: the same questions asked of the raw transcript messages, with no dreaming.

It searches the scope's indexed transcript (the same embedder and the same k as the memory
search), so each memory figure can be read against what plain retrieval over the conversation
already gives. A message's provenance is its own id. Memory-adds are not searched: the baseline is
"no curated memory at all".
"""

from __future__ import annotations

from dataclasses import dataclass

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


def search_transcripts(transcripts: TranscriptStore, question: Question, k: int) -> list[Item]:
    return [message_item(turn) for turn, _ in transcripts.search(question.scope, question.question, k)]


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
