"""Ask every question of the curated memories and of the baseline; measure the store.

The memory side reads only what an agent would read after the passes: `MemoryStore.search` and
the active generation's records (`MemoryStore.active_records`), plus the memory-adds still
pending in the inbox (searchable before any pass). The baseline is `baseline.BaselineSearch`.
Each side's whole scope is ranked once per question; it is read twice: its top k, and best-first
up to the question's word budget (`budget.read_to_budget`; by default the words of the memory
side's top k). Both sides are scored by the same functions (`score`).

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

from consumers.runtime import Runtime
from dreaming.embedding.protocol import Embedder
from dreaming.laps import Laps
from dreaming.store.search import embedding_text
from dreamstream_tools.evaluation.baseline import BaselineSearch, add_item, memory_item, message_line
from dreamstream_tools.evaluation.budget import read_to_budget, word_count, words_read
from dreamstream_tools.evaluation.dataset import Dataset, Question
from dreamstream_tools.evaluation.matching import Haystack
from dreamstream_tools.evaluation.metrics import (
    Item,
    NearDuplicates,
    Retention,
    WordStats,
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
    stale_leak,
    undated_relative_times,
    word_stats,
)
from dreamstream_tools.evaluation.old_values import Value, old_values
from dreamstream_tools.evaluation.ranking import runtime_embedder
from dreamstream_tools.evaluation.supersessions import Supersession, supersessions
from schemas import MemoryRecord

TOP_SHOWN = 3


@dataclass(frozen=True)
class Reading:
    """What one side's reader got for one question (its top k, or its budget), and how it scores."""

    evidence_recall: float | None
    answer_containment: bool
    knowledge_update: bool | None
    stale_leak: bool | None
    words: int
    """Words read: what a reader pays for the answer (long memories contain more by size alone)."""
    items: int


@dataclass(frozen=True)
class Scores:
    top_k: Reading
    at_budget: Reading
    coverage: bool
    date_resolved: bool | None
    item_words: tuple[int, ...] = ()
    """The words of each top-k item (words per memory / per raw item, as read)."""


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
    budget: int = 0
    """The question's word budget (both sides read up to it)."""
    budget_baseline: tuple[str, ...] = ()
    """The texts the baseline read within the budget (the last one maybe cut), for reading a miss."""


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
    memory_words: WordStats = WordStats(0, None, None)
    """Words per visible memory (pending memory-adds left out)."""
    supersessions: tuple[Supersession, ...] = ()
    """Every superseded memory of the active generations, with what replaced it."""

    @property
    def memories_per_message(self) -> float | None:
        return self.active_memories / self.input_messages if self.input_messages else None


@dataclass(frozen=True)
class Evaluation:
    k: int
    questions: tuple[QuestionResult, ...]
    store: StoreFigures
    timings: dict[str, float] = field(default_factory=dict)
    budget_words: int | None = None
    """The fixed word budget given (`--budget-words`), or None: each question's memory top-k words."""


def reading(question: Question, read: list[Item], old: frozenset[Value] = frozenset()) -> Reading:
    """How one side does on one question with the items its reader got (`old`: the old values of
    a knowledge update, `old_values.py`)."""
    return Reading(
        evidence_recall(question.evidence_message_ids, read),
        answer_containment(question.answer, read),
        knowledge_update(question.answer, question.stale_message_ids, read, old),
        stale_leak(question.answer, question.stale_message_ids, read, old),
        words_read(read),
        len(read),
    )


def score(
    question: Question,
    ranked: list[Item],
    k: int,
    budget: int,
    everything: Haystack,
    items: list[Item],
    old: frozenset[Value] = frozenset(),
) -> Scores:
    """One question on one side: its items ranked best first (the whole scope, or at least enough to
    fill the budget), read as the top k and up to `budget` words; and all of the side's items."""
    top_k = ranked[:k]
    return Scores(
        reading(question, top_k, old),
        reading(question, read_to_budget(ranked, budget), old),
        coverage(question.answer, everything),
        date_resolved(question.answer, question.evidence_message_ids, items)
        if question.category == "temporal"
        else None,
        tuple(word_count(item.text) for item in top_k),
    )


