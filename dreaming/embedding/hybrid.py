"""Hybrid search over one scope's texts: dense cosine plus BM25 over `language.tokens`, fused.

Dense vectors find paraphrases ("does not eat meat" for "vegetarian"); BM25 finds the exact name,
number or date a memory question turns on, which a sentence embedding blurs ("45 sources" and "52
sources" embed almost alike). The two rankings are fused by reciprocal rank (`fusion="rrf"`, each
list contributes 1 / (rrf_k + rank)) or by a weighted sum of min-max normalised scores
(`fusion="weighted"`, the default). Measured on the LoCoMo dev set (evidence recall@10 over the
raw messages; `python3 -m dreaming.embedding.fusion_check`): dense 0.447, BM25 0.599, RRF 0.559
(k=60) to 0.628 (k=5), weighted 0.649 (dense weight 0.5). RRF also ties whenever each list puts
the other's favourite second, which a weighted sum of the scores does not.

Pure numpy: BM25 is kept as per-term postings with their precomputed weights, so a query costs
one pass over the postings of its own terms plus one matrix-vector product. A term is a 64-bit key
(the string's hash), and each text's keys are kept in a bounded cache as one array, so building the
postings is array work over all (term, document) pairs at once with no Python loop over tokens:
rebuilding a scope's index after a promotion (most texts unchanged) costs ~0.07 s at 20k memories.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

import numpy as np

from dreaming.embedding.protocol import Embedder
from language.text_caches import text_cache
from language.tokens import tokens

Fusion = Literal["rrf", "weighted", "dense", "bm25"]


TOKEN_CACHE_SIZE = 65_536
"""Texts whose term keys are kept (~0.2 KB each): a scope's next generation mostly repeats its texts."""


def term_key(term: str) -> int:
    """A term as the postings know it. Python's string hash is salted per process, which is
    fine: an index lives and dies in the process that built it. Two terms share a key with odds
    of about n² / 2⁶⁵ for n distinct terms: none in practice."""
    return hash(term)


class Terms(NamedTuple):
    """One text's distinct term keys (sorted), how often each occurs, and its length in tokens."""

    keys: np.ndarray
    counts: np.ndarray
    length: int


def terms_of(token_list: Sequence[str]) -> Terms:
    keys, counts = np.unique(np.fromiter(map(term_key, token_list), dtype=np.int64), return_counts=True)
    keys.flags.writeable = counts.flags.writeable = False  # shared by every index that holds the text
    return Terms(keys, counts, len(token_list))


@text_cache(maxsize=TOKEN_CACHE_SIZE)
def text_terms(text: str) -> Terms:
    """A text's terms (`language.tokens`), kept: the next generation mostly repeats its texts."""
    return terms_of(tokens(text))


