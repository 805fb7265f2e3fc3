"""The evaluation as one JSON-ready dict, and the same dict as a readable table."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from dreamstream.evaluation.dataset import KNOWN_CATEGORIES
from dreamstream.evaluation.evaluate import Evaluation, QuestionResult
from dreamstream.evaluation.metrics import mean

FIGURES = ("evidence_recall", "answer_containment", "knowledge_update")
MAX_LISTED = 20


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _figures(results: list[QuestionResult], side: str) -> dict[str, float | None]:
    return {name: _round(mean(getattr(getattr(r, side), name) for r in results)) for name in FIGURES}


def _group(results: list[QuestionResult]) -> dict[str, Any]:
    return {
        "questions": len(results),
        "with_evidence": sum(1 for r in results if r.question.evidence_message_ids),
        "with_stale": sum(1 for r in results if r.question.stale_message_ids),
        "memory": _figures(results, "memory"),
        "baseline": _figures(results, "baseline"),
    }


def _category_order(name: str) -> tuple[int, str]:
    return (KNOWN_CATEGORIES.index(name) if name in KNOWN_CATEGORIES else len(KNOWN_CATEGORIES), name)


def build_report(evaluation: Evaluation, *, mode: str, engine: str, inputs: dict[str, Any],
                 passes: dict[str, int], timings: dict[str, float]) -> dict[str, Any]:
    results = list(evaluation.questions)
    by_category: dict[str, list[QuestionResult]] = defaultdict(list)
    for result in results:
        by_category[result.question.category].append(result)
    store = evaluation.store
    kept = store.retention
    misses = [
        {"scope": r.question.scope, "category": r.question.category, "question": r.question.question,
         "answer": r.question.answer, "top_memories": list(r.top_memories)}
        for r in results if not r.memory.answer_containment or r.memory.knowledge_update is False
    ]
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
            "input_messages": store.input_messages,
            "memory_adds": store.memory_adds,
            "compression": _round(store.compression),
            "near_duplicate_rate": _round(store.near_duplicates.rate),
            "near_duplicate_memories": store.near_duplicates.memories,
            "undated_relative_times": len(store.undated),
            "retention": {
                "share": _round(kept.share),
                "memory_adds_retained": kept.adds_retained, "memory_adds_total": kept.adds_total,
                "facts_retained": kept.facts_retained, "facts_total": kept.facts_total,
            },
            "isolation_leaks": len(store.isolation_leaks),
            "baseline_isolation_leaks": len(store.baseline_isolation_leaks),
        },
        "details": {
            "misses": misses,
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


def render_table(report: dict[str, Any]) -> str:
    k = report["k"]
    inputs = report["inputs"]
    lines = [
        f"dreamstream eval: {report['mode']} run, {report['engine']} engine, k={k}; "
        f"{inputs['questions']} questions over {inputs['scopes']} scopes "
        f"({inputs['turns']} messages, {inputs['memory_adds']} memory-adds)",
        "",
        f"{'':22}{'evidence recall@' + str(k):>22}{'answer containment@' + str(k):>26}{'knowledge update':>22}",
        f"{'category':<18}{'n':>4}" + f"{'memory':>12}{'baseline':>10}" + f"{'memory':>16}{'baseline':>10}"
        + f"{'memory':>12}{'baseline':>10}",
    ]
    rows = list(report["categories"].items()) + [("overall", report["overall"])]
    for name, group in rows:
        if name == "overall":
            lines.append("-" * 92)
        memory, baseline = group["memory"], group["baseline"]
        lines.append(
            f"{name:<18}{group['questions']:>4}"
            f"{_num(memory['evidence_recall']):>12}{_num(baseline['evidence_recall']):>10}"
            f"{_num(memory['answer_containment']):>16}{_num(baseline['answer_containment']):>10}"
            f"{_num(memory['knowledge_update']):>12}{_num(baseline['knowledge_update']):>10}"
        )
    store = report["store"]
    kept = store["retention"]
    lines += [
        "",
        "store after the passes",
        f"  active memories         {store['active_memories']}  (compression {_num(store['compression'])} per input "
        f"message: {store['input_messages']} turns + {store['memory_adds']} memory-adds)",
        f"  retention               {_pct(kept['share'])}  (memory-adds {kept['memory_adds_retained']}/"
        f"{kept['memory_adds_total']}, retention facts {kept['facts_retained']}/{kept['facts_total']})",
        f"  near-duplicate rate     {_pct(store['near_duplicate_rate'])}  ({store['near_duplicate_memories']} of "
        f"{store['active_memories']} active memories)",
        f"  undated relative times  {store['undated_relative_times']}",
        f"  isolation leaks         {store['isolation_leaks']}  (baseline {store['baseline_isolation_leaks']})",
        "",
        "passes: " + (", ".join(f"{n} {status}" for status, n in report["passes"].items()) or "none")
        + "    time: " + ", ".join(f"{name.removesuffix('_s')} {value:.1f} s"
                               for name, value in report["timings_s"].items()),
    ]
    unfinished = {s: n for s, n in report["passes"].items() if s in ("failed", "quarantined")}
    if unfinished:
        lines.append("warning: " + ", ".join(f"{n} {s}" for s, n in unfinished.items())
                     + " pass(es) left memory as it was: the figures measure the store without them")
    details = report["details"]
    if details["misses"]:
        lines += ["", f"memory misses ({len(details['misses'])}; first {min(len(details['misses']), 10)}):"]
        for miss in details["misses"][:10]:
            top = miss["top_memories"][0] if miss["top_memories"] else "(no memory)"
            lines.append(f"  [{miss['category']}] {miss['scope']}: {miss['question']} → {miss['answer']!r}; "
                         f"top: {top!r}")
    for title, key in (("lost (retention)", "lost"), ("undated relative times", "undated"),
                       ("isolation leaks", "isolation_leaks")):
        if details[key]:
            lines += ["", f"{title}:"] + [f"  {entry}" for entry in details[key][:10]]
    if details["near_duplicate_pairs"]:
        lines += ["", "near-duplicate pairs:"] + [f"  {a!r} ≈ {b!r}" for a, b in details["near_duplicate_pairs"][:10]]
    return "\n".join(lines)
