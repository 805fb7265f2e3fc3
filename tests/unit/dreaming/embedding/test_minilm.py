"""all-MiniLM-L6-v2 on onnxruntime: the real model from the installed wheel, on sentences written
for this test (none from the fixtures or the eval sets)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from dreaming.embedding import Embedder, HashingEmbedder, make_embedder
from dreaming.embedding.cache import VectorCache
from dreaming.embedding.minilm import DIMS, MiniLMEmbedder, ModelFileError, model_file
from schemas.settings import Settings

PARAPHRASES = [
    ("Marta moved to Lisbon last spring", "Last spring Marta relocated to Lisbon"),
    ("The boiler stopped working on Tuesday", "On Tuesday the heating boiler broke down"),
    ("Kenji is allergic to peanuts", "Peanuts give Kenji an allergic reaction"),
    ("We postponed the launch until March", "The launch was pushed back to March"),
    ("My sister teaches chemistry at a high school", "My sister is a high school chemistry teacher"),
    ("He quit smoking three years ago", "He stopped smoking three years back"),
    ("Leila runs a small bakery downtown", "Leila owns a little bakery in the city centre"),
]
UNRELATED = [
    ("Marta moved to Lisbon last spring", "The invoice total was wrong by twelve euros"),
    ("The boiler stopped working on Tuesday", "Kenji enjoys painting watercolour landscapes"),
    ("Kenji is allergic to peanuts", "We postponed the launch until March"),
    ("My sister teaches chemistry at a high school", "The dog chewed through the garden hose"),
    ("Leila runs a small bakery downtown", "Our train to Vienna leaves at seven"),
]


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(cache=VectorCache(1_000)).load()


def cosines(embedder: Embedder, pairs: list[tuple[str, str]]) -> np.ndarray:
    left = embedder.embed_array([a for a, _ in pairs])
    right = embedder.embed_array([b for _, b in pairs])
    return (left * right).sum(axis=1)


def test_rows_are_float32_unit_vectors_of_384(minilm: MiniLMEmbedder) -> None:
    rows = minilm.embed_array(["A short one.", "", "word " * 600])  # empty and over-long texts too
    assert isinstance(minilm, Embedder) and minilm.dims == DIMS == 384
    assert rows.dtype == np.float32 and rows.shape == (3, 384)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert minilm.embed_array([]).shape == (0, 384)
    assert minilm.embed(["A short one."])[0] == pytest.approx(rows[0].tolist(), abs=1e-6)


def test_paraphrases_score_high_and_unrelated_sentences_low_with_a_clear_margin(minilm: MiniLMEmbedder) -> None:
    paraphrase, unrelated = cosines(minilm, PARAPHRASES), cosines(minilm, UNRELATED)
    assert paraphrase.min() > 0.7, paraphrase
    assert unrelated.max() < 0.3, unrelated
    assert paraphrase.min() - unrelated.max() > 0.4


def test_each_sentence_finds_its_paraphrase_first(minilm: MiniLMEmbedder) -> None:
    left = minilm.embed_array([a for a, _ in PARAPHRASES])
    right = minilm.embed_array([b for _, b in PARAPHRASES])
    assert list((left @ right.T).argmax(axis=1)) == list(range(len(PARAPHRASES)))


def test_the_hashing_double_cannot_do_this(minilm: MiniLMEmbedder) -> None:
    # Why the hashing embedder is a test double only: with no shared words it sees no likeness.
    pairs = [("They never eat meat", "They are vegetarians"), ("The car broke down", "My vehicle stopped working")]
    assert cosines(HashingEmbedder(), pairs).max() < 0.3
    assert cosines(minilm, pairs).min() > 0.5


def test_batching_and_padding_do_not_change_a_vector(minilm: MiniLMEmbedder) -> None:
    texts = ["Hi.", "The library has 52 sources on medieval trade routes and three on shipbuilding.", "Okay then"]
    together = MiniLMEmbedder(batch_size=2, cache=VectorCache(0)).embed_array(texts)
    alone = np.vstack([MiniLMEmbedder(cache=VectorCache(0)).embed_array([t]) for t in texts])
    assert np.allclose(together, alone, atol=1e-4)


def test_repeated_texts_are_embedded_once_and_cached() -> None:
    cache = VectorCache(2)
    embedder = MiniLMEmbedder(cache=cache)
    rows = embedder.embed_array(["same", "same", "other"])
    assert np.array_equal(rows[0], rows[1]) and len(cache) == 2
    embedder.embed_array(["third"])
    assert len(cache) == 2 and cache.get("same") is None  # least recently used went first
    assert np.array_equal(embedder.embed_array(["other"])[0], rows[2])


def test_a_model_file_with_another_hash_is_refused(tmp_path: Path) -> None:
    tampered = tmp_path / "model.onnx"
    shutil.copyfile(model_file(), tampered)
    with tampered.open("r+b") as handle:
        handle.seek(1_000)
        handle.write(b"\x00\x01\x02\x03")
    with pytest.raises(ModelFileError, match="expected 8199be6f"):
        MiniLMEmbedder(onnx_path=tampered).load()


def test_make_embedder_follows_the_setting() -> None:
    assert isinstance(make_embedder(Settings()), MiniLMEmbedder)
    assert make_embedder(Settings(embedder="minilm", embedding_threads=2)).threads == 2
    hashing = make_embedder(Settings(embedder="hashing", embedding_dims=64))
    assert isinstance(hashing, HashingEmbedder) and hashing.dims == 64


def test_a_text_the_model_reads_as_one_already_embedded_reuses_its_vector(minilm: MiniLMEmbedder) -> None:
    """The tokenizer lowercases and splits punctuation off: the content hash of the token ids
    finds the earlier vector, and nothing is run for the second text."""
    embedder = MiniLMEmbedder(cache=VectorCache(8))
    first = embedder.embed_array(["The ferry to Vigo leaves at nine."])[0]
    runs: list[int] = []
    model = embedder._model()
    real_run = model.run
    model.run = lambda encodings, batch_size: runs.append(len(encodings)) or real_run(encodings, batch_size)  # type: ignore[method-assign]
    try:
        again = embedder.embed_array(["the ferry to vigo  leaves at nine ."])[0]
        other = embedder.embed_array(["The ferry to Vigo leaves at ten."])[0]
    finally:
        del model.run
    assert np.array_equal(first, again) and runs == [1]  # only the other text was run
    assert not np.array_equal(first, other)


def test_without_a_cache_nothing_is_reused_by_content_either() -> None:
    embedder = MiniLMEmbedder(cache=VectorCache(0))  # the benchmark's floor: every text is run
    embedder.embed_array(["The ferry to Vigo leaves at nine."])
    runs: list[int] = []
    model = embedder._model()
    real_run = model.run
    model.run = lambda encodings, batch_size: runs.append(len(encodings)) or real_run(encodings, batch_size)  # type: ignore[method-assign]
    try:
        embedder.embed_array(["the ferry to vigo leaves at nine."])
    finally:
        del model.run
    assert runs == [1]
