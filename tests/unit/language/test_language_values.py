"""`language.values.said_at`: where a value as written stands whole in a sentence."""

from __future__ import annotations

from language.values import holds_phrase, said_at


def test_a_value_is_found_whole_not_inside_another() -> None:
    sentence = "The fee rose from $150 to $50 a month, then 2.50 an hour"
    at = said_at(sentence, "$50")
    assert at is not None and sentence[at.start() - 3 : at.start()] == "to "
    assert said_at("It costs 2.50 now", "50") is None, "inside a decimal"
    assert said_at("Gate A12 opens", "12") is None, "inside a code"


def test_a_phrase_is_held_whole_in_any_case() -> None:
    assert holds_phrase("I booked the Aisle seat again", "aisle seat")
    assert not holds_phrase("Both aisles were full", "aisle")
    assert not holds_phrase("a mid-aisle spot", "aisle"), "part of a hyphenated word"
    assert holds_phrase("costs $40 now", "$40") and not holds_phrase("costs $400 now", "$40")
