"""The deterministic hashing embedder (a test double) and the canonical tokens it is built on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dreaming.embedding.hashing
from dreaming.embedding import Embedder, HashingEmbedder, LocalEmbedder, canonical_tokens, stem

REPO = Path(__file__).resolve().parents[4]


def cosine(embedder: LocalEmbedder, a: str, b: str) -> float:
    va, vb = embedder.embed_array([a, b])
    return float(va @ vb)


def test_vectors_have_the_requested_size_and_unit_length() -> None:
    for dims in (16, 256, 768):
        vectors = LocalEmbedder(dims=dims).embed(["Ava prefers aisle seats", "", "!!!"])
        assert [len(v) for v in vectors] == [dims, dims, dims]
        assert all(isinstance(x, float) for x in vectors[0])
        assert np.allclose(np.linalg.norm(np.array(vectors), axis=1), 1.0)


def test_the_hashing_double_is_an_embedder_of_float32_unit_rows() -> None:
    embedder = HashingEmbedder(64)
    assert isinstance(embedder, Embedder) and LocalEmbedder is HashingEmbedder
    rows = embedder.embed_array(["Ava prefers aisle seats", "Bruno lives in Porto"])
    assert rows.dtype == np.float32 and rows.shape == (2, 64)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-6)


def test_embed_of_nothing_is_an_empty_list() -> None:
    assert LocalEmbedder().embed([]) == []


def test_same_text_same_vector_within_a_process() -> None:
    embedder = LocalEmbedder()
    assert embedder.embed(["Project Falcon uses DuckDB"]) == LocalEmbedder().embed(["Project Falcon uses DuckDB"])


def test_same_vector_across_processes_with_different_hash_seeds() -> None:
    script = (
        "import json; from dreaming.embedding import LocalEmbedder; "
        "print(json.dumps(LocalEmbedder(64).embed(['Ava is vegetarian', 'AX3000 router'])))"
    )
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, cwd=REPO, capture_output=True, text=True, check=True
        )
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    assert outputs[0] == LocalEmbedder(64).embed(["Ava is vegetarian", "AX3000 router"])


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Ava doesn't eat meat", "Ava does not eat meat"),
        ("My favorite color is green", "My favourite colour is green"),
        ("Bruno switched plans", "Bruno switches plans"),
    ],
)
def test_spelling_and_contraction_variants_share_canonical_tokens(a: str, b: str) -> None:
    assert canonical_tokens(a) == canonical_tokens(b)
    assert cosine(LocalEmbedder(), a, b) == pytest.approx(1.0)


def test_the_hashing_double_knows_no_paraphrases() -> None:
    # The fixture-shaped paraphrase lexicon is gone: meaning is MiniLM's job (test_minilm.py).
    assert canonical_tokens("Ava is vegetarian") != canonical_tokens("Ava does not eat meat")
    assert not hasattr(dreaming.embedding.hashing, "PARAPHRASES")


def test_canonical_tokens_drop_stopwords_and_stem() -> None:
    assert canonical_tokens("Ava prefers window seats") == {"ava", "prefer", "window", "seat"}
    assert canonical_tokens("The user is on the premium plan") == {"premium", "plan"}
    assert stem("dropping") == "drop"
    assert stem("switched") == stem("switches") == "switch"
    assert stem("2026-03-10") == "2026-03-10"


def test_negation_is_content() -> None:
    assert canonical_tokens("Ava likes jazz") != canonical_tokens("Ava does not like jazz")
    assert "not" in canonical_tokens("There is no parking")


def test_similarity_orders_rephrasing_above_rival_value_above_unrelated() -> None:
    embedder = LocalEmbedder()
    paraphrase = cosine(embedder, "Ava prefers window seats", "Ava preferred a window seat")
    rival_value = cosine(embedder, "Ava prefers window seats", "Ava prefers aisle seats")
    unrelated = cosine(embedder, "Ava prefers window seats", "Project Falcon's deadline is 2026-05-31")
    assert paraphrase > rival_value > unrelated
    assert unrelated < 0.3


def test_rejects_absurd_dimensions() -> None:
    with pytest.raises(ValueError):
        LocalEmbedder(dims=2)
