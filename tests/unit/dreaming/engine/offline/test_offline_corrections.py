"""The offline engine's correction rules (`dreaming.engine.offline.corrections`) on sentences
written for this test: which statements give someone's attribute a word value."""

from __future__ import annotations

from datetime import UTC, datetime

from dreaming.engine.offline.corrections import attribute_of, updated_text
from dreaming.engine.offline.slots import Update


def test_only_someones_attribute_in_the_first_sentence_is_a_slot_with_a_word_value() -> None:
    assert attribute_of("[2025-02-03] Ivo's sister is a pharmacist. She works nights.") == (
        frozenset({"ivo", "sister"}),
        "a pharmacist",
    )
    # a thing and a description of it: two descriptions of one thing are both true
    assert attribute_of("The harbour cafe is a lovely spot for lunch. It opens at 8.") is None
    assert attribute_of("The new climbing gym is one of Ivo's favourite places.") is None


SAID = datetime(2025, 4, 2, 9, 0, tzinfo=UTC)


def test_a_value_is_swapped_into_the_older_sentence_only_beside_values_the_new_statement_still_says() -> None:
    # The rest of the sentence is another fact ("two dogs"): it stays, with the day swapped.
    gym = Update(
        "Raf's gym sessions are on Mondays at 7 PM, and Raf has two dogs.",
        "Raf's gym sessions moved to Wednesdays at 7 PM.",
        0.9,
        ("Mondays", "7 PM"),
        ("Wednesdays", "7 PM"),
        ("day", "clock"),
        ("day", "clock"),
    )
    edited = updated_text(gym.old_sentence, gym, SAID, "Raf")
    assert edited == "Raf's gym sessions are on Wednesdays at 7 PM, and Raf has two dogs."
    # The count and the day beside the share are not the new statement's: swapping the share alone
    # would pair a new share with an old count, so the newer statement replaces the sentence.
    atlas = Update(
        "The press has printed 1,900 copies of the atlas by May 1, which is 38% of the 5,000-copy run.",
        "The press has printed 4,100 copies of the atlas by August 3, which is 82% of the 5,000-copy run.",
        0.95,
        ("38%", "5,000"),
        ("82%", "5,000"),
        ("percent", "number"),
        ("percent", "number"),
    )
    assert updated_text(atlas.old_sentence, atlas, SAID) is None
