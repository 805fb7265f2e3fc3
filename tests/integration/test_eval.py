"""`dreamstream eval` as a user runs it: a subprocess printing one JSON object.

On the fixtures through the real pipeline (Kafka, both workers, embedded Qdrant), and with
`--direct` on a small generated set.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration

CATEGORIES = {"knowledge_update", "temporal", "dedup", "retention", "isolation", "motive"}


def eval_command() -> list[str]:
    """`dreamstream eval`, found through the dreamstream-tools entry points."""
    return [sys.executable, "-m", "dreamstream.cli", "eval"]


def run_eval(args: list[str], env: dict[str, str], timeout: float = 600) -> dict:
    run = subprocess.run(
        [*eval_command(), *args, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout)  # exactly one JSON object on stdout, progress on stderr
    assert isinstance(report, dict)
    return report


def check_shape(report: dict) -> None:
    assert set(report) >= {"mode", "engine", "k", "budget", "inputs", "passes", "overall", "categories", "store"}
    assert {"details", "cpu", "supersessions"} <= set(report)
    read = {"evidence_recall", "answer_containment", "knowledge_update", "stale_leak"}
    for group in [report["overall"], *report["categories"].values()]:
        for side in ("memory", "baseline"):
            shares = read | {"coverage", "date_resolved"}
            assert set(group[side]) == shares | {"top_k_words"}
            assert all(group[side][name] is None or 0.0 <= group[side][name] <= 1.0 for name in shares)
            assert group[side]["top_k_words"] > 0
            budget = group["at_budget"][side]
            assert set(budget) == read | {"words", "items"}
            assert all(budget[name] is None or 0.0 <= budget[name] <= 1.0 for name in read)
        # both sides read the same words at the budget (the baseline has more raw words than memory)
        assert group["at_budget"]["memory"]["words"] == group["at_budget"]["baseline"]["words"]
        assert set(group["memory_minus_baseline"]) == {"at_budget", "top_k"}
        assert group["words_per_item"]["memory"]["median"] > 0
    assert report["cpu"]["dream_cpu_s"] > 0 and report["cpu"]["cpu_s_per_message"] > 0
    assert report["passes"] and "failed" not in report["passes"] and "quarantined" not in report["passes"]
    assert report["store"]["isolation_leaks"] == 0 and report["store"]["baseline_isolation_leaks"] == 0
    assert {"evaluate.memory_search_s", "evaluate.baseline_search_s", "total_s"} <= set(report["timings_s"])


def test_eval_on_the_fixtures_through_the_pipeline(kafka_bootstrap, tmp_path, fixtures_dir):
    env = {
        **os.environ,
        "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "DREAMSTREAM_HOME": str(tmp_path),
        "DREAMSTREAM_PARTITIONS": "2",
    }
    report = run_eval(
        [
            "--events",
            str(fixtures_dir / "events.jsonl"),
            "--memory-adds",
            str(fixtures_dir / "memory_adds.jsonl"),
            "--questions",
            str(fixtures_dir / "questions.jsonl"),
        ],
        env,
    )
    check_shape(report)
    assert report["mode"] == "pipeline" and report["engine"] == "offline" and report["k"] == 10
    assert set(report["categories"]) == CATEGORIES and report["overall"]["questions"] == 12
    cats = report["categories"]
    # What the fixtures are built to show: curated memory answers with absolute dates and the
    # corrected value, where the raw transcript cannot.
    assert cats["temporal"]["memory"]["answer_containment"] > cats["temporal"]["baseline"]["answer_containment"]
    assert (
        cats["knowledge_update"]["memory"]["knowledge_update"]
        > cats["knowledge_update"]["baseline"]["knowledge_update"]
    )
    assert report["store"]["retention"]["share"] == 1.0  # silence is not evidence: nothing un-contradicted is lost
    assert report["store"]["undated_relative_times"] == 0
    assert report["store"]["active_memories"] < report["inputs"]["turns"]
    assert not list(tmp_path.glob("eval/*"))  # the run's private store is cleaned up


def test_eval_of_chosen_scopes_through_the_pipeline(kafka_bootstrap, tmp_path, fixtures_dir):
    """`--scopes` through the pipeline replays only the chosen scopes' events (written out for it)."""
    env = {
        **os.environ,
        "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "DREAMSTREAM_HOME": str(tmp_path),
        "DREAMSTREAM_PARTITIONS": "2",
    }
    report = run_eval(
        [
            "--events",
            str(fixtures_dir / "events.jsonl"),
            "--memory-adds",
            str(fixtures_dir / "memory_adds.jsonl"),
            "--questions",
            str(fixtures_dir / "questions.jsonl"),
            "--scopes",
            "demo/travel-assistant/*",
            "--supersessions-sample",
            "5",
        ],
        env,
    )
    assert report["inputs"]["selected_scopes"] == ["demo/travel-assistant/ava"]
    assert report["inputs"]["scopes"] == 1 and report["passes"] == {"completed": 1}
    assert report["store"]["isolation_leaks"] == 0
    # the travel fixture's seat correction is a supersession, shown with its evidence
    sample = report["supersessions"]["sample"]
    assert report["supersessions"]["total"] == len(sample) >= 1
    assert all(row["evidence"] and row["evidence"][0].startswith("[20") for row in sample)


def test_eval_direct_on_a_generated_set(tmp_path):
    env = {**os.environ, "DREAMSTREAM_HOME": str(tmp_path / "home")}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "dreamstream.cli",
            "eval-data",
            str(tmp_path / "set"),
            "--seed",
            "11",
            "--scopes",
            "4",
            "--messages",
            "600",
        ],
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    data = tmp_path / "set"
    report = run_eval(
        [
            "--events",
            str(data / "events.jsonl"),
            "--memory-adds",
            str(data / "memory_adds.jsonl"),
            "--questions",
            str(data / "questions.jsonl"),
            "--direct",
            "--k",
            "5",
        ],
        env,
    )
    check_shape(report)
    assert report["mode"] == "direct" and report["k"] == 5 and report["inputs"]["scopes"] == 4
    assert set(report["categories"]) == CATEGORIES
    assert report["passes"] == {"completed": 4}
    cats = report["categories"]
    assert cats["temporal"]["memory"]["answer_containment"] > cats["temporal"]["baseline"]["answer_containment"]
    assert report["store"]["compression"] < 0.5
    assert 0.0 < report["overall"]["memory"]["answer_containment"] <= 1.0
