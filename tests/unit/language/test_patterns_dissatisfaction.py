"""The dissatisfaction shapes on sentences written for this test, in Python `re` and in polars
(the gather pass reads the same sources over whole columns)."""

from __future__ import annotations

import polars as pl
import pytest

from language.clauses import classify
from language.patterns import DISSATISFACTION, GENERIC_ANSWER, LACKING_QUALITY, compiled

GENERIC = [
    "Anybody could have written this",
    "any intern can tell you that",
    "Everyone could say that about a garden.",
    "honestly anyone could come up with it",
    "any chatbot would have said those",
]
NOT_GENERIC = [
    "Anyone can write code these days",
    "anybody could tell the bakery was closed",
    "everyone can say their name in French",
    "Any passenger can come up with questions at the desk",
]
LACKING = [
    "It has no depth.",
    "there's no soul in it",
    "the essay lacks originality",
    "the summary had no real substance at all",
    "this draft has no personality whatsoever",
    "the melody lacked spark and it dragged",
]
NOT_LACKING = [
    "I have no depth perception in my left eye",
    "The cabin has no substance abuse policy posted",
    "My brother has no personality disorder diagnosis",
    "We have no soul food restaurants nearby",
]


def _both(pattern: str, texts: list[str]) -> list[bool]:
    python = [bool(compiled(pattern).search(t)) for t in texts]
    column = pl.Series(texts).str.contains(pattern).to_list()
    assert python == column, "the Python and polars readings differ"
    return python


@pytest.mark.parametrize(
    ("pattern", "caught", "ordinary"), [(GENERIC_ANSWER, GENERIC, NOT_GENERIC), (LACKING_QUALITY, LACKING, NOT_LACKING)]
)
def test_each_shape_catches_its_clauses_and_leaves_ordinary_ones(
    pattern: str, caught: list[str], ordinary: list[str]
) -> None:
    assert _both(pattern, caught) == [True] * len(caught)
    assert _both(pattern, ordinary) == [False] * len(ordinary)


def test_the_shapes_are_dissatisfaction_cues() -> None:
    assert GENERIC_ANSWER in DISSATISFACTION and LACKING_QUALITY in DISSATISFACTION
    assert classify("the summary had no real substance at all")[0] == "dissatisfaction"
    assert classify("I have no depth perception in my left eye")[0] == "fact"
