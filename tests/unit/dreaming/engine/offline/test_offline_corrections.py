"""The offline engine's correction rules (`dreaming.engine.offline.corrections`) on sentences
written for this test: which statements give someone's attribute a word value."""

from __future__ import annotations

from datetime import UTC, datetime

from dreaming.engine.offline.corrections import Overruled, attribute_of, one_thing, updated_text
from dreaming.engine.offline.slots import Update
from dreaming.engine.offline.working_set import WorkingMemory


def test_only_someones_attribute_in_the_first_sentence_is_a_slot_with_a_word_value() -> None:
    assert attribute_of("[2025-02-03] Ivo's sister is a pharmacist. She works nights.") == (
        frozenset({"ivo", "sister"}),
        "a pharmacist",
    )
    # a thing and a description of it: two descriptions of one thing are both true
    assert attribute_of("The harbour cafe is a lovely spot for lunch. It opens at 8.") is None
    assert attribute_of("The new climbing gym is one of Ivo's favourite places.") is None
    # an aim is one of several a person holds at once
    assert attribute_of("Ivo's big goal is to sail around Crete.") is None
    assert attribute_of("Ivo's big goal is a sub-4 marathon.") is not None  # a value, not an aim to do


SAID = datetime(2025, 4, 2, 9, 0, tzinfo=UTC)


def test_a_new_value_is_never_swapped_into_the_older_sentence() -> None:
    # One sentence with another fact beside the value: swapping the day in would write a sentence
    # nobody said; the new statement replaces it (its memory keeps the old sentence as history).
    gym = Update(
        "Raf's gym sessions are on Mondays at 7 PM, and Raf has two dogs.",
        "Raf's gym sessions moved to Wednesdays at 7 PM.",
        0.9,
        ("Mondays", "7 PM"),
        ("Wednesdays", "7 PM"),
        ("day", "clock"),
        ("day", "clock"),
    )
    assert updated_text(gym.old_sentence, gym, SAID) is None
    # Other sentences stay, each as someone said it; the stale one gives way to the new statement's own.
    kiln = Update(
        "The pottery kiln fires at 1,200 degrees.",
        "The pottery kiln now fires at 1,240 degrees for stoneware.",
        0.93,
        ("1,200 degrees",),
        ("1,240 degrees",),
        ("unit:degre",),
        ("unit:degre",),
    )
    edited = updated_text("[2025-03-01] The pottery kiln fires at 1,200 degrees. Odile glazes on Fridays.", kiln, SAID)
    assert edited == "[2025-04-02] The pottery kiln now fires at 1,240 degrees for stoneware. Odile glazes on Fridays."


def _rival(key: str, text: str, day: int, old: str, bare: bool) -> Overruled:
    memory = WorkingMemory(key, text, frozenset(), (f"m{key}",), datetime(2025, 3, day, tzinfo=UTC))
    return Overruled(memory, Update(text, "The deadline was extended to June 9.", 0.8, (old,), ("June 9",), bare=bare))


def test_a_newer_value_replaces_one_things_values() -> None:
    will = _rival("will", "Ivo's deadline to finish the will is May 15.", 1, "May 15", bare=True)
    course = _rival("course", "Ivo's pottery course has a deadline of April 30.", 2, "April 30", bare=True)
    grant = _rival("grant", "The grant application deadline is June 2.", 3, "June 2", bare=False)
    asked = _rival("asked", "Ivo asked the assistant to plan for June 2, 2025.", 4, "June 2, 2025", bare=True)
    said = _rival("said", "The assistant said: the deadline is April 30.", 5, "April 30", bare=True)
    # a rival that says which thing: it alone, and a record of words stating its old value
    assert [r.memory.key for r in one_thing([will, course, grant, asked, said])] == ["grant", "asked"]
    # none says which: the thing last spoken of
    assert [r.memory.key for r in one_thing([will, course])] == ["course"]
    assert one_thing([grant]) == [grant]
