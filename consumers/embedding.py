"""A deterministic local embedder: no model, no network, the same vector in every process.

Text is first canonicalised into content tokens (lowercase, contractions expanded, stopwords out,
light stemming, a small paraphrase lexicon), so "Ava is vegetarian" and "Ava does not eat meat"
share their tokens. Each token, and with a lower weight each character trigram of it, is hashed
into `dims` signed buckets (blake2b, never Python's salted `hash()`), and the vector is
L2-normalised, ready for cosine search in Qdrant.

The paraphrase lexicon is deliberately small and explicit: every entry maps a family of phrasings
to one concept token. Add entries here when a new domain needs them; order matters (longer and
negated phrasings come before the words they contain).
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import Sequence

import numpy as np

# (pattern over lowercased, contraction-expanded text, concept token)
PARAPHRASES: tuple[tuple[str, str], ...] = (
    # diet
    (r"\b(?:do|does|did|will|would) not eat (?:any )?(?:meat|animal flesh)\b|\bnever eats? meat\b"
     r"|\bno meat\b|\bmeat[- ]free\b|\bmeatless\b|\bveggie\b", "vegetarian"),
    (r"\b(?:do|does|did) not eat (?:any )?animal products\b|\bplant[- ]based\b", "vegan"),
    (r"\b(?:do|does|did) not (?:drink|take) alcohol\b|\bno alcohol\b|\bteetotal(?:l?er)?\b", "teetotal"),
    # likes and preferences (negated forms first)
    (r"\b(?:do|does|did) not like\b|\bdislikes?\b|\bhates?\b|\bcan not stand\b", "dislike"),
    (r"\bwould rather\b|\bprefer(?:s|red|ence|ences)?\b|\bfavou?rs\b|\blikes? best\b", "prefer"),
    (r"\bis fond of\b|\benjoys?\b|\bloves?\b|\blikes?\b", "like"),
    (r"\bsits? (?:by|at|next to) the (window|aisle)\b", r"prefer \1 seat"),
    # who, where, when
    (r"\breports? to\b|\bis owned by\b|\bis led by\b|\bis run by\b|\bbelongs to\b|\bowns\b|\bowner\b", "owner"),
    (r"\bis based in\b|\blives in\b|\bresides in\b|\bliving in\b", "live"),
    (r"\bworks? (?:at|for)\b|\bis employed (?:at|by)\b", "work"),
    (r"\bdue date\b|\bis due\b|\bdeadline\b", "deadline"),
    (r"\bdate of birth\b|\bborn on\b|\bbirthday\b", "birthday"),
    (r"\b(?:phone|mobile|cell) number\b", "phone"),
    (r"\be-?mail address\b|\be-mail\b", "email"),
    (r"\bis using\b|\bwill use\b|\buses\b|\busing\b|\bruns on\b", "use"),
)
_PARAPHRASES = tuple((re.compile(pattern), concept) for pattern, concept in PARAPHRASES)

# US -> UK spellings, so spelling alone never makes two memories look different.
SPELLING: dict[str, str] = {
    "color": "colour", "favorite": "favourite", "favor": "favour", "center": "centre",
    "organization": "organisation", "summarize": "summarise", "analyze": "analyse",
}

_CONTRACTIONS = (
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"\bcan't\b"), "can not"),
    (re.compile(r"\bcannot\b"), "can not"),
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"'re\b"), " are"),
    (re.compile(r"'m\b"), " am"),
    (re.compile(r"'ll\b"), " will"),
    (re.compile(r"'ve\b"), " have"),
    (re.compile(r"'d\b"), " would"),
    (re.compile(r"'s\b"), ""),  # possessive or "is": neither carries content
)
_TOKEN = re.compile(r"[a-z0-9]+(?:[.\-+#][a-z0-9]+)*\+*")
_NEGATIONS = frozenset({"no", "never", "nor"})

STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be been before being below between both
but by could did do does doing down during each few for from further had has have having he her here
hers herself him himself his how i if in into is it its itself just let me more most my myself of off
on once only or other our ours ourselves out over own same shall she should so some such than that the
their theirs them themselves then there these they this those through to too under until up very was
we were what when where which while who whom why will with would you your yours yourself yourselves
also please really still always usually actually now yes ok okay oh well hi hello hey thanks thank
user users customer customers client team can may might must either
""".split())


def _normalise(text: str) -> str:
    lowered = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    for pattern, replacement in _CONTRACTIONS:
        lowered = pattern.sub(replacement, lowered)
    for pattern, concept in _PARAPHRASES:
        lowered = pattern.sub(f" {concept} ", lowered)
    return lowered


def stem(word: str) -> str:
    """A light suffix stripper: enough to make plurals and tenses meet, never a full stemmer."""
    word = SPELLING.get(word, word)
    if len(word) <= 3 or any(ch.isdigit() for ch in word):
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "shes", "ches", "xes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # dropping -> drop
            break
    if word.endswith("e") and len(word) >= 5:
        word = word[:-1]  # decide / decided -> decid
    return SPELLING.get(word, word)


@lru_cache(maxsize=8192)
def canonical_terms(text: str) -> tuple[tuple[str, str], ...]:
    """(token, surface word) pairs in text order; the surface word is what a reader would see."""
    terms: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(_normalise(text)):
        word = match.group(0)
        if word in _NEGATIONS:
            terms.append(("not", word))
        elif word not in STOPWORDS:
            terms.append((stem(word), word))
    return tuple(terms)


def canonical_tokens(text: str) -> frozenset[str]:
    """The content of `text` as a set of canonical tokens, used for similarity and duplicates."""
    return frozenset(token for token, _ in canonical_terms(text))


@lru_cache(maxsize=65536)
def _bucket(feature: str, dims: int) -> tuple[int, float]:
    digest = int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "big")
    return digest % dims, (1.0 if digest >> 63 else -1.0)


def _trigrams(token: str) -> list[str]:
    padded = f"#{token}#"
    return [padded[i : i + 3] for i in range(len(padded) - 2)]


def _normalise_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


class LocalEmbedder:
    """Feature-hashing embedder over canonical tokens (weight 1) and their char trigrams."""

    EMPTY_FEATURE = "\u2205"  # an empty text still gets a unit vector (Qdrant rejects zero vectors)

    def __init__(self, dims: int = 256, trigram_weight: float = 0.35) -> None:
        if dims < 8:
            raise ValueError(f"dims must be at least 8, got {dims}")
        self.dims = dims
        self.trigram_weight = trigram_weight

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed_array(texts).tolist()

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised row per text, as a float64 matrix of shape (len(texts), dims)."""
        token_part = np.zeros((len(texts), self.dims))
        trigram_part = np.zeros((len(texts), self.dims))
        for row, text in enumerate(texts):
            tokens = [token for token, _ in canonical_terms(text)] or [self.EMPTY_FEATURE]
            self._accumulate(token_part, row, tokens)
            self._accumulate(trigram_part, row, [tri for token in tokens for tri in _trigrams(token)])
        combined = _normalise_rows(token_part) + self.trigram_weight * _normalise_rows(trigram_part)
        return _normalise_rows(combined)

    def _accumulate(self, matrix: np.ndarray, row: int, features: list[str]) -> None:
        if not features:
            return
        buckets = [_bucket(feature, self.dims) for feature in features]
        columns = np.fromiter((index for index, _ in buckets), dtype=np.intp, count=len(buckets))
        signs = np.fromiter((sign for _, sign in buckets), dtype=np.float64, count=len(buckets))
        np.add.at(matrix[row], columns, signs)
