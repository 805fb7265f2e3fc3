"""Retrieval-only check of the hybrid fusion on an eval set in the quality-data format (no dreaming):
for each question, rank its scope's raw messages by dense only, BM25 only and each fusion, and
print evidence recall@k (share of `evidence_message_ids` in the top k) and the search time.

    python3 -m dreaming.embedding.fusion_check ../shared/eval/locomo [--k 10] [--embedder minilm]

The data is read where it lies and never copied (the LoCoMo set is CC BY-NC, evaluation use only).
LoCoMo, 10 scopes, 5,882 messages, 1,536 questions with evidence, MiniLM int8, recall@10:
dense 0.447, BM25 0.599, RRF k=60 0.559 (k=20 0.606, k=5 0.628), weighted sum of min-max scores
with dense weight 0.3 / 0.5 / 0.7: 0.636 / 0.649 / 0.627 -> HybridIndex defaults to weighted 0.5.
1,536 searches take ~0.15 s (after embedding).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from dreaming.embedding.factory import make_embedder
from dreaming.embedding.hybrid import Fusion, HybridIndex
from schemas.settings import Settings


class FusionOptions(TypedDict, total=False):
    """Keyword arguments of `HybridIndex`."""

    fusion: Fusion
    rrf_k: float
    dense_weight: float


VARIANTS: dict[str, FusionOptions] = {
    "dense": {"fusion": "dense"},
    "bm25": {"fusion": "bm25"},
    "rrf k=60": {"fusion": "rrf", "rrf_k": 60.0},
    "rrf k=20": {"fusion": "rrf", "rrf_k": 20.0},
    "rrf k=5": {"fusion": "rrf", "rrf_k": 5.0},
    "weighted 0.3": {"fusion": "weighted", "dense_weight": 0.3},
    "weighted 0.4": {"fusion": "weighted", "dense_weight": 0.4},
    "weighted 0.5": {"fusion": "weighted", "dense_weight": 0.5},
    "weighted 0.6": {"fusion": "weighted", "dense_weight": 0.6},
    "weighted 0.7": {"fusion": "weighted", "dense_weight": 0.7},
}


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("eval_dir", type=Path)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--embedder", default="minilm", choices=["minilm", "hashing"])
    args = parser.parse_args(argv)

    messages: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for event in _read_jsonl(args.eval_dir / "events.jsonl"):
        messages[event["scope"]].append(event)  # the producer's order
    questions = [q for q in _read_jsonl(args.eval_dir / "questions.jsonl") if q.get("evidence_message_ids")]
    embedder = make_embedder(Settings(embedder=args.embedder))

    started = time.perf_counter()
    vectors = {scope: embedder.embed_array([m["content"] for m in rows]) for scope, rows in messages.items()}
    query_vectors = embedder.embed_array([q["question"] for q in questions])
    embed_s = time.perf_counter() - started
    total = sum(len(rows) for rows in messages.values())
    print(
        f"{len(messages)} scopes, {total} messages, {len(questions)} questions with evidence; "
        f"embedding ({embedder.name}): {embed_s:.1f}s, {(total + len(questions)) / embed_s:.0f} texts/s"
    )

    categories = sorted({q.get("category", "-") for q in questions})
    print(
        f"{'ranking':<14} {'recall@' + str(args.k):>9} {'build s':>8} {'search s':>9}  "
        + " ".join(f"{c[:12]:>12}" for c in categories)
    )
    for label, options in VARIANTS.items():
        build = time.perf_counter()
        indexes = {
            scope: HybridIndex(embedder, [m["content"] for m in rows], vectors[scope], **options)
            for scope, rows in messages.items()
        }
        build_s = time.perf_counter() - build
        search = time.perf_counter()
        recalls: dict[str, list[float]] = defaultdict(list)
        for question, query_vector in zip(questions, query_vectors):
            scope = question["scope"]
            top = indexes[scope].search(question["question"], args.k, query_vector)
            found = {messages[scope][i]["message_id"] for i, _ in top}
            evidence = question["evidence_message_ids"]
            recall = sum(e in found for e in evidence) / len(evidence)
            recalls["all"].append(recall)
            recalls[question.get("category", "-")].append(recall)
        search_s = time.perf_counter() - search
        print(
            f"{label:<14} {np.mean(recalls['all']):>9.3f} {build_s:>8.2f} {search_s:>9.2f}  "
            + " ".join(f"{np.mean(recalls[c]):>12.3f}" for c in categories)
        )


if __name__ == "__main__":
    main()
