"""The report: per-category aggregation at top k and at equal budget, memory − baseline, words per
item, CPU per message, the supersession sample, and the same as a table (hand-built results)."""

from __future__ import annotations

import json

import pytest

from dreamstream_tools.evaluation.dataset import Question
from dreamstream_tools.evaluation.evaluate import Evaluation, QuestionResult, Reading, Scores, StoreFigures
from dreamstream_tools.evaluation.metrics import NearDuplicates, Retention, WordStats
from dreamstream_tools.evaluation.report import build_report, render_table
from dreamstream_tools.evaluation.supersessions import Supersession, sample_report

SCOPE = "demo/travel-assistant/ava"


def _reading(recall, hit, ku, leak, words, items=10) -> Reading:
    return Reading(recall, hit, ku, leak, words, items)


def _result(category: str, hit: bool, ku: bool | None = None, recall: float | None = 1.0, dated: bool | None = None):
    q = Question(
        scope=SCOPE,
        question="q?",
        answer="a",
        category=category,
        evidence_message_ids=("m1",) if recall is not None else (),
        stale_message_ids=("m0",) if ku is not None else (),
    )
    stale = None if ku is None else not ku
    memory = Scores(
        _reading(recall, hit, ku, stale, 40),
        _reading(recall, hit, ku, stale, 40),
        True,
        dated,
        (4, 6, 30),
    )
    # The baseline: at top k it reads fewer words and finds less; at the same 40 words it finds
    # the answer whenever memory did not (so the two views differ).
    baseline = Scores(
        _reading(recall and 0.5, False, False if ku is not None else None, None if ku is None else True, 20),
        _reading(recall, not hit, False if ku is not None else None, None if ku is None else True, 40, 14),
        hit,
        dated and False,
        (10, 10),
    )
    return QuestionResult(
        q,
        memory,
        baseline,
        transcript_coverage=hit,
        top_memories=("top memory",),
        top_baseline=("[2026-03-01] user: top message",),
        day_said=True if dated is not None else None,
        budget=40,
        budget_baseline=("[2026-03-01] user: top message", "[2026-03-02] user: the next one"),
    )


def _evaluation(supersessions: tuple[Supersession, ...] = ()) -> Evaluation:
    store = StoreFigures(
        input_messages=35,
        memory_adds=6,
        active_memories=13,
        compression=13 / 41,
        near_duplicates=NearDuplicates(2, 13, (("a", "b"),)),
        undated=("next week",),
        retention=Retention(5, 4, 4, 4, ("x:lost",), ()),
        isolation_leaks=(),
        baseline_isolation_leaks=(),
        tiers={"core": 10, "archive": 3},
        memory_words=WordStats(13, 12.0, 31.5),
        supersessions=supersessions,
    )
    return Evaluation(
        10,
        (
            _result("temporal", True, dated=True),
            _result("knowledge_update", False, False),
            _result("knowledge_update", True, True),
            _result("custom", True, recall=None),
        ),
        store,
    )


def _report(**extra):
    timings = {"dream_s": 1.234, "dream_cpu_s": 0.7, "evaluate_s": 3.0, "evaluate.memory_search_s": 2.0, "total_s": 4.0}
    return build_report(
        _evaluation(extra.pop("supersessions_found", ())),
        mode="direct",
        engine="offline",
        inputs={"scopes": 1, "turns": 35, "memory_adds": 6, "questions": 4},
        passes={"completed": 1},
        timings=timings,
        **extra,
    )


def test_the_report_aggregates_per_category_and_overall():
    report = _report()
    assert list(report["categories"]) == ["knowledge_update", "temporal", "custom"]  # known order, unknown last
    ku = report["categories"]["knowledge_update"]
    assert ku["questions"] == 2 and ku["memory"] == {
        "evidence_recall": 1.0,
        "answer_containment": 0.5,
        "knowledge_update": 0.5,
        "stale_leak": 0.5,
        "coverage": 1.0,
        "date_resolved": None,
        "top_k_words": 40.0,
    }
    assert ku["baseline"]["knowledge_update"] == 0.0 and ku["baseline"]["coverage"] == 0.5
    assert ku["baseline"]["stale_leak"] == 1.0
    assert ku["transcript_coverage"] == 0.5 and ku["coverage_minus_transcript"] == 0.5
    temporal = report["categories"]["temporal"]
    assert temporal["exact_dates"] == 1 and temporal["memory"]["date_resolved"] == 1.0
    assert temporal["baseline"]["date_resolved"] == 0.0
    assert report["overall"]["dates_said"] == {"questions": 1, "memory": 1.0, "baseline": 0.0}
    assert report["overall"]["dates_resolved_from_relative"] == {"questions": 0, "memory": None, "baseline": None}
    assert report["categories"]["custom"]["memory"]["evidence_recall"] is None
    assert report["overall"]["memory"]["answer_containment"] == 0.75
    assert report["overall"]["with_evidence"] == 3
    assert report["store"]["retention"]["share"] == pytest.approx(8 / 9, abs=1e-4)
    assert report["store"]["near_duplicate_rate"] == pytest.approx(2 / 13, abs=1e-4)
    assert len(report["details"]["misses"]) == 1
    assert report["store"]["memories_per_message"] == pytest.approx(13 / 35, abs=1e-4)
    assert report["store"]["tiers"] == {"archive": 3, "core": 10}
    failures = report["details"]["failures"]
    assert [f["category"] for f in failures["stale_or_missed_update"]] == ["knowledge_update"]
    assert failures["stale_or_missed_update"][0]["top_memories"] == ["top memory"]
    json.dumps(report)  # JSON-ready as it is


