"""The evaluation as one JSON-ready dict, and the same dict as a readable table."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from dreamstream_tools.evaluation.dataset import KNOWN_CATEGORIES
from dreamstream_tools.evaluation.evaluate import Evaluation, QuestionResult
from dreamstream_tools.evaluation.metrics import NEAR_DUPLICATE_COSINE, mean

FIGURES = ("evidence_recall", "answer_containment", "knowledge_update", "coverage", "date_resolved", "top_k_words")
MAX_LISTED = 20
EXAMPLES = 8


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _words(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


def _figures(results: list[QuestionResult], side: str) -> dict[str, float | None]:
    return {name: _round(mean(getattr(getattr(r, side), name) for r in results)) for name in FIGURES}


def _group(results: list[QuestionResult]) -> dict[str, Any]:
    return {
        "questions": len(results),
        "with_evidence": sum(1 for r in results if r.question.evidence_message_ids),
        "with_stale": sum(1 for r in results if r.question.stale_message_ids),
        "exact_dates": sum(1 for r in results if r.memory.date_resolved is not None),
        # exact-day answers split by what it takes: the evidence's own date (a "said on" stamp) or a
        # resolved relative time
        "dates_said": _date_split(results, True),
        "dates_resolved_from_relative": _date_split(results, False),
        "memory": _figures(results, "memory"),
        "baseline": _figures(results, "baseline"),
        "transcript_coverage": _round(mean(r.transcript_coverage for r in results)),
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
        "top_memories": list(r.top_memories),
        "top_baseline": list(r.top_baseline),
    }


def _failures(results: list[QuestionResult]) -> dict[str, list[dict[str, Any]]]:
    """Misses worth reading, per kind; the first of each kind in question order."""
    kinds = {
        # the baseline found it and the curated memory did not: what dreaming lost or buried
        "baseline_only": [r for r in results if r.baseline.answer_containment and not r.memory.answer_containment],
        # the memory holds the answer but search did not bring it up
        "not_retrieved": [r for r in results if r.memory.coverage and not r.memory.answer_containment],
        # a raw message states it, no memory does
        "not_covered": [r for r in results if r.transcript_coverage and not r.memory.coverage],
        "stale_or_missed_update": [r for r in results if r.memory.knowledge_update is False],
        "date_unresolved": [r for r in results if r.memory.date_resolved is False],
    }
    return {kind: [_example(r) for r in found[:MAX_LISTED]] for kind, found in kinds.items()}


def build_report(
    evaluation: Evaluation,
    *,
    mode: str,
    engine: str,
    inputs: dict[str, Any],
    passes: dict[str, int],
    timings: dict[str, float],
) -> dict[str, Any]:
    results = list(evaluation.questions)
    by_category: dict[str, list[QuestionResult]] = defaultdict(list)
    for result in results:
        by_category[result.question.category].append(result)
    store = evaluation.store
    kept = store.retention
    misses = [_example(r) for r in results if not r.memory.answer_containment or r.memory.knowledge_update is False]
    return {
        "mode": mode,
        "engine": engine,
        "k": evaluation.k,
        "inputs": inputs,
        "passes": dict(sorted(passes.items())),
        "overall": _group(results),
        "categories": {name: _group(by_category[name]) for name in sorted(by_category, key=_category_order)},
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


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _clip(text: str, width: int = 110) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _pair(group: dict[str, Any], name: str) -> str:
    return f"{_num(group['memory'][name]):>8}{_num(group['baseline'][name]):>9}"


def _timings(timings: dict[str, float]) -> str:
    """ "dream 17.6 s, evaluate 40.2 s (memory search 20.1, baseline search 0.4, …), total 60.0 s"."""
    steps = {name: value for name, value in timings.items() if "." not in name}
    parts = []
    for name, value in steps.items():
        step = name.removesuffix("_s")
        inner = [
            f"{sub.split('.', 1)[1].removesuffix('_s').replace('_', ' ')} {v:.1f}"
            for sub, v in timings.items()
            if sub.startswith(step + ".")
        ]
        parts.append(f"{step} {value:.1f} s" + (f" ({', '.join(inner)})" if inner else ""))
    return ", ".join(parts)


def render_table(report: dict[str, Any]) -> str:
    k = report["k"]
    inputs = report["inputs"]
    heads = (
        f"evidence recall@{k}",
        f"containment@{k}",
        "knowledge update",
        "coverage",
        "date resolved",
        f"words in top {k}",
    )
    lines = [
        f"dreamstream eval: {report['mode']} run, {report['engine']} engine, k={k}; "
        f"{inputs['questions']} questions over {inputs['scopes']} scopes "
        f"({inputs['turns']} messages, {inputs['memory_adds']} memory-adds)",
        "baseline = the raw transcript messages and memory-adds, ranked as the memories are;",
        "transcript = coverage over the raw messages alone (the ceiling); words in top k = what a reader pays",
        "",
        f"{'':22}" + "".join(f"{h:>17}" for h in heads) + f"{'':>11}",
        f"{'category':<18}{'n':>4}" + f"{'memory':>8}{'baseline':>9}" * len(heads) + f"{'transcript':>11}",
    ]
    rows = list(report["categories"].items()) + [("overall", report["overall"])]
    for name, group in rows:
        if name == "overall":
            lines.append("-" * (22 + 17 * len(heads) + 11))
        lines.append(
            f"{name:<18}{group['questions']:>4}"
            + "".join(
                _pair(group, f)
                for f in ("evidence_recall", "answer_containment", "knowledge_update", "coverage", "date_resolved")
            )
            + f"{_words(group['memory']['top_k_words']):>8}{_words(group['baseline']['top_k_words']):>9}"
            + f"{_num(group['transcript_coverage']):>11}"
        )
    store = report["store"]
    kept = store["retention"]
    tiers = ", ".join(f"{name} {n}" for name, n in store["tiers"].items())
    said, rel = report["overall"]["dates_said"], report["overall"]["dates_resolved_from_relative"]
    lines += [
        "",
        f"exact-date answers: {report['overall']['exact_dates']} (date resolved: an item citing the evidence "
        "states that day as an absolute date)",
        f"  the day a message was said on     {said['questions']:>4}  resolved {_num(said['memory'])} "
        f"(baseline {_num(said['baseline'])})",
        f"  a relative time resolved from it  {rel['questions']:>4}  resolved {_num(rel['memory'])} "
        f"(baseline {_num(rel['baseline'])})",
        "",
        "store after the passes",
        f"  active memories         {store['active_memories']}"
        + (f" ({tiers})" if tiers else "")
        + f"; {_num(store['memories_per_message'])} per message ({store['input_messages']} messages); "
        f"compression {_num(store['compression'])} per input (+ {store['memory_adds']} memory-adds)"
        + (f"; {store['pending_memory_adds']} memory-adds still pending" if store["pending_memory_adds"] else ""),
        f"  retention               {_pct(kept['share'])}  (memory-adds {kept['memory_adds_retained']}/"
        f"{kept['memory_adds_total']}, retention facts {kept['facts_retained']}/{kept['facts_total']})",
        f"  near-duplicate rate     {_pct(store['near_duplicate_rate'])}  ({store['near_duplicate_memories']} of "
        f"{store['active_memories']} memories; cosine >= {store['near_duplicate_cosine']}, same numbers and dates)",
        f"  undated relative times  {store['undated_relative_times']}",
        f"  isolation leaks         {store['isolation_leaks']}  (baseline {store['baseline_isolation_leaks']})",
        "",
        "passes: " + (", ".join(f"{n} {status}" for status, n in report["passes"].items()) or "none"),
        "time: " + _timings(report["timings_s"]),
    ]
    unfinished = {s: n for s, n in report["passes"].items() if s in ("failed", "quarantined")}
    if unfinished:
        lines.append(
            "warning: "
            + ", ".join(f"{n} {s}" for s, n in unfinished.items())
            + " pass(es) left memory as it was: the figures measure the store without them"
        )
    details = report["details"]
    titles = {
        "baseline_only": "the baseline answers, the memory does not",
        "not_retrieved": "a memory holds the answer, search does not return it",
        "not_covered": "a raw message holds the answer, no memory does",
        "stale_or_missed_update": "knowledge update missed",
        "date_unresolved": "exact date not resolved in a memory citing the evidence",
    }
    for kind, examples in details["failures"].items():
        if not examples:
            continue
        lines += ["", f"{titles[kind]} (first {min(len(examples), EXAMPLES)}):"]
        for ex in examples[:EXAMPLES]:
            lines.append(f"  [{ex['category']}] {ex['scope']}: {_clip(ex['question'], 90)} → {ex['answer']!r}")
            for text in ex["top_memories"][:2] or ["(no memory)"]:
                lines.append(f"      memory:   {_clip(text)!r}")
            if ex["top_baseline"]:
                lines.append(f"      baseline: {_clip(ex['top_baseline'][0])!r}")
    for title, key in (
        ("lost (retention)", "lost"),
        ("undated relative times", "undated"),
        ("isolation leaks", "isolation_leaks"),
    ):
        if details[key]:
            lines += ["", f"{title}:"] + [f"  {entry}" for entry in details[key][:10]]
    if details["near_duplicate_pairs"]:
        lines += ["", "near-duplicate pairs:"] + [
            f"  {_clip(a, 60)!r} ≈ {_clip(b, 60)!r}" for a, b in details["near_duplicate_pairs"][:10]
        ]
    return "\n".join(line.rstrip() for line in lines)
