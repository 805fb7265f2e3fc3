"""Occasions said to be moved or called off without a new time (`language.unsettled`)."""

from __future__ import annotations

import pytest

from language.unsettled import Unsettled, unsettled_occasions


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("The dentist appointment got postponed because of the storm.", ("The dentist appointment", "postponed")),
        ("My 3 PM call with Dana was cancelled.", ("My 3 PM call with Dana", "cancelled")),
        ("I told my boss the launch party was called off, and she was sad.", ("the launch party", "cancelled")),
        (
            "The meeting with the landlord about the heater got moved.",
            ("The meeting with the landlord about the heater", "moved"),
        ),
        ("Sadly the choir rehearsal has just been pushed back again.", ("the choir rehearsal", "postponed")),
        # "it" is read from the words before it, with the phrases that qualify what it names
        (
            "I keep thinking about the book club meetup at the library, so when was it rescheduled to?",
            ("the book club meetup at the library", "rescheduled"),
        ),
        (
            "We booked the pottery workshop for Saturday. Sadly it has been cancelled due to the flood.",
            ("the pottery workshop for Saturday", "cancelled"),
        ),
        ("the review of the quarterly budget was postponed", ("the review of the quarterly budget", "postponed")),
    ],
)
def test_a_time_left_unsaid_names_its_occasion(message: str, expected: tuple[str, str]) -> None:
    assert unsettled_occasions(message) == [Unsettled(*expected)]


@pytest.mark.parametrize(
    "message",
    [
        "The team offsite has been pushed back to May 9.",  # the new time is given: an update
        "The ferry was delayed by two hours.",
        "The vet visit was moved until after the holidays.",
        "If the recital is postponed, I will tell you.",  # supposed
        "The demo wasn't cancelled.",  # denied
        "The demo was never cancelled, whatever they say.",
        "Has the demo been pushed back too?",  # asked
        "I'm worried that the picnic might be cancelled.",
        "I was moved by the speech.",  # no occasion named
        "They postponed it.",  # no passive, nothing says which occasion
    ],
)
def test_no_time_left_unsaid(message: str) -> None:
    assert unsettled_occasions(message) == []


def test_the_head_is_the_noun_before_what_qualifies_it() -> None:
    assert Unsettled("the book club meetup at the library", "moved").head == "meetup"
    assert Unsettled("My 3 PM call with Dana", "cancelled").head == "call"
