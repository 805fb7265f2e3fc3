"""Ask every question of the curated memories and of the baseline; measure the store.

The memory side reads only what an agent would read after the passes: `MemoryStore.search` (top k)
and the active generation's records (`MemoryStore.active_records`), plus the memory-adds still
pending in the inbox (searchable before any pass). The baseline is `baseline.BaselineSearch`.
Both sides are scored by the same functions (`score`).

Speed: all question texts are embedded in one batch up front (the runtime's embedder caches by
text, so the memory search's own embedding of the question is a cache hit), the baseline's texts
in one batch, and answers are matched against pre-read texts (`matching.Haystack`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

import numpy as np

from consumers.laps import Laps
from consumers.runtime import Runtime
from consumers.store.search import embedding_text
from dreamstream_tools.evaluation.baseline import BaselineSearch, add_item, memory_item
from dreamstream_tools.evaluation.dataset import Dataset, Question
from dreamstream_tools.evaluation.matching import Haystack, words
from dreamstream_tools.evaluation.metrics import (
    Item,
    NearDuplicates,
    Retention,
    answer_containment,
    compression,
    coverage,
    date_resolved,
    evidence_recall,
    exact_day,
    is_visible,
    isolation_leaks,
    knowledge_update,
    near_duplicates,
    retention,
    undated_relative_times,
)
from dreamstream_tools.evaluation.ranking import runtime_embedder
from schemas import MemoryRecord

TOP_SHOWN = 3


@dataclass(frozen=True)
class Scores:
    evidence_recall: float | None
    answer_containment: bool
    knowledge_update: bool | None
    coverage: bool
    date_resolved: bool | None
    top_k_words: int = 0
    """Words in the top k: what a reader pays for the answer (long memories contain more by size alone)."""


@dataclass(frozen=True)
class QuestionResult:
    question: Question
    memory: Scores
    baseline: Scores
    transcript_coverage: bool
    """The answer is in some raw message of the scope: the ceiling for any retrieval over the transcript."""
    top_memories: tuple[str, ...]
    """The texts of the top memories, for reading a miss."""
    top_baseline: tuple[str, ...] = ()
    day_said: bool | None = None
    """For an exact-day answer: the day is the date an evidence message was said on (a memory
    stamped with its message's date states it); False when only resolving a relative time does."""


@dataclass(frozen=True)
class StoreFigures:
    input_messages: int
    memory_adds: int
    active_memories: int
    """Visible memories (core and archive tiers) over all scopes."""
    compression: float | None
    near_duplicates: NearDuplicates
    undated: tuple[str, ...]
    retention: Retention
    isolation_leaks: tuple[str, ...]
    baseline_isolation_leaks: tuple[str, ...]
    tiers: dict[str, int] = field(default_factory=dict)
    pending_adds: int = 0
    """Memory-adds still in the inbox after the passes (searchable, not yet consolidated)."""

    @property
    def memories_per_message(self) -> float | None:
        return self.active_memories / self.input_messages if self.input_messages else None


@dataclass(frozen=True)
class Evaluation:
    k: int
    questions: tuple[QuestionResult, ...]
    store: StoreFigures
    timings: dict[str, float] = field(default_factory=dict)


def score(question: Question, top_k: list[Item], everything: Haystack, items: list[Item]) -> Scores:
    """One question on one side: the top k it retrieved, and all of that side's items of the scope."""
    return Scores(
        evidence_recall(question.evidence_message_ids, top_k),
        answer_containment(question.answer, top_k),
        knowledge_update(question.answer, question.stale_message_ids, top_k),
        coverage(question.answer, everything),
        date_resolved(question.answer, question.evidence_message_ids, items)
        if question.category == "temporal"
        else None,
        sum(len(words(item.text)) for item in top_k),
    )


def _day_said(question: Question, said_on: dict[tuple[str, str], date]) -> bool | None:
    day = exact_day(question.answer) if question.category == "temporal" else None
    if day is None:
        return None
    wanted = date(day.year, day.month, day.day)
    return any(said_on.get((question.scope, m)) == wanted for m in question.evidence_message_ids)


def _read_memories(runtime: Runtime, dataset: Dataset):
    records: dict[str, dict[str, MemoryRecord]] = {}
    visible: dict[str, list[Item]] = {}
    pending: dict[str, set[str]] = {}
    for scope in dataset.scopes:
        generation = runtime.memories.active_records(scope, include_inactive=True)
        records[scope] = {r.memory_id: r for r in generation}
        visible[scope] = [memory_item(r) for r in generation if is_visible(r)]
        waiting = [a for a in runtime.transcripts.pending(scope) if a.memory_id not in records[scope]]
        pending[scope] = {a.memory_id for a in waiting}
        visible[scope] += [add_item(a) for a in waiting]
    return records, visible, pending


def evaluate(runtime: Runtime, dataset: Dataset, k: int, say: Callable[[str], None] = lambda _: None) -> Evaluation:
    clock = Laps()
    embedder = runtime_embedder(runtime)
    records, visible, pending = _read_memories(runtime, dataset)
    clock("read_store_s")
    say(
        f"asking {len(dataset.questions)} questions of {sum(len(v) for v in visible.values())} memories "
        f"and of the baseline…"
    )

    baseline = BaselineSearch(dataset, embedder)
    baseline.build()
    questions = list(dataset.questions)
    query_vectors = np.asarray(embedder.embed_array([q.question for q in questions])) if questions else None
    clock("embed_s")

    owners = dataset.message_scopes
    leaks: set[str] = set()
    baseline_leaks: set[str] = set()
    for scope, items in visible.items():
        leaks.update(isolation_leaks(scope, items, owners))
    top_memory: list[list[Item]] = []
    for question in questions:
        top = [memory_item(r) for r, _ in runtime.memories.search(question.scope, question.question, k)]
        leaks.update(isolation_leaks(question.scope, top, owners))
        top_memory.append(top)
    clock("memory_search_s")
    top_baseline: list[list[Item]] = []
    for number, question in enumerate(questions):
        top = baseline.search(question.scope, question.question, k, query_vectors[number])
        baseline_leaks.update(isolation_leaks(question.scope, top, owners))
        top_baseline.append(top)
    clock("baseline_search_s")

    everything = {scope: Haystack(i.text for i in items) for scope, items in visible.items()}
    raw_everything = {scope: Haystack(i.text for i in baseline.items[scope]) for scope in dataset.scopes}
    transcript = {scope: Haystack(i.text for i in baseline.messages[scope]) for scope in dataset.scopes}
    said_on = {(t.scope, t.message_id): t.ts.date() for t in dataset.turns}
    results = [
        QuestionResult(
            question,
            score(question, mine, everything[question.scope], visible[question.scope]),
            score(question, theirs, raw_everything[question.scope], baseline.items[question.scope]),
            coverage(question.answer, transcript[question.scope]),
            tuple(item.text for item in mine[:TOP_SHOWN]),
            tuple(item.text for item in theirs[:TOP_SHOWN]),
            _day_said(question, said_on),
        )
        for question, mine, theirs in zip(questions, top_memory, top_baseline)
    ]
    clock("score_s")

    store = _store_figures(dataset, records, visible, pending, leaks, baseline_leaks, embedder)
    clock("store_s")
    return Evaluation(k, tuple(results), store, clock.seconds)


def _store_figures(dataset: Dataset, records, visible, pending, leaks, baseline_leaks, embedder) -> StoreFigures:
    stale: dict[str, set[str]] = defaultdict(set)
    for question in dataset.questions:
        stale[question.scope].update(question.stale_message_ids)
    kept = retention(
        [(a.scope, a.memory_id, tuple(a.source_message_ids)) for a in dataset.adds],
        stale,
        records,
        [(q.scope, q.question, q.answer) for q in dataset.questions if q.category == "retention"],
        pending,
    )
    tiers: dict[str, int] = defaultdict(int)
    for scope_records in records.values():
        for record in scope_records.values():
            if is_visible(record):
                tiers[record.tier] += 1
    memories = {scope: [i for i in items if i.key not in pending[scope]] for scope, items in visible.items()}
    active_count = sum(len(items) for items in memories.values())
    return StoreFigures(
        input_messages=len(dataset.turns),
        memory_adds=len(dataset.adds),
        active_memories=active_count,
        compression=compression(active_count, len(dataset.turns) + len(dataset.adds)),
        near_duplicates=near_duplicates(memories, embedder.embed_array, statement=embedding_text),
        undated=tuple(undated_relative_times(item.text for items in memories.values() for item in items)),
        retention=kept,
        isolation_leaks=tuple(sorted(leaks)),
        baseline_isolation_leaks=tuple(sorted(baseline_leaks)),
        tiers=dict(tiers),
        pending_adds=sum(len(p) for p in pending.values()),
    )
