"""Hybrid search: dense cosine + BM25 over language.tokens, fused; on sentences written for this test."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from dreaming.embedding import HashingEmbedder, hybrid
from dreaming.embedding.cache import VectorCache
from dreaming.embedding.hybrid import Bm25, HybridIndex, text_terms
from dreaming.embedding.minilm import MiniLMEmbedder
from language.tokens import tokens

TEXTS = [
    "Lena brought sandwiches and lemonade to the picnic.",
    "Oskar brought his guitar and a jar of pickles.",
    "The flight to Oslo leaves on 2024-06-18 at 07:40.",
    "The flight to Bergen leaves on 2024-06-21 at 09:15.",
    "Ticket 4471 was closed after the router firmware update.",
    "Ticket 4417 is about a billing error on the March invoice.",
]


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(cache=VectorCache(1_000))


@pytest.mark.parametrize(
    ("query", "wanted"),
    [
        ("When does the flight on 21 June 2024 leave?", 3),
        ("Which flight leaves on June 18?", 2),
    ],
)
def test_a_date_query_dense_alone_gets_wrong_and_hybrid_gets_right(
    minilm: MiniLMEmbedder, query: str, wanted: int
) -> None:
    vectors = minilm.embed_array(TEXTS)
    dense = HybridIndex(minilm, TEXTS, vectors, fusion="dense").search(query, 1)
    assert dense[0][0] != wanted  # the sentence embedding blurs the two dates
    top = HybridIndex(minilm, TEXTS, vectors).search(query, 2)  # the default fusion
    assert top[0][0] == wanted, top
    assert top[0][1] > top[1][1]  # not by a tie (RRF ties here: each list puts the other first)


def test_names_and_numbers_rank_their_own_text_first(minilm: MiniLMEmbedder) -> None:
    index = HybridIndex(minilm, TEXTS)
    assert index.search("What did Oskar bring?", 1)[0][0] == 1
    assert index.search("What is ticket 4417 about?", 1)[0][0] == 5
    assert index.search("What was ticket 4471 about?", 1)[0][0] == 4


@pytest.mark.parametrize("fusion", ["weighted", "rrf", "dense", "bm25"])
def test_ties_keep_input_order(fusion: str) -> None:
    texts = ["blue kettle", "green lamp", "blue kettle", "red chair", "blue kettle"]
    top = HybridIndex(HashingEmbedder(64), texts, fusion=fusion).search("blue kettle", 5)
    assert [i for i, _ in top[:3]] == [0, 2, 4]
    assert top[0][1] == top[1][1] == top[2][1]
    assert [s for _, s in top] == sorted((s for _, s in top), reverse=True)


def test_k_bounds_and_an_empty_index() -> None:
    index = HybridIndex(HashingEmbedder(64), ["one", "two"])
    assert [i for i, _ in index.search("two", 10)] == [1, 0]
    assert index.search("two", 0) == []
    assert HybridIndex(HashingEmbedder(64), []).search("anything", 5) == []


def test_given_vectors_are_used_and_checked() -> None:
    class Counting(HashingEmbedder):
        calls = 0

        def embed_array(self, texts):
            Counting.calls += 1
            return super().embed_array(texts)

    embedder = Counting(64)
    vectors = HashingEmbedder(64).embed_array(["alpha", "beta"])
    index = HybridIndex(embedder, ["alpha", "beta"], vectors)
    index.search("beta", 1, query_vector=vectors[1])
    assert Counting.calls == 0
    with pytest.raises(ValueError, match=r"shape \(2, 32\), expected \(2, 64\)"):
        HybridIndex(embedder, ["alpha", "beta"], np.zeros((2, 32)))


def test_bm25_rewards_rare_terms_and_saturates_repeats() -> None:
    bm25 = Bm25([["cat", "sat"], ["cat", "cat", "cat", "cat"], ["dog", "sat"], ["cat"]])
    rare, common = bm25.scores(["dog"]), bm25.scores(["cat"])
    assert rare[2] > common.max()  # "dog" is in one document, "cat" in three
    assert common[1] > common[3] and common[1] < 4 * common[3]
    assert bm25.scores(["unknown"]).tolist() == [0.0] * 4


def test_terms_read_once_score_as_token_lists_do() -> None:
    texts = [*TEXTS, "Ticket 4471 again: the router, the router, the router.", ""]
    from_terms = Bm25.of_terms([text_terms(t) for t in texts])
    from_tokens = Bm25([tokens(t) for t in texts])
    for query in ("router ticket 4471", "flight Oslo 2024-06-18", "nothing matches here", ""):
        assert np.array_equal(from_terms.scores(tokens(query)), from_tokens.scores(tokens(query)))


def test_an_index_rebuilt_for_a_new_generation_reads_only_its_new_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []

    def counting_tokens(text: str) -> list[str]:
        read.append(text)
        return tokens(text)

    monkeypatch.setattr(hybrid, "tokens", counting_tokens)
    run = uuid.uuid4().hex  # texts no earlier test put in the cache
    first = [f"{text} ({run})" for text in TEXTS]
    HybridIndex(HashingEmbedder(64), first)
    read.clear()
    second = [*first[:-1], f"Ticket 4417 was refunded in April ({run})."]
    top = HybridIndex(HashingEmbedder(64), second, fusion="bm25").search("refunded ticket 4417", 1)
    assert read == [second[-1], "refunded ticket 4417"]
    assert top[0][0] == len(second) - 1
