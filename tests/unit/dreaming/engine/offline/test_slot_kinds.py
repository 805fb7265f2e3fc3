"""The kinds a frame's values are given and sought under (`slot_rivalry.kinded_frames`) only narrow
the rivalry check: every pair of frames `rivalry_of` calls rivals shares a kind. Checked on every
ordered pair of the sentences written for the slot tests, rivals and look-alikes alike."""

from __future__ import annotations

import itertools

from dreaming.engine.offline.slot_rivalry import kinded_frames, rivalry_of
from language.changes import normal_values
from language.dates import without_stamp
from tests.unit.dreaming.engine.offline import test_slots

TABLES = [value for name, value in vars(test_slots).items() if name.isupper() and isinstance(value, list)]
SENTENCES = sorted({text for table in TABLES for pair in table for text in pair})


def _subject(text: str) -> str | None:
    return next((name for name in ("Jon", "Gina", "Melanie", "Caroline") if name in text), None)


def test_the_slot_tables_are_read() -> None:
    assert len(TABLES) >= 10 and len(SENTENCES) >= 150


def test_frames_that_share_no_kind_are_never_rivals() -> None:
    rivals = 0
    for new, old in itertools.permutations(SENTENCES, 2):
        subject = _subject(old)
        stated_now = normal_values(without_stamp(new))
        for fresh, _, sought in kinded_frames(new, subject):
            for stale, given, _ in kinded_frames(old, subject):
                if rivalry_of(fresh, stale, stated_now) is not None:
                    rivals += 1
                    assert sought & given, f"{old!r} -> {new!r}: rivals that share no kind"
    assert rivals >= 100  # the tables hold rivals of every kind the filter lets through


def _kinds(text: str, side: int) -> set[str]:
    return {kind for frame in kinded_frames(text, None) for _, _, kind in frame[side]}


def test_a_bare_number_and_a_count_in_units_meet_by_the_unit_word_beside_the_number() -> None:
    bare, counted = "The repo count of commits reached 150.", "The repo has 150 commits."
    assert "unit:commit" in _kinds(bare, 1) & _kinds(counted, 2)  # an older bare number, a newer count
    assert "unit:commit" in _kinds(counted, 1) & _kinds(bare, 2)  # and the other way round
    assert "unit:commit" not in _kinds("The repo count of tags reached 150.", 1)


def test_a_count_of_ee_people_and_of_the_people_a_verb_names_meet_only_when_the_newer_is_said_to_be_new() -> None:
    assert "people:counted" in _kinds("The number of mentees grew to 7.", 2)
    assert "people:counted" in _kinds("The user is mentoring 5 women.", 1)
    assert "people:ee" in _kinds("The user is now mentoring 7 women.", 2)
    assert not {"people:ee", "people:counted"} & _kinds("The user has 7 mentees.", 2)


def test_a_day_not_said_to_be_new_seeks_no_older_day() -> None:
    [(_, _, sought)] = kinded_frames("The user went to the dentist on May 3.", None)
    assert not any(kind == "day" for _, _, kind in sought)
    [(_, _, sought)] = kinded_frames("The user moved the dentist visit to May 3.", None)
    assert any(kind == "day" for _, _, kind in sought)
