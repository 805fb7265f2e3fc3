"""The direct runner on an in-memory Qdrant: the producer's order, and the evaluation reading it back."""

from __future__ import annotations

import json
from pathlib import Path

from qdrant_client import QdrantClient

from consumers.runtime import open_runtime
from dreamstream_tools.evaluation.dataset import load_dataset
from dreamstream_tools.evaluation.evaluate import evaluate
from dreamstream_tools.evaluation.runner import DREAM_CPU, direct_run, dream_directly
from schemas.settings import Settings

SCOPE = "acme/helpdesk/noor"
SAME_TIME = "2026-02-03T10:00:00+00:00"


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _dataset(tmp_path: Path):
    texts = {
        1: "Hello, Noor here.",
        2: "My flat is in Alfama.",
        10: "I practise the violin most evenings.",
        11: "Thanks, that helps.",
    }
    turns = [
        {"scope": SCOPE, "session_id": "D1", "message_id": f"D1:{n}", "role": "user", "content": text, "ts": SAME_TIME}
        for n, text in texts.items()
    ]
    questions = [
        {
            "scope": SCOPE,
            "question": "Which instrument does Noor practise?",
            "answer": "violin",
            "evidence_message_ids": ["D1:10"],
            "category": "single_hop",
        },
        {
            "scope": SCOPE,
            "question": "When did Noor mention the violin?",
            "answer": "3 February 2026",
            "evidence_message_ids": ["D1:10"],
            "category": "temporal",
        },
        {
            "scope": SCOPE,
            "question": "When did Noor mention the violin?",
            "answer": "2 February 2026",
            "evidence_message_ids": ["D1:10"],
            "category": "temporal",
        },
    ]
    return load_dataset(_write(tmp_path / "e.jsonl", turns), _write(tmp_path / "q.jsonl", questions))


def test_the_direct_runner_indexes_turns_in_the_producers_order(tmp_path):
    settings = Settings(home=tmp_path, embedder="hashing", embedding_dims=64)
    runtime = open_runtime(settings, client=QdrantClient(location=":memory:"))
    try:
        statuses = dream_directly(runtime, _dataset(tmp_path))
        offsets = {turn.message_id: offset for turn, offset in runtime.transcripts.window(SCOPE, 100)}
    finally:
        runtime.close()
    assert sum(statuses.values()) == 1
    # file order, not "D1:1" < "D1:10" < "D1:11" < "D1:2" as text
    assert offsets == {"D1:1": 0, "D1:2": 1, "D1:10": 2, "D1:11": 3}
    assert not (tmp_path / "qdrant").exists()  # the in-memory client wrote nothing to disk


def test_a_direct_run_is_evaluated_from_its_in_memory_store(tmp_path):
    base = Settings(home=tmp_path, embedder="hashing", embedding_dims=64)
    dataset = _dataset(tmp_path)
    with direct_run(dataset, base) as run:
        evaluation = evaluate(run.runtime, dataset, k=5)
        home = run.settings.home
        assert run.timings[DREAM_CPU] > 0  # process CPU of the indexing and the pass
    assert not home.exists()  # cleaned up
    result = evaluation.questions[0]
    assert result.transcript_coverage and result.baseline.top_k.answer_containment
    assert result.baseline.top_k.evidence_recall == 1.0
    assert result.day_said is None and result.memory.date_resolved is None
    said, earlier = evaluation.questions[1], evaluation.questions[2]
    assert said.day_said is True and earlier.day_said is False  # the message was said on 2026-02-03
    assert said.baseline.date_resolved is True  # the raw message is read with its own date
    assert earlier.baseline.date_resolved is False
    assert {"read_store_s", "embed_s", "memory_search_s", "baseline_search_s"} <= set(evaluation.timings)
    assert evaluation.store.input_messages == 4 and evaluation.store.isolation_leaks == ()


def test_both_sides_read_the_same_words_at_the_budget(tmp_path):
    base = Settings(home=tmp_path, embedder="hashing", embedding_dims=64)
    dataset = _dataset(tmp_path)
    with direct_run(dataset, base) as run:
        default = evaluate(run.runtime, dataset, k=1)
        fixed = evaluate(run.runtime, dataset, k=1, budget_words=9)
    for result in default.questions:
        # the default budget is what memory's top k holds: memory reads exactly its top k
        assert result.budget == result.memory.top_k.words > 0
        assert result.memory.at_budget == result.memory.top_k
        assert result.baseline.at_budget.words == result.budget
    for result in fixed.questions:
        assert result.budget == 9
        assert result.memory.at_budget.words == result.baseline.at_budget.words == 9
    assert fixed.budget_words == 9 and default.budget_words is None
