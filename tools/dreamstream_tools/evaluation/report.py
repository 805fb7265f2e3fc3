"""The evaluation as one JSON-ready dict, and the same dict as a readable table.

Per group (each category, and overall): the top-k figures of each side (`memory`, `baseline`),
the equal-budget figures (`at_budget`: both sides read best-first up to the same words, see
`budget.py`), `memory_minus_baseline` at both, coverage against the transcript's, and words per
item (median, p90) of what each side's top k returned.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from dreamstream_tools.evaluation.dataset import KNOWN_CATEGORIES
from dreamstream_tools.evaluation.evaluate import Evaluation, QuestionResult, Scores
from dreamstream_tools.evaluation.metrics import NEAR_DUPLICATE_COSINE, WordStats, mean, word_stats
from dreamstream_tools.evaluation.table import render_table

READ = ("evidence_recall", "answer_containment", "knowledge_update", "stale_leak")
"""What is judged on the items a reader got, at top k and at the budget."""
FIGURES = (*READ, "coverage", "date_resolved", "top_k_words")
MAX_LISTED = 20
EXAMPLES = 8
BUDGET_RULE = (
    "both sides read best-first up to the question's word budget; whole items while they fit, the item "
    "that crosses it cut to the words left (it keeps its provenance); words = runs of letters and digits "
    "of the scored item texts"
)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _words(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


def _value(result: QuestionResult, side: str, name: str) -> float | bool | None:
    scores: Scores = getattr(result, side)  # `memory` or `baseline`
    value: float | bool | None = (
        getattr(scores.top_k, name)
        if name in READ
        else scores.top_k.words
        if name == "top_k_words"
        else getattr(scores, name)
    )
    return value


def _figures(results: list[QuestionResult], side: str) -> dict[str, float | None]:
    return {name: _round(mean(_value(r, side, name) for r in results)) for name in FIGURES}


def _budget_figures(results: list[QuestionResult], side: str) -> dict[str, float | None]:
    readings = [getattr(r, side).at_budget for r in results]
    figures = {name: _round(mean(getattr(x, name) for x in readings)) for name in READ}
    return {
        **figures,
        "words": _round(mean(x.words for x in readings)),
        "items": _round(mean(x.items for x in readings)),
    }


def _minus(mine: dict[str, float | None], theirs: dict[str, float | None]) -> dict[str, float | None]:
    return {
        name: None if mine[name] is None or theirs[name] is None else _round(mine[name] - theirs[name])  # type: ignore[operator]
        for name in READ
    }


def _stats(stats: WordStats) -> dict[str, Any]:
    return {"items": stats.items, "median": _round(stats.median), "p90": _round(stats.p90)}


def _item_words(results: list[QuestionResult], side: str) -> dict[str, Any]:
    return _stats(word_stats([n for r in results for n in getattr(r, side).item_words]))


def _group(results: list[QuestionResult]) -> dict[str, Any]:
    memory, baseline = _figures(results, "memory"), _figures(results, "baseline")
    budget_memory, budget_baseline = _budget_figures(results, "memory"), _budget_figures(results, "baseline")
    transcript = _round(mean(r.transcript_coverage for r in results))
    return {
        "questions": len(results),
        "with_evidence": sum(1 for r in results if r.question.evidence_message_ids),
        "with_stale": sum(1 for r in results if r.question.stale_message_ids),
        "exact_dates": sum(1 for r in results if r.memory.date_resolved is not None),
        # exact-day answers split by what it takes: the evidence's own date (a "said on" stamp) or a
        # resolved relative time
        "dates_said": _date_split(results, True),
        "dates_resolved_from_relative": _date_split(results, False),
        "memory": memory,
        "baseline": baseline,
        "at_budget": {
            "budget_words": _round(mean(r.budget for r in results)),
            "memory": budget_memory,
            "baseline": budget_baseline,
        },
        "memory_minus_baseline": {
            "at_budget": _minus(budget_memory, budget_baseline),
            "top_k": _minus(memory, baseline),
        },
        "transcript_coverage": transcript,
        "coverage_minus_transcript": None
        if memory["coverage"] is None or transcript is None
        else _round(memory["coverage"] - transcript),
        "words_per_item": {"memory": _item_words(results, "memory"), "baseline": _item_words(results, "baseline")},
    }


def _date_split(results: list[QuestionResult], said: bool) -> dict[str, Any]:
    chosen = [r for r in results if r.day_said is said and r.memory.date_resolved is not None]
    return {
        "questions": len(chosen),
        "memory": _round(mean(r.memory.date_resolved for r in chosen)),
        "baseline": _round(mean(r.baseline.date_resolved for r in chosen)),
    }


def _category_order(name: str) -> tuple[int, str]:
    return (KNOWN_CATEGORIES.index(name) if name in KNOWN_CATEGORIES else len(KNOWN_CATEGORIES), name)


def _example(r: QuestionResult) -> dict[str, Any]:
    return {
        "scope": r.question.scope,
        "category": r.question.category,
        "question": r.question.question,
        "answer": r.question.answer,
        "budget_words": r.budget,
        "top_memories": list(r.top_memories),
        "top_baseline": list(r.top_baseline),
        "baseline_at_budget": list(r.budget_baseline[:MAX_LISTED]),
    }


def _failures(results: list[QuestionResult]) -> dict[str, list[dict[str, Any]]]:
    """Misses worth reading, per kind; the first of each kind in question order."""
    kinds = {
        # the baseline, reading as many words, found it and the curated memory did not
        "baseline_only_at_budget": [
            r for r in results if r.baseline.at_budget.answer_containment and not r.memory.at_budget.answer_containment
        ],
        # the same at top k (the baseline then reads fewer words)
        "baseline_only": [
            r for r in results if r.baseline.top_k.answer_containment and not r.memory.top_k.answer_containment
        ],
        # the memory holds the answer but search did not bring it up
        "not_retrieved": [r for r in results if r.memory.coverage and not r.memory.top_k.answer_containment],
        # a raw message states it, no memory does
        "not_covered": [r for r in results if r.transcript_coverage and not r.memory.coverage],
        "stale_or_missed_update": [r for r in results if r.memory.top_k.knowledge_update is False],
        # what memory's reader gets still states the old value without the new one
        "stale_leak": [r for r in results if r.memory.at_budget.stale_leak],
        "date_unresolved": [r for r in results if r.memory.date_resolved is False],
    }
    return {kind: [_example(r) for r in found[:MAX_LISTED]] for kind, found in kinds.items()}


def _cpu(timings: dict[str, float], messages: int) -> dict[str, Any]:
    cpu = timings.get("dream_cpu_s")
    return {
        "dream_cpu_s": _round(cpu),
        "messages": messages,
        "cpu_s_per_message": None if cpu is None or not messages else round(cpu / messages, 6),
    }


def build_report(
    evaluation: Evaluation,
    *,
    mode: str,
    engine: str,
    inputs: dict[str, Any],
    passes: dict[str, int],
    timings: dict[str, float],
    supersessions: dict[str, Any] | None = None,
    embedding_cache: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """`supersessions`: a sample for hand-judging (`supersessions.sample_report`); `embedding_cache`:
    the disk cache's figures when one was used (CPU per message is then mostly rule time)."""
    results = list(evaluation.questions)
    by_category: dict[str, list[QuestionResult]] = defaultdict(list)
    for result in results:
        by_category[result.question.category].append(result)
    store = evaluation.store
    kept = store.retention
    misses = [
        _example(r)
        for r in results
        if not r.memory.top_k.answer_containment or r.memory.top_k.knowledge_update is False
    ]
    return {
        "mode": mode,
        "engine": engine,
        "k": evaluation.k,
        "budget": {
            "budget_words": evaluation.budget_words,
            "default": evaluation.budget_words is None,
            "rule": BUDGET_RULE
            + (
                ""
                if evaluation.budget_words is not None
                else f"; budget = the words of the memory side's top {evaluation.k}"
            ),
        },
        "inputs": inputs,
        "passes": dict(sorted(passes.items())),
        "cpu": _cpu(timings, store.input_messages),
        "embedding_cache": embedding_cache,
        "overall": _group(results),
        "categories": {name: _group(by_category[name]) for name in sorted(by_category, key=_category_order)},
        "supersessions": supersessions if supersessions is not None else {"total": len(store.supersessions)},
        "store": {
            "active_memories": store.active_memories,
            "tiers": dict(sorted(store.tiers.items())),
            "pending_memory_adds": store.pending_adds,
            "input_messages": store.input_messages,
            "memory_adds": store.memory_adds,
            "memories_per_message": _round(store.memories_per_message),
            "compression": _round(store.compression),
            "near_duplicate_rate": _round(store.near_duplicates.rate),
            "near_duplicate_memories": store.near_duplicates.memories,
            "near_duplicate_cosine": NEAR_DUPLICATE_COSINE,
            "undated_relative_times": len(store.undated),
            "words_per_memory": _stats(store.memory_words),
            "supersessions": len(store.supersessions),
            "retention": {
                "share": _round(kept.share),
                "memory_adds_share": _round(kept.adds_share),
                "memory_adds_retained": kept.adds_retained,
                "memory_adds_total": kept.adds_total,
                "facts_retained": kept.facts_retained,
                "facts_total": kept.facts_total,
            },
            "isolation_leaks": len(store.isolation_leaks),
            "baseline_isolation_leaks": len(store.baseline_isolation_leaks),
        },
        "details": {
            "misses": misses,
            "failures": _failures(results),
            "lost": list(kept.lost_adds + kept.lost_facts),
            "near_duplicate_pairs": [list(p) for p in store.near_duplicates.pairs[:MAX_LISTED]],
            "undated": list(store.undated[:MAX_LISTED]),
            "isolation_leaks": list(store.isolation_leaks[:MAX_LISTED]),
        },
        "timings_s": {name: round(value, 2) for name, value in timings.items()},
    }


__all__ = ["BUDGET_RULE", "FIGURES", "READ", "build_report", "render_table"]
