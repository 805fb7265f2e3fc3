"""Cue word lists that live in `language/` and are read elsewhere, on sentences written for this
test: each list is the one its cue's regexes are built from, so the readers cannot drift."""

from __future__ import annotations

import polars as pl

from language.clauses import classify
from language.patterns import (
    BELITTLING_WORDS,
    CLAUSE_COMMA_BEFORE,
    CLAUSE_COMMA_CAPTURING,
    COMPLAINT_WORDS,
    DISSATISFACTION,
    FAILING_VERBS,
    TOO_WHAT,
    compiled,
)
from language.person import PERSONAL_WORD
from language.stated_changes import OPINION_WORDS


def test_every_word_of_the_dissatisfaction_shapes_is_a_complaint_word() -> None:
    assert set(BELITTLING_WORDS) | set(TOO_WHAT) | set(FAILING_VERBS) <= set(COMPLAINT_WORDS)


def test_each_list_drives_its_shape_in_python_and_polars() -> None:
    written = [f"That's {w} a list of dates" for w in BELITTLING_WORDS]
    written += [f"it doesn't {v} anything about the invoice" for v in FAILING_VERBS]
    written += [f"the recipe summary is too {w} for me" for w in TOO_WHAT]
    python = [any(compiled(p).search(t) for p in DISSATISFACTION) for t in written]
    column = pl.Series(written)
    polars = pl.select(pl.any_horizontal([column.str.contains(p) for p in DISSATISFACTION])).to_series().to_list()
    assert python == polars == [True] * len(written)
    assert classify("the recipe summary is too vague for me")[0] == "dissatisfaction"
    assert classify("The ferry leaves at noon from pier four")[0] == "fact"


def test_opinion_words_are_judgements_not_values() -> None:
    assert {"easy", "obvious", "ready"} <= OPINION_WORDS
    assert not {"aisle", "window", "tuesday", "porto"} & OPINION_WORDS


def test_personal_word_finds_who_a_clause_is_about() -> None:
    assert PERSONAL_WORD.search("Then she moved the meeting")
    assert PERSONAL_WORD.search("I've got the blue one now")
    assert not PERSONAL_WORD.search("Thursdays now, not Mondays")
    assert not PERSONAL_WORD.search("this helps with the shelves")  # "he" inside a word is not a person


def test_the_two_clause_comma_forms_cut_at_the_same_places() -> None:
    text = "The printer jammed again, can you order toner, and paper, we're out, please"
    python = compiled(CLAUSE_COMMA_BEFORE).split(text)
    polars = pl.Series([text]).str.replace_all(CLAUSE_COMMA_CAPTURING, "\n${1}").str.split("\n").explode().to_list()
    assert python == polars == ["The printer jammed again", "can you order toner, and paper", "we're out", "please"]