def _day_said(question: Question, said_on: dict[tuple[str, str], date]) -> bool | None:
    day = exact_day(question.answer) if question.category == "temporal" else None
    if day is None or day.day is None:
        return None
    wanted = date(day.year, day.month, day.day)
    return any(said_on.get((question.scope, m)) == wanted for m in question.evidence_message_ids)


def _read_memories(
    runtime: Runtime, dataset: Dataset
) -> tuple[dict[str, dict[str, MemoryRecord]], dict[str, list[Item]], dict[str, set[str]]]:
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


def evaluate(
    runtime: Runtime,
    dataset: Dataset,
    k: int,
    say: Callable[[str], None] = lambda _: None,
    budget_words: int | None = None,
) -> Evaluation:
    """`budget_words`: the word budget of every question, or None for each question's memory top-k words."""
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
    texts = [q.question for q in questions]
    query_vectors = np.asarray(embedder.embed_array(texts)) if texts else np.zeros((0, 0), np.float32)
    clock("embed_s")

    owners = dataset.message_scopes
    leaks: set[str] = set()
    baseline_leaks: set[str] = set()
    for scope, items in visible.items():
        leaks.update(isolation_leaks(scope, items, owners))
    # Each side's whole scope, ranked: the budget may read past the top k.
    ranked_memory: list[list[Item]] = []
    for question in questions:
        depth = max(k, len(visible[question.scope]))
        ranked = [memory_item(r) for r, _ in runtime.memories.search(question.scope, question.question, depth)]
        leaks.update(isolation_leaks(question.scope, ranked[:k], owners))
        ranked_memory.append(ranked)
    clock("memory_search_s")
    ranked_baseline: list[list[Item]] = []
    for number, question in enumerate(questions):
        depth = max(k, len(baseline.items[question.scope]))
        ranked = baseline.search(question.scope, question.question, depth, query_vectors[number])
        baseline_leaks.update(isolation_leaks(question.scope, ranked[:k], owners))
        ranked_baseline.append(ranked)
    clock("baseline_search_s")

    everything = {scope: Haystack(i.text for i in items) for scope, items in visible.items()}
    raw_everything = {scope: Haystack(i.text for i in baseline.items[scope]) for scope in dataset.scopes}
    transcript = {scope: Haystack(i.text for i in baseline.messages[scope]) for scope in dataset.scopes}
    said_on = {(t.scope, t.message_id): t.ts.date() for t in dataset.turns}
    said = {(t.scope, t.message_id): t.content for t in dataset.turns}
    results = []
    for question, mine, theirs in zip(questions, ranked_memory, ranked_baseline):
        budget = budget_words if budget_words is not None else words_read(mine[:k])
        scope = question.scope
        old = old_values(question.answer, (said.get((scope, m), "") for m in question.stale_message_ids))
        results.append(
            QuestionResult(
                question,
                score(question, mine, k, budget, everything[scope], visible[scope], old),
                score(question, theirs, k, budget, raw_everything[scope], baseline.items[scope], old),
                coverage(question.answer, transcript[scope]),
                tuple(item.text for item in mine[:TOP_SHOWN]),
                tuple(item.text for item in theirs[:TOP_SHOWN]),
                _day_said(question, said_on),
                budget,
                tuple(item.text for item in read_to_budget(theirs, budget)),
            )
        )
    clock("score_s")

    store = _store_figures(dataset, records, visible, pending, leaks, baseline_leaks, embedder)
    clock("store_s")
    return Evaluation(k, tuple(results), store, clock.seconds, budget_words)


def _store_figures(
    dataset: Dataset,
    records: dict[str, dict[str, MemoryRecord]],
    visible: dict[str, list[Item]],
    pending: dict[str, set[str]],
    leaks: set[str],
    baseline_leaks: set[str],
    embedder: Embedder,
) -> StoreFigures:
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
    lines = {(t.scope, t.message_id): message_line(t) for t in dataset.turns}
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
        memory_words=word_stats([word_count(item.text) for items in memories.values() for item in items]),
        supersessions=tuple(supersessions(records, lines)),
    )
