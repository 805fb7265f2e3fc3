"""Relative time made absolute from the message's own timestamp."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from language.dates import add_months, has_relative_time, rewrite_relative_time

THURSDAY = date(2026, 3, 5)


def resolved(text: str, on: date | datetime) -> str:
    return rewrite_relative_time(text, on).text


@pytest.mark.parametrize(
    ("text", "on", "expected"),
    [
        ("My flight to Lisbon is next Tuesday", THURSDAY, "My flight to Lisbon is on 2026-03-10"),
        ("The deadline is the end of next month.", date(2026, 4, 1), "The deadline is 2026-05-31."),
        ("It is due by the end of the month", date(2026, 2, 10), "It is due by 2026-02-28"),
        ("It is due by the end of this month", date(2028, 2, 10), "It is due by 2028-02-29"),  # leap year
        ("Pay at the end of next month", date(2027, 12, 15), "Pay on 2028-01-31"),  # year rollover
        ("Pay at the end of next month", date(2028, 1, 31), "Pay on 2028-02-29"),
        ("Closing the books at the end of the year", THURSDAY, "Closing the books on 2026-12-31"),
        ("We launch tomorrow", date(2026, 12, 31), "We launch on 2027-01-01"),
        ("It broke yesterday", date(2026, 1, 1), "It broke on 2025-12-31"),
        ("It arrives the day after tomorrow", THURSDAY, "It arrives on 2026-03-07"),
        ("I moved here last month", date(2026, 1, 15), "I moved here in December 2025"),
        ("The audit is next month", date(2026, 12, 15), "The audit is in January 2027"),
        ("The office opens next year", THURSDAY, "The office opens in 2027"),
        ("We met last year", THURSDAY, "We met in 2025"),
        ("The review happens next week", THURSDAY, "The review happens the week after 2026-03-05"),
        ("The review happened last week", THURSDAY, "The review happened the week before 2026-03-05"),
        ("We met the other day", THURSDAY, "We met a few days before 2026-03-05"),
        ("We went hiking last summer", THURSDAY, "We went hiking in summer 2025"),
        ("Last night was loud", THURSDAY, "2026-03-04 was loud"),
        ("The parcel comes in 3 days", THURSDAY, "The parcel comes on 2026-03-08"),
        ("The parcel comes in two weeks", THURSDAY, "The parcel comes on 2026-03-19"),
        ("The renewal is in 1 month", date(2026, 1, 31), "The renewal is on 2026-02-28"),
        ("The renewal is in a year", date(2028, 2, 29), "The renewal is on 2029-02-28"),
        ("I called them 10 days ago", THURSDAY, "I called them on 2026-02-23"),
        ("It started a week ago", THURSDAY, "It started on 2026-02-26"),
        ("Tomorrow works for me", THURSDAY, "2026-03-06 works for me"),
        ("I have been waiting since last Friday", THURSDAY, "I have been waiting since 2026-02-27"),
    ],
)
def test_expressions_resolve_against_the_message_date(text: str, on: date, expected: str) -> None:
    assert resolved(text, on) == expected


@pytest.mark.parametrize(
    ("relation", "expected"),
    [
        ("next", date(2026, 3, 12)),
        ("this", date(2026, 3, 5)),
        ("last", date(2026, 2, 26)),
        ("coming", date(2026, 3, 12)),
    ],
)
def test_weekday_equal_to_today(relation: str, expected: date) -> None:
    assert resolved(f"Meet {relation} Thursday", THURSDAY) == f"Meet on {expected.isoformat()}"


@pytest.mark.parametrize(
    ("said_on", "text", "expected"),
    [
        (date(2026, 3, 8), "next Monday", "2026-03-09"),  # Sunday: next week's Monday is tomorrow
        (date(2026, 3, 9), "last Friday", "2026-03-06"),  # Monday: the Friday just gone
        (date(2026, 3, 5), "next Friday", "2026-03-13"),  # Thursday: Friday of next week, not tomorrow
        (date(2026, 3, 5), "this Friday", "2026-03-06"),
        (date(2026, 12, 30), "next Monday", "2027-01-04"),  # across the year
        (date(2028, 2, 27), "next Tuesday", "2028-02-29"),  # lands on a leap day
    ],
)
def test_weekday_conventions(said_on: date, text: str, expected: str) -> None:
    assert resolved(f"It is {text}", said_on) == f"It is on {expected}"


def test_the_timestamp_date_is_taken_in_its_own_timezone() -> None:
    late_evening_in_la = datetime(2026, 3, 5, 23, 30, tzinfo=timezone(timedelta(hours=-8)))
    assert resolved("The flight is tomorrow", late_evening_in_la) == "The flight is on 2026-03-06"


def test_annotate_keeps_the_original_wording_and_is_idempotent() -> None:
    first = rewrite_relative_time("Ava's flight is next Tuesday", THURSDAY, annotate=True)
    assert first == ("Ava's flight is on 2026-03-10 (next Tuesday)", True)
    again = rewrite_relative_time(first.text, date(2026, 4, 20), annotate=True)
    assert again == (first.text, False)
    month = rewrite_relative_time("Ava moved last month", THURSDAY, annotate=True).text
    assert month == "Ava moved in February 2026 (last month)"
    assert rewrite_relative_time(month, date(2027, 1, 1), annotate=True).changed is False


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Yesterday I repainted the shed.", "On 2026-03-04 (yesterday) I repainted the shed."),
        ("Last month, Ava moved to Porto.", "In February 2026 (last month), Ava moved to Porto."),
        ("Great news! Next Friday my brother visits.", "Great news! On 2026-03-13 (next Friday) my brother visits."),
        ("Tomorrow works for me.", "2026-03-06 (tomorrow) works for me."),  # the time is the subject
        ("Last weekend was quiet.", "The weekend before 2026-03-05 (last weekend) was quiet."),
    ],
)
def test_a_sentence_opening_on_a_time_reads_as_one(text: str, expected: str) -> None:
    assert rewrite_relative_time(text, THURSDAY, annotate=True).text == expected


@pytest.mark.parametrize(
    "text",
    [
        "My flight is on Tuesday",  # bare weekday: past or future is unknown
        "An extra day ago-ish feeling",  # "a day ago" inside a word is not an expression
        "Ava prefers aisle seats",
        "",
    ],
)
def test_text_without_a_resolvable_expression_is_unchanged(text: str) -> None:
    assert rewrite_relative_time(text, THURSDAY) == (text, False)
    assert has_relative_time(text) is False


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Prepare next week's meeting notes", "Prepare the week after 2026-03-05's meeting notes"),
        ("Can't wait for tomorrow's opening", "Can't wait for 2026-03-06's opening"),
        ("Yesterday's class was fun", "2026-03-04's class was fun"),
    ],
)
def test_possessives_are_dated_too(text: str, expected: str) -> None:
    assert resolved(text, THURSDAY) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The move is in the first week of next month", "The move is in the first week of April 2026"),
        ("They pushed the recital to next Friday", "They pushed the recital to 2026-03-13"),
        ("Most of next year is booked", "Most of 2027 is booked"),
        ("I'm thinking about next summer already", "I'm thinking about summer 2026 already"),
        ("The recital is next Friday", "The recital is on 2026-03-13"),  # none of its own: one is added
    ],
)
def test_a_preposition_of_the_sentence_s_own_takes_no_second_one(text: str, expected: str) -> None:
    assert resolved(text, THURSDAY) == expected


def test_several_expressions_in_one_text() -> None:
    text = "I fly out tomorrow and come back in 2 weeks."
    assert resolved(text, THURSDAY) == "I fly out on 2026-03-06 and come back on 2026-03-19."


def test_add_months_clamps_to_month_end() -> None:
    assert add_months(date(2026, 1, 31), 1) == date(2026, 2, 28)
    assert add_months(date(2028, 1, 31), 1) == date(2028, 2, 29)
    assert add_months(date(2026, 11, 30), 3) == date(2027, 2, 28)
    assert add_months(date(2026, 3, 31), -1) == date(2026, 2, 28)


@pytest.mark.parametrize("when", [datetime(9999, 12, 31, 23, 0), datetime(1, 1, 1, 0, 0), datetime(9999, 12, 25)])
@pytest.mark.parametrize(
    "text",
    ["I fly to Oslo tomorrow", "yesterday I left", "in three weeks", "next month", "last year", "the end of next year"],
)
def test_dates_outside_the_calendar_leave_the_words(text: str, when: datetime) -> None:
    """A message from year 9999 or 0001 is data; resolving it must never raise."""
    rewritten = rewrite_relative_time(text, when)
    assert isinstance(rewritten.text, str) and rewritten.text
