"""A statement read as frames (`dreaming.engine.offline.slot_frames`): the clause about each value,
values and subject masked, whose attribute it is and what it names, on sentences written for this
test."""

from __future__ import annotations

import pytest

from dreaming.engine.offline.slot_frames import frames, holder, named_first, names_in, value_form
from language.changes import values_in


def test_a_frame_masks_values_and_the_subject_and_keeps_the_clause_about_the_value() -> None:
    [alone, with_before] = frames("The user is keeping the app small, and its install size is 48 MB right now.")
    assert alone.masked == "its install size is # MB right now"
    assert with_before.masked == "is keeping the app small, and its install size is # MB right now".replace(", and", "")
    assert alone.values == frozenset({"48"}) and alone.changed  # "now"
    [frame] = frames("Jon's dance studio has 12 students.", "Jon")
    assert frame.masked == "dance studio has # students"


def test_a_sharp_sign_of_the_text_is_not_a_masked_value() -> None:
    [frame] = frames("The user's C# service has 12 endpoints.")
    assert frame.said_values == ("12",) and frame.sentence == "The user's C# service has 12 endpoints."
    assert frames("# Create a branch: git checkout -b fix-3 and push 2 commits") != ()  # code comments too


def test_whose_attribute_a_clause_gives() -> None:
    assert holder("My sister moved to # in #") == "sister"
    assert holder("The user's colleagues have # desks") == "colleague"
    assert holder("My landlord raised the rent to #") == ""  # the rent is the speaker's
    assert holder("The user's new car is #") == ""


def test_named_things_are_words_capitalised_by_meaning_not_by_grammar() -> None:
    assert names_in("Project Cobra uses # as the warehouse") == {"cobra"}
    assert names_in("I moved the Zoom call with Dana to #") == {"zoom", "dana"}
    assert names_in("The budget is #") == frozenset()
    # A month or a weekday says when, not which thing.
    assert names_in("logged # hours of study in October and on Sunday") == frozenset()


@pytest.mark.parametrize("name", ["Sonja", "Andreas", "Butler", "Whitney", "Sofia"])
def test_a_name_that_begins_like_a_conjunction_is_not_cut_at_a_clause_break(name: str) -> None:
    found = frames(f"Lena met {name} at 9, {name} moved to Oslo in 2021.", "Lena")
    moved = [f.masked for f in found if "moved" in f.masked]
    assert moved and all(f"{name} moved" in masked for masked in moved), moved


def test_a_count_is_of_the_noun_after_its_period_word() -> None:
    def form(sentence: str, said: str) -> str:
        return value_form(next(v for v in values_in(sentence) if v.text == said), sentence)

    assert form("the 600 daily requests of the free plan", "600") == form("600 requests per day", "600")
    assert form("cut my hours to 36 weekly by June", "36") == "unit:weekly"  # no noun after the period


def test_a_name_set_apart_by_who_it_is_opens_the_sentence_as_a_name() -> None:
    assert named_first("Pepper, my neighbour's parrot, is 12 years old.") == frozenset({"pepper"})
    assert named_first("Yes, the parrot, as promised, is home.") == frozenset()  # no verb after the phrase
