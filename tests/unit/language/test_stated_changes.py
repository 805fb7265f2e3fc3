"""`language.stated_changes`: the value a correction changes, and a change only planned, on
sentences written for this test."""

from __future__ import annotations

import pytest

from language.stated_changes import ValueChange, parse_change, planned_change


@pytest.mark.parametrize(
    ("clause", "new", "old"),
    [
        ("Correction: I live in York now, not Leeds.", "York", "Leeds"),  # "now" is not the value
        ("aisle seats instead of window seats", "aisle", "window"),
        ("I moved my savings from Northbank to Riverbank.", "Riverbank", "Northbank"),
        ("It is now, not later", "now", "later"),  # a time word on its own is still read
        # a shared last word that closes a value is the value's: a time of day, a day of a month
        ("I open the shop at 6 AM now instead of 7 AM.", "6 AM", "7 AM"),
        ("The recital is on June 4 instead of May 4.", "June 4", "May 4"),
    ],
)
def test_the_values_of_a_stated_change(clause: str, new: str, old: str) -> None:
    change = parse_change(clause)
    assert change is not None and (change.new, change.old) == (new, old)


def test_a_change_with_an_unknown_old_value() -> None:
    assert parse_change("I switched to decaf last month") == ValueChange(new="decaf", old=None)


@pytest.mark.parametrize(
    ("clause", "planned"),
    [
        ("I'm trying to switch from Trello to Asana for the sprint board", True),
        ("We are thinking about moving from Bristol to Bath next year", True),
        ("I'd like to change from the 6 AM class to the evening one", True),
        ("We switched from Trello to Asana for the sprint board", False),
        ("I had to move from the 6 AM class to the evening one", False),
        ("I'm going to Porto, not Faro", False),  # a plan corrected, not a change planned
    ],
)
def test_a_change_someone_means_to_make_is_not_made(clause: str, planned: bool) -> None:
    assert planned_change(clause) is planned
