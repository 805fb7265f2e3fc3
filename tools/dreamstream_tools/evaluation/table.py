"""The report (`report.build_report`) as a readable table: the equal-budget view first (the
headline), then the plain top k, then coverage and words per item, the store, and examples."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dreamstream_tools.evaluation.supersessions import render as render_supersessions

EXAMPLES = 8
WIDTH = 7
Cell = Callable[[dict[str, Any]], str]
Block = tuple[str, list[tuple[str, Cell]]]
"""A group of columns under one heading: (heading, [(column heading, cell of a group)])."""


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _signed(value: float | None) -> str:
    return "–" if value is None else f"{value:+.2f}"


def _words(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _clip(text: str, width: int = 110) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _compared(title: str, at: Callable[[dict[str, Any]], dict[str, Any]], diff: str, name: str) -> Block:
    """memory, baseline and memory − baseline of one figure."""
    return (
        title,
        [
            ("memory", lambda g: _num(at(g)["memory"][name])),
            ("base", lambda g: _num(at(g)["baseline"][name])),
            ("Δ", lambda g: _signed(g["memory_minus_baseline"][diff][name])),
        ],
    )


def _budget_blocks() -> list[Block]:
    def at(g: dict[str, Any]) -> dict[str, Any]:
        figures: dict[str, Any] = g["at_budget"]
        return figures

    words: Block = (
        "words read",
        [
            ("memory", lambda g: _words(at(g)["memory"]["words"])),
            ("base", lambda g: _words(at(g)["baseline"]["words"])),
        ],
    )
    return [
        words,
        _compared("evidence recall", at, "at_budget", "evidence_recall"),
        _compared("containment", at, "at_budget", "answer_containment"),
        _compared("knowledge update", at, "at_budget", "knowledge_update"),
        _compared("stale leak", at, "at_budget", "stale_leak"),
    ]


def _top_k_blocks(k: int) -> list[Block]:
    def at(g: dict[str, Any]) -> dict[str, Any]:
        return g

    words: Block = (
        f"words top {k}",
        [
            ("memory", lambda g: _words(g["memory"]["top_k_words"])),
            ("base", lambda g: _words(g["baseline"]["top_k_words"])),
        ],
    )
    return [
        words,
        _compared(f"recall@{k}", at, "top_k", "evidence_recall"),
        _compared(f"containment@{k}", at, "top_k", "answer_containment"),
        _compared("knowledge update", at, "top_k", "knowledge_update"),
        _compared("stale leak", at, "top_k", "stale_leak"),
    ]


def _coverage_blocks() -> list[Block]:
    def per_item(side: str, stat: str) -> Cell:
        return lambda g: _words(g["words_per_item"][side][stat])

    return [
        (
            "coverage",
            [
                ("memory", lambda g: _num(g["memory"]["coverage"])),
                ("base", lambda g: _num(g["baseline"]["coverage"])),
                ("transc", lambda g: _num(g["transcript_coverage"])),
                ("Δ tr", lambda g: _signed(g["coverage_minus_transcript"])),
            ],
        ),
        (
            "date resolved",
            [
                ("memory", lambda g: _num(g["memory"]["date_resolved"])),
                ("base", lambda g: _num(g["baseline"]["date_resolved"])),
            ],
        ),
        ("words/memory", [("median", per_item("memory", "median")), ("p90", per_item("memory", "p90"))]),
        ("words/raw item", [("median", per_item("baseline", "median")), ("p90", per_item("baseline", "p90"))]),
    ]


def _block_lines(title: str, rows: list[tuple[str, dict[str, Any]]], blocks: list[Block]) -> list[str]:
    names = max([18, *(len(name) + 1 for name, _ in rows)])  # long category names keep the columns aligned
    width = names + 4 + sum(WIDTH * len(columns) + 1 for _, columns in blocks)
    lines = [
        title,
        " " * (names + 4) + "".join(f" {heading:^{WIDTH * len(columns)}}" for heading, columns in blocks),
        f"{'category':<{names}}{'n':>4}"
        + "".join(" " + "".join(f"{c:>{WIDTH}}" for c, _ in columns) for _, columns in blocks),
    ]
    for name, group in rows:
        if name == "overall":
            lines.append("-" * width)
        lines.append(
            f"{name:<{names}}{group['questions']:>4}"
            + "".join(" " + "".join(f"{cell(group):>{WIDTH}}" for _, cell in columns) for _, columns in blocks)
        )
    return lines


def _timings(timings: dict[str, float]) -> str:
    """ "dream 17.6 s, evaluate 40.2 s (memory search 20.1, baseline search 0.4, …), total 60.0 s"."""
    steps = {name: value for name, value in timings.items() if "." not in name and name != "dream_cpu_s"}
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


def _cpu_line(report: dict[str, Any]) -> str:
    cpu, cache = report["cpu"], report.get("embedding_cache")
    if cpu["dream_cpu_s"] is None:
        return "cpu: not measured"
    per = cpu["cpu_s_per_message"]
    line = (
        f"cpu: dream phase {cpu['dream_cpu_s']:.1f} s of process CPU over {cpu['messages']} messages = "
        f"{1000 * per:.2f} ms per consolidated message"
        if per is not None
        else "cpu: no messages"
    )
    if cache:
        line += (
            f" (embedding cache: {cache['hits']} vectors from disk, {cache['computed']} computed; "
            "compare only with runs as warm)"
        )
    return line


def _store_lines(report: dict[str, Any]) -> list[str]:
    store = report["store"]
    kept = store["retention"]
    tiers = ", ".join(f"{name} {n}" for name, n in store["tiers"].items())
    said, rel = report["overall"]["dates_said"], report["overall"]["dates_resolved_from_relative"]
    words = store["words_per_memory"]
    return [
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
        f"  words per memory        median {_words(words['median'])}, p90 {_words(words['p90'])}",
        f"  retention               {_pct(kept['share'])}  (memory-adds {kept['memory_adds_retained']}/"
        f"{kept['memory_adds_total']}, retention facts {kept['facts_retained']}/{kept['facts_total']})",
        f"  near-duplicate rate     {_pct(store['near_duplicate_rate'])}  ({store['near_duplicate_memories']} of "
        f"{store['active_memories']} memories; cosine >= {store['near_duplicate_cosine']}, same numbers and dates)",
        f"  undated relative times  {store['undated_relative_times']}",
        f"  supersessions           {store['supersessions']}",
        f"  isolation leaks         {store['isolation_leaks']}  (baseline {store['baseline_isolation_leaks']})",
        "",
        "passes: " + (", ".join(f"{n} {status}" for status, n in report["passes"].items()) or "none"),
        _cpu_line(report),
        "time: " + _timings(report["timings_s"]),
    ]


TITLES = {
    "baseline_only_at_budget": "the baseline answers at equal budget, the memory does not",
    "baseline_only": "the baseline answers in its top k, the memory does not",
    "not_retrieved": "a memory holds the answer, search does not return it",
    "not_covered": "a raw message holds the answer, no memory does",
    "stale_or_missed_update": "knowledge update missed",
    "stale_leak": "memory's reader still gets the old value without the new one",
    "date_unresolved": "exact date not resolved in a memory citing the evidence",
}


def _example_lines(details: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for kind, examples in details["failures"].items():
        if not examples:
            continue
        lines += ["", f"{TITLES.get(kind, kind)} (first {min(len(examples), EXAMPLES)}):"]
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
    return lines


def render_table(report: dict[str, Any]) -> str:
    k = report["k"]
    inputs = report["inputs"]
    budget = report["budget"]
    rows = list(report["categories"].items()) + [("overall", report["overall"])]
    lines = [
        f"dreamstream eval: {report['mode']} run, {report['engine']} engine, k={k}; "
        f"{inputs['questions']} questions over {inputs['scopes']} scopes "
        f"({inputs['turns']} messages, {inputs['memory_adds']} memory-adds)",
        "baseline = raw messages ('[date] speaker: text') and memory-adds ('[date] text'), ranked as memories are;",
        "Δ = memory − baseline; transc = coverage over the raw messages (the ceiling), Δ tr = memory − transc",
        "equal budget: "
        + (f"{budget['budget_words']} words a question" if not budget["default"] else f"the memory's top-{k} words")
        + "; both sides read best-first up to it, the item crossing it cut to the words left",
        "",
    ]
    lines += _block_lines("at equal budget (the headline)", rows, _budget_blocks())
    lines += [""] + _block_lines(f"at top {k}", rows, _top_k_blocks(k))
    lines += [""] + _block_lines(
        f"coverage (the answer anywhere) and words per item of the top {k}",
        rows,
        _coverage_blocks(),
    )
    lines += _store_lines(report)
    unfinished = {s: n for s, n in report["passes"].items() if s in ("failed", "quarantined")}
    if unfinished:
        lines.append(
            "warning: "
            + ", ".join(f"{n} {s}" for s, n in unfinished.items())
            + " pass(es) left memory as it was: the figures measure the store without them"
        )
    lines += _example_lines(report["details"])
    if report["supersessions"].get("sample") is not None:
        lines += ["", render_supersessions(report["supersessions"])]
    return "\n".join(line.rstrip() for line in lines)


__all__ = ["render_table"]
