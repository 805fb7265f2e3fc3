"""Ask every question of the curated memories and of the raw transcripts; measure the store.

Reads only through the stores' public reads (`MemoryStore.search` / `active_records`,
`TranscriptStore.search`), i.e. what an agent would see after the passes.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from consumers.embedding import LocalEmbedder
from consumers.runtime import Runtime
from dreamstream.evaluation.baseline import Scores, TranscriptSearch, baseline_scores, memory_item, memory_scores
from dreamstream.evaluation.dataset import Dataset, Question
from dreamstream.evaluation.metrics import (
    Item,
    NearDuplicates,
    Retention,
    compression,
    isolation_leaks,
    near_duplicates,
    retention,
    undated_relative_times,
)
from schemas import MemoryRecord


@dataclass(frozen=True)
class QuestionResult:
    question: Question
    memory: Scores
    baseline: Scores
    top_memories: tuple[str, ...]
    """The texts of the top 3 memories, for reading a miss."""


@dataclass(frozen=True)
class StoreFigures:
    input_messages: int
    memory_adds: int
    active_memories: int
    compression: float | None
    near_duplicates: NearDuplicates
    undated: tuple[str, ...]
    retention: Retention
    isolation_leaks: tuple[str, ...]
    baseline_isolation_leaks: tuple[str, ...]


@dataclass(frozen=True)
class Evaluation:
    k: int
    questions: tuple[QuestionResult, ...]
    store: StoreFigures


def evaluate(runtime: Runtime, dataset: Dataset, k: int) -> Evaluation:
    records: dict[str, dict[str, MemoryRecord]] = {}
    active: dict[str, list[Item]] = {}
    for scope in dataset.scopes:
        generation = runtime.memories.active_records(scope, include_inactive=True)
        records[scope] = {r.memory_id: r for r in generation}
        active[scope] = [memory_item(r) for r in generation if r.is_active]

    owners = dataset.message_scopes
    leaks: set[str] = set()
    for scope, items in active.items():
        leaks.update(isolation_leaks(scope, items, owners))
    baseline_leaks: set[str] = set()
    transcripts = TranscriptSearch(runtime.transcripts, LocalEmbedder(runtime.settings.embedding_dims))
    results: list[QuestionResult] = []
    for question in dataset.questions:
        top_memories = [memory_item(r) for r, _ in runtime.memories.search(question.scope, question.question, k)]
        top_messages = transcripts.search(question.scope, question.question, k)
        leaks.update(isolation_leaks(question.scope, top_memories, owners))
        baseline_leaks.update(isolation_leaks(question.scope, top_messages, owners))
        results.append(QuestionResult(
            question,
            memory_scores(question, top_memories, active[question.scope]),
            baseline_scores(question, top_messages),
            tuple(item.text for item in top_memories[:3]),
        ))

    stale: dict[str, set[str]] = defaultdict(set)
    for question in dataset.questions:
        stale[question.scope].update(question.stale_message_ids)
    kept = retention(
        [(a.scope, a.memory_id, tuple(a.source_message_ids)) for a in dataset.adds], stale, records,
        [(q.scope, q.question, q.answer) for q in dataset.questions if q.category == "retention"],
    )
    active_count = sum(len(items) for items in active.values())
    inputs = len(dataset.turns) + len(dataset.adds)
    store = StoreFigures(
        input_messages=len(dataset.turns), memory_adds=len(dataset.adds), active_memories=active_count,
        compression=compression(active_count, inputs), near_duplicates=near_duplicates(active),
        undated=tuple(undated_relative_times(item.text for items in active.values() for item in items)),
        retention=kept, isolation_leaks=tuple(sorted(leaks)), baseline_isolation_leaks=tuple(sorted(baseline_leaks)),
    )
    return Evaluation(k, tuple(results), store)
