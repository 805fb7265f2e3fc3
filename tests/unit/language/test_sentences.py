"""The one sentence splitter, option by option, on text written for this test."""

from __future__ import annotations

from language.sentences import split_sentences


def test_plain_ends_at_punctuation_and_whitespace_only() -> None:
    text = "The kiln reached temperature. glaze went on next!\nThen it cooled"
    assert split_sentences(text) == ["The kiln reached temperature.", "glaze went on next!", "Then it cooled"]
    assert split_sentences("one line\nanother line") == ["one line\nanother line"]


def test_newlines_end_a_sentence_without_punctuation() -> None:
    assert split_sentences("one line\n\nanother line", newlines=True) == ["one line", "another line"]


def test_semicolons_end_a_clause_only_when_asked() -> None:
    text = "The bus was late; we walked instead"
    assert split_sentences(text, semicolons=True) == ["The bus was late", "we walked instead"]
    assert split_sentences(text) == [text]


def test_careful_keeps_titles_initials_and_abbreviations_inside() -> None:
    text = 'Dr. Okafor met J.R. Vance, e.g. at the clinic. "It went well." Next week they meet again.'
    assert split_sentences(text, careful=True, next_start="capital") == [
        "Dr. Okafor met J.R. Vance, e.g. at the clinic.",
        '"It went well."',  # the closing quote stays with its sentence
        "Next week they meet again.",
    ]
    assert len(split_sentences(text)) > 3  # without care, "Dr." ends a sentence


def test_next_start_decides_what_may_open_the_next_sentence() -> None:
    text = 'We shipped v2. then we rested. "Fine," she said. (Later) it rained. 3 cats slept.'
    assert split_sentences(text, next_start="capital") == [
        "We shipped v2. then we rested.",
        '"Fine," she said.',
        "(Later) it rained.",
        "3 cats slept.",
    ]
    assert split_sentences('Done. "quiet" now. (soon) ok. x', next_start="capital_or_opening") == [
        "Done.",
        '"quiet" now.',
        "(soon) ok. x",
    ]