def test_equal_budget_figures_sit_beside_the_top_k_ones_with_memory_minus_baseline():
    report = _report()
    overall = report["overall"]
    assert overall["at_budget"]["budget_words"] == 40.0
    assert overall["at_budget"]["memory"]["words"] == overall["at_budget"]["baseline"]["words"] == 40.0
    assert overall["at_budget"]["baseline"]["items"] == 14.0
    # at top k the baseline finds nothing; at the same words it finds what memory missed
    assert overall["baseline"]["answer_containment"] == 0.0
    assert overall["at_budget"]["baseline"]["answer_containment"] == 0.25
    assert overall["memory_minus_baseline"]["top_k"]["answer_containment"] == 0.75
    assert overall["memory_minus_baseline"]["at_budget"]["answer_containment"] == 0.5
    assert overall["memory_minus_baseline"]["at_budget"]["evidence_recall"] == 0.0
    ku = report["categories"]["knowledge_update"]
    assert ku["memory_minus_baseline"]["at_budget"]["stale_leak"] == -0.5
    assert report["categories"]["temporal"]["memory_minus_baseline"]["at_budget"]["knowledge_update"] is None
    assert report["budget"]["default"] is True and "memory side's top 10" in report["budget"]["rule"]
    failures = report["details"]["failures"]
    assert [f["category"] for f in failures["baseline_only_at_budget"]] == ["knowledge_update"]
    assert failures["baseline_only_at_budget"][0]["baseline_at_budget"][1] == "[2026-03-02] user: the next one"
    assert [f["category"] for f in failures["stale_leak"]] == ["knowledge_update"]


def test_words_per_item_and_cpu_per_message_are_reported():
    report = _report()
    assert report["overall"]["words_per_item"]["memory"] == {"items": 12, "median": 6.0, "p90": 30.0}
    assert report["overall"]["words_per_item"]["baseline"] == {"items": 8, "median": 10.0, "p90": 10.0}
    assert report["store"]["words_per_memory"] == {"items": 13, "median": 12.0, "p90": 31.5}
    assert report["cpu"] == {"dream_cpu_s": 0.7, "messages": 35, "cpu_s_per_message": 0.02}
    assert report["embedding_cache"] is None


def test_the_supersession_count_is_always_there_and_the_sample_when_asked():
    found = tuple(
        Supersession(SCOPE, f"old-{i}", f"Ava has {i} cats", f"new-{i}", f"Ava has {i + 1} cats", "", ("[d] Ava: x",))
        for i in range(5)
    )
    assert _report(supersessions_found=found)["supersessions"] == {"total": 5}
    sampled = _report(supersessions_found=found, supersessions=sample_report(list(found), 2, seed=3))
    assert sampled["supersessions"]["total"] == 5 and len(sampled["supersessions"]["sample"]) == 2
    assert sampled["store"]["supersessions"] == 5
    assert "2 of 5 supersessions (seed 3)" in render_table(sampled)


def test_the_table_shows_both_views_every_category_and_the_store():
    table = render_table(_report(embedding_cache={"hits": 7, "computed": 2}))
    for needle in (
        "knowledge_update",
        "temporal",
        "custom",
        "overall",
        "at equal budget (the headline)",
        "at top 10",
        "words read",
        "recall@10",
        "stale leak",
        "Δ tr",
        "words/memory",
        "retention",
        "88.9%",
        "near-duplicate rate",
        "undated relative times  1",
        "words per memory        median 12, p90 32",
        "supersessions           0",
        "isolation leaks",
        "1 completed",
        "x:lost",
        "coverage",
        "date resolved",
        "core 10",
        "knowledge update missed",
        "the baseline answers at equal budget, the memory does not",
        "'top memory'",
        "'[2026-03-01] user: top message'",
        "evaluate 3.0 s (memory search 2.0), total 4.0 s",
        "20.00 ms per consolidated message (embedding cache: 7 vectors from disk, 2 computed",
        "the day a message was said on        1  resolved 1.00 (baseline 0.00)",
    ):
        assert needle in table, needle
    assert "warning" not in table and "dream cpu" not in table
    overall = next(line for line in table.splitlines() if line.startswith("overall"))
    # words read 40 / 40, then recall memory 1.00, baseline 1.00, Δ +0.00, containment 0.75 0.25 +0.50
    assert overall.split()[2:11] == ["40", "40", "1.00", "1.00", "+0.00", "0.75", "0.25", "+0.50", "0.50"]
    report = _report()
    report["passes"] = {"completed": 1, "failed": 2}
    assert "warning: 2 failed pass(es) left memory as it was" in render_table(report)
