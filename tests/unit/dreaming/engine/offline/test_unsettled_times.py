"""A message that says an occasion was moved or called off without its new time marks the time
memory gave it as no longer current (`Revisions.unsettle`), whichever pass wrote that memory, and
touches nothing else."""

from __future__ import annotations

from language.dates import without_stamp
from schemas import CreateAction, SupersedeAction
from tests.unit.dreaming.engine.offline.engine_plans import of_kind, propose
from tests.unit.snapshot_factory import build_snapshot, turn_row

LENA = "test/assistant/lena"
BOOKED = turn_row(
    LENA,
    "s1",
    0,
    "user",
    "My dentist appointment is on June 3 at 10 AM, at the clinic on Oak Street.",
    "2026-05-20T09:00:00+00:00",
)
RECITAL = turn_row(LENA, "s1", 1, "user", "My niece's piano recital is on June 5.", "2026-05-20T09:01:00+00:00")


def replacements(
    events: list[dict], adds: list[dict] | None = None, *, pending: bool = True
) -> tuple[dict[str, str], list[str]]:
    """(old text -> the text that replaced it) and the plan's notes; `adds` are stored memories
    an earlier pass kept when not `pending`."""
    result = propose(build_snapshot(LENA, events, adds or [], pending=pending))
    texts = {a.ref: without_stamp(a.text) for a in of_kind(result, CreateAction)}
    for add in adds or []:
        texts[add["memory_id"]] = add["text"]
    return {texts[a.target]: texts[a.replacement] for a in of_kind(result, SupersedeAction)}, list(result.notes)


def test_a_postponed_appointment_keeps_its_old_time_marked_as_no_longer_current() -> None:
    moved = turn_row(
        LENA,
        "s2",
        0,
        "user",
        "Ugh, the dentist appointment got postponed, they'll call me.",
        "2026-05-28T09:00:00+00:00",
    )
    replaced, _ = replacements([BOOKED, RECITAL, moved])
    assert replaced == {
        "The user's dentist appointment is on June 3 at 10 AM, at the clinic on Oak Street.": (
            "The user's dentist appointment is on June 3 at 10 AM, at the clinic on Oak Street "
            "(since postponed, as said on 2026-05-28; the new date not given)."
        )
    }


def test_it_in_a_question_about_the_new_date_is_the_occasion_named_before_it() -> None:
    asked = turn_row(
        LENA,
        "s2",
        0,
        "user",
        "I don't want to miss my niece's piano recital, so what date has it been moved to?",
        "2026-05-28T09:00:00+00:00",
    )
    replaced, _ = replacements([BOOKED, RECITAL, asked])
    assert list(replaced) == ["The user's niece's piano recital is on June 5."]
    assert (
        "(since moved, as said on 2026-05-28; the new date not given)"
        in replaced["The user's niece's piano recital is on June 5."]
    )


def test_a_time_an_earlier_pass_stored_is_marked_too() -> None:
    add = {
        "scope": LENA,
        "memory_id": "lena-dentist",
        "text": "Lena's dentist appointment is on June 3",
        "ts": "2026-05-20T09:00:00+00:00",
    }
    cancelled = turn_row(LENA, "s2", 0, "user", "The dentist appointment was cancelled.", "2026-05-28T09:00:00+00:00")
    replaced, _ = replacements([cancelled], [add], pending=False)
    assert replaced == {
        "Lena's dentist appointment is on June 3": (
            "Lena's dentist appointment is on June 3 (since cancelled, as said on 2026-05-28)."
        )
    }


def test_asked_supposed_or_denied_changes_mark_nothing() -> None:
    for said in (
        "Has the dentist appointment been postponed?",
        "If the dentist appointment is postponed, remind me.",
        "The dentist appointment wasn't cancelled after all.",
        "The dentist appointment has been moved to June 10.",  # a new date: an update, read elsewhere
    ):
        replaced, _ = replacements([BOOKED, turn_row(LENA, "s2", 0, "user", said, "2026-05-28T09:00:00+00:00")])
        assert "(since" not in " ".join(replaced.values()), said


def test_two_times_for_one_name_are_left_alone_with_a_note() -> None:
    second = turn_row(
        LENA,
        "s1",
        2,
        "user",
        "I have another dentist appointment on July 8 for a cleaning.",
        "2026-05-20T09:02:00+00:00",
    )
    cancelled = turn_row(LENA, "s2", 0, "user", "The dentist appointment was cancelled.", "2026-05-28T09:00:00+00:00")
    replaced, notes = replacements([BOOKED, second, cancelled])
    assert "(since" not in " ".join(replaced.values())
    assert any("different times" in note for note in notes)


def test_the_new_date_said_later_updates_the_marked_memory() -> None:
    moved = turn_row(LENA, "s2", 0, "user", "The dentist appointment got postponed.", "2026-05-28T09:00:00+00:00")
    settled = turn_row(
        LENA, "s3", 0, "user", "My dentist appointment is now on June 12 at 10 AM.", "2026-06-01T09:00:00+00:00"
    )
    replaced, _ = replacements([BOOKED, moved, settled])
    marked = (
        "The user's dentist appointment is on June 3 at 10 AM, at the clinic on Oak Street "
        "(since postponed, as said on 2026-05-28; the new date not given)."
    )
    assert marked in replaced
    assert "June 12" in replaced[marked]