class Bm25:
    """Okapi BM25 over token lists; `scores(query_tokens)` gives one score per document."""

    def __init__(self, documents: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self._build([terms_of(d) for d in documents], k1, b)

    @classmethod
    def of_terms(cls, documents: Sequence[Terms], k1: float = 1.2, b: float = 0.75) -> Bm25:
        """Documents already read into terms (`text_terms`)."""
        bm25 = cls.__new__(cls)
        bm25._build(documents, k1, b)
        return bm25

    def _build(self, documents: Sequence[Terms], k1: float, b: float) -> None:
        self.size = len(documents)
        lengths = np.fromiter((d.length for d in documents), dtype=np.float64, count=self.size)
        average = float(lengths.mean()) if self.size and lengths.sum() else 1.0
        distinct = np.fromiter((len(d.keys) for d in documents), dtype=np.int64, count=self.size)
        keys = np.concatenate([d.keys for d in documents]) if self.size else np.zeros(0, np.int64)
        tf = np.concatenate([d.counts for d in documents]).astype(np.float64) if self.size else np.zeros(0)
        docs = np.repeat(np.arange(self.size, dtype=np.intp), distinct)
        # Each document's keys are distinct, and the documents come in order: a stable sort by key
        # lays out the postings, term by term and within a term document by document.
        order = np.argsort(keys, kind="stable")
        keys, tf, docs = keys[order], tf[order], docs[order]
        first = np.ones(len(keys), dtype=bool)
        first[1:] = keys[1:] != keys[:-1]
        self._vocabulary = keys[first]  # sorted term keys; a term's row is where its key sits
        self._starts = np.append(np.flatnonzero(first), len(keys))
        df = np.diff(self._starts).astype(np.float64)
        idf = np.log(1.0 + (self.size - df + 0.5) / (df + 0.5))
        norm = k1 * (1.0 - b + b * lengths[docs] / average)
        self._docs = docs
        self._weights = idf[np.cumsum(first) - 1] * tf * (k1 + 1.0) / (tf + norm)

    def _row(self, term: str) -> int | None:
        key = term_key(term)
        row = int(np.searchsorted(self._vocabulary, key))
        return row if row < len(self._vocabulary) and self._vocabulary[row] == key else None

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        out = np.zeros(self.size)
        for term in dict.fromkeys(query_tokens):  # each distinct term once, in query order
            if (row := self._row(term)) is not None:
                start, end = self._starts[row], self._starts[row + 1]
                out[self._docs[start:end]] += self._weights[start:end]  # a term's documents are distinct
        return out


def _ranks(scores: np.ndarray) -> np.ndarray:
    """0 for the best score; equal scores share the better rank, so a tie stays a tie when fused."""
    negated = -scores
    return np.searchsorted(np.sort(negated), negated, side="left")


def _min_max(scores: np.ndarray) -> np.ndarray:
    low, high = float(scores.min()), float(scores.max())
    return (scores - low) / (high - low) if high > low else np.zeros_like(scores)


class HybridIndex:
    """One scope's texts, searchable by meaning and by their exact words at once."""

    def __init__(
        self,
        embedder: Embedder,
        texts: Sequence[str],
        vectors: np.ndarray | None = None,
        *,
        fusion: Fusion = "weighted",
        rrf_k: float = 60.0,
        dense_weight: float = 0.5,
        lexical: Sequence[str] | None = None,
    ) -> None:
        """`lexical`: what each text is matched on word by word (BM25), when more than the text
        its vector is computed from (a memory's said-on day: a reader asks "what did X do on 9 May",
        the day costs the vector nothing and the reader no words)."""
        if vectors is None:
            vectors = embedder.embed_array(texts) if len(texts) else np.zeros((0, embedder.dims), np.float32)
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.shape != (len(texts), embedder.dims):
            raise ValueError(
                f"vectors have shape {vectors.shape}, expected {(len(texts), embedder.dims)} "
                f"(one row of {embedder.name} per text)"
            )
        self.embedder = embedder
        self.texts = list(texts)
        self.vectors = vectors
        if lexical is not None and len(lexical) != len(self.texts):
            raise ValueError(f"{len(lexical)} lexical texts for {len(self.texts)} texts (one each)")
        self.bm25 = Bm25.of_terms([text_terms(text) for text in (self.texts if lexical is None else lexical)])
        self.fusion = fusion
        self.rrf_k = rrf_k
        self.dense_weight = dense_weight

    def __len__(self) -> int:
        return len(self.texts)

    def scores(self, query: str, query_vector: np.ndarray | None = None) -> np.ndarray:
        """The fused score of every text for `query` (higher is better)."""
        if not self.texts:
            return np.zeros(0)
        if query_vector is None:
            query_vector = self.embedder.embed_array([query])[0]
        dense = self.vectors @ np.asarray(query_vector, dtype=np.float32)
        if self.fusion == "dense":
            return dense.astype(np.float64)
        lexical = self.bm25.scores(tokens(query))
        if self.fusion == "bm25":
            return lexical
        if self.fusion == "weighted":
            return self.dense_weight * _min_max(dense) + (1.0 - self.dense_weight) * _min_max(lexical)
        fused = 1.0 / (self.rrf_k + 1.0 + _ranks(dense))
        matched = lexical > 0  # a text that shares no term with the query gets no lexical vote
        fused[matched] += 1.0 / (self.rrf_k + 1.0 + _ranks(lexical)[matched])
        return fused

    def search(
        self, query: str, k: int, query_vector: np.ndarray | None = None, mask: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """The best `k` texts as (index into texts, score), best first, ties in input order;
        with `mask` (one bool per text), only the texts it marks. Scores are those of the whole
        index, so a filter does not change how a text scores, only whether it is returned."""
        if k <= 0 or not self.texts or (mask is not None and not mask.any()):
            return []
        scores = self.scores(query, query_vector)
        order = np.argsort(-scores, kind="stable")
        if mask is not None:
            order = order[mask[order]]
        return [(int(i), float(scores[i])) for i in order[:k]]
