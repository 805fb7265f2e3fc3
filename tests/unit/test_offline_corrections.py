"""The offline engine's correction rules (`consumers.engine.offline.corrections`) on sentences
written for this test: which statements give someone's attribute a word value."""

from __future__ import annotations

from consumers.engine.offline.corrections import attribute_of


def test_only_someones_attribute_in_the_first_sentence_is_a_slot_with_a_word_value() -> None:
    assert attribute_of("[2025-02-03] Ivo's sister is a pharmacist. She works nights.") == (
        frozenset({"ivo", "sister"}),
        "a pharmacist",
    )
    # a thing and a description of it: two descriptions of one thing are both true
    assert attribute_of("The harbour cafe is a lovely spot for lunch. It opens at 8.") is None
    assert attribute_of("The new climbing gym is one of Ivo's favourite places.") is None
