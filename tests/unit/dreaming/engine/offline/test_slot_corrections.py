"""A stated correction is only about the sentence holding its old value
(`dreaming.engine.offline.slots.SlotReader.corrects`), on sentences written for this test: an
idiom, another person or another thing corrects nothing."""

from __future__ import annotations

import pytest

from dreaming.engine.offline.slots import SlotReader, compounds_of
from language.stated_changes import parse_change

CORRECTED = [
    ("The user always sits by the window on long flights.", "Aisle, not window: I prefer aisle seats now."),
    ("The user drinks black coffee every morning.", "These days I drink green tea instead of coffee in the morning."),
    ("The user is learning Italian on weekends.", "I switched from Italian to Portuguese for my weekend lessons."),
    ("The user goes to the gym on Mondays.", "I go to the gym on Thursdays now, not Mondays."),
    ("The user's son plays football on Saturdays.", "My son plays hockey on Saturdays, not football."),
    ("The user's wife works as a nurse at the clinic.", "Correction: my wife works as a midwife, not a nurse."),
]


NOT_CORRECTED = [
    ("The user's relationship with the user's brother is good.", "I try to focus on the good instead of the bad."),
    ("The user's garden is large and full of roses.", "We went from large to small portions at dinner."),
    ("The user always parks on the street near the bakery.", "Our kitchen window faces the garden, not the street."),
    ("The user loves the quiet of early mornings.", "The weather can change from quiet to stormy in an hour."),
    ("The user's sister moved to Berlin in 2019.", "My colleague moved from Berlin to Munich for a new job."),
    ("The user bakes bread every Sunday.", "My neighbour makes pizza rather than bread on Sundays."),
    ("Project Lynx uses MySQL as the warehouse.", "No, it's DuckDB, not MySQL, for Project Orca."),
    # a time of day corrected is no day of a month: "7" alone would be both
    ("Lena starts her new shift at the bakery on Monday, June 7.", "I start my shift at 6 AM now instead of 7 AM."),
    ("Lena's shift schedule changes on June 7.", "I start my shift at 6 AM now instead of 7 AM."),
]


def test_a_time_of_day_corrected_is_the_time_of_day(slots: SlotReader) -> None:
    said = "I start my shift at 6 AM now instead of 7 AM."
    change = parse_change(said)
    assert change is not None and slots.corrects(change, "Lena starts her shift at the bakery at 7 AM.", [said], "Lena")


@pytest.mark.parametrize(("memory", "correction"), CORRECTED)
def test_a_correction_is_about_the_sentence_holding_its_old_value(
    slots: SlotReader, memory: str, correction: str
) -> None:
    change = parse_change(correction)
    assert change is not None and slots.corrects(change, memory, [correction])


@pytest.mark.parametrize(("memory", "said"), NOT_CORRECTED)
def test_an_idiom_another_person_or_another_thing_corrects_nothing(slots: SlotReader, memory: str, said: str) -> None:
    change = parse_change(said)
    assert change is not None and not slots.corrects(change, memory, [said])


def test_a_bare_correction_is_judged_by_the_turn_it_answers(slots: SlotReader) -> None:
    change = parse_change("No, aisle, not window.")
    assert change is not None
    memory = "Ava prefers window seats."
    assert slots.corrects(change, memory, ["No, aisle, not window.", "I booked you a window seat."], "Ava")
    flat = "Ava's flat has a big window facing the park."
    assert not slots.corrects(change, flat, ["No, aisle, not window.", "I booked you a window seat."], "Ava")


def test_the_same_compound_holds_the_old_value_whatever_the_embedder_makes_of_the_rest() -> None:
    """An embedder with no meaning (the hashing test double) still sees "window seat" in both."""
    from dreaming.embedding import LocalEmbedder

    hashing = SlotReader(lambda texts: LocalEmbedder().embed(list(texts)))
    said = "Actually I'd like a middle seat, not a window seat."
    change = parse_change(said)
    assert change is not None and change.old == "window"
    assert compounds_of("window", said) == ["window seat"]
    assert hashing.corrects(change, "The user always reserves a window seat on night trains.", [said])
    assert not hashing.corrects(change, "The user's office has a window facing the river.", [said])
    assert compounds_of("good", "I try to see the good instead of the bad.") == []  # a bare value has none
