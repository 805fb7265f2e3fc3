"""Rewrite relative time ("next Tuesday", "the end of next month") as absolute dates.

A memory read weeks later must not say "next Tuesday": the expression is resolved against the
timestamp of the message it came from. Conventions (documented because people disagree):

- "next <weekday>" is that weekday in the following calendar week (weeks start on Monday), so on
  Thursday 2026-03-05 "next Tuesday" is 2026-03-10 and "next Friday" is 2026-03-13.
- "this <weekday>" is the first such day on or after today; "last <weekday>" the most recent one
  strictly before today; "coming <weekday>" the first one strictly after today.
- "next/last/this week" is the week starting on that Monday; "next/last/this month" the calendar
  month; "the end of (the|this|next|last) month/year" its last day.
- Bare weekdays ("on Tuesday") are left alone: past or future cannot be told without tense.
- Possessives ("next week's meeting") are left alone rather than rewritten clumsily.

With `annotate=True` the original wording is kept in parentheses ("on 2026-03-10 (next
Tuesday)"); such an annotated expression is recognised and never rewritten twice.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta
from typing import NamedTuple

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}
_PREPOSITIONS = ("on", "by", "before", "after", "until", "till", "since", "from", "at", "for")
_WEEKDAY = "|".join(WEEKDAYS)
_NUMBER = r"\d{1,3}|" + "|".join(NUMBER_WORDS)

_EXPRESSION = re.compile(
    rf"(?:\b(?P<prep>{'|'.join(_PREPOSITIONS)})\s+)?"
    r"\b(?P<expr>"
    r"(?:the\s+)?day\s+after\s+tomorrow|(?:the\s+)?day\s+before\s+yesterday"
    r"|today|tonight|tomorrow|yesterday"
    r"|(?:the\s+)?end\s+of\s+(?:(?P<end_rel>the|this|next|last)\s+)?(?P<end_unit>month|year)"
    rf"|(?P<wd_rel>next|last|this|coming)\s+(?P<weekday>{_WEEKDAY})"
    r"|(?P<period_rel>next|last|this)\s+(?P<period>week|month|year)"
    rf"|in\s+(?P<in_n>{_NUMBER})\s+(?P<in_unit>day|week|month|year)s?"
    rf"|(?P<ago_n>{_NUMBER})\s+(?P<ago_unit>day|week|month|year)s?\s+ago"
    r")\b(?!['\u2019]s)",
    re.IGNORECASE,
)
# An expression already annotated by an earlier pass: "2026-03-10 (next Tuesday)".
_ANNOTATED_BEFORE = re.compile(r"(?:\d{4}-\d{2}-\d{2}|\b\d{4})\s*\($")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n)$")


class TimeRewrite(NamedTuple):
    text: str
    changed: bool


def add_months(day: date, months: int) -> date:
    """Calendar month arithmetic, clamping to the month's last day (Jan 31 + 1 month = Feb 28/29)."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last))


def end_of_month(day: date) -> date:
    return day.replace(day=calendar.monthrange(day.year, day.month)[1])


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _weekday_date(today: date, relation: str, weekday: int) -> date:
    if relation == "next":
        return _monday(today) + timedelta(days=7 + weekday)
    if relation == "last":
        return today - timedelta(days=(today.weekday() - weekday) % 7 or 7)
    if relation == "coming":
        return today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)
    return today + timedelta(days=(weekday - today.weekday()) % 7)  # this


def _shift(today: date, count: int, unit: str) -> date:
    if unit == "day":
        return today + timedelta(days=count)
    if unit == "week":
        return today + timedelta(weeks=count)
    if unit == "month":
        return add_months(today, count)
    return add_months(today, 12 * count)


def _count(word: str) -> int:
    return int(word) if word.isdigit() else NUMBER_WORDS[word.lower()]


def _resolve(match: re.Match[str], today: date) -> tuple[str, str]:
    """(kind, absolute text): kind is "day", "end", "week", "month" or "year"."""
    expr = match.group("expr").lower()
    offset = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1}.get(expr)
    if offset is None and "day after tomorrow" in expr:
        offset = 2
    if offset is None and "day before yesterday" in expr:
        offset = -2
    if offset is not None:
        return "day", (today + timedelta(days=offset)).isoformat()
    if match.group("end_unit"):
        shift = {"next": 1, "last": -1}.get((match.group("end_rel") or "this").lower(), 0)
        if match.group("end_unit").lower() == "month":
            return "end", end_of_month(add_months(today.replace(day=1), shift)).isoformat()
        return "end", date(today.year + shift, 12, 31).isoformat()
    if match.group("weekday"):
        weekday = WEEKDAYS.index(match.group("weekday").lower())
        return "day", _weekday_date(today, match.group("wd_rel").lower(), weekday).isoformat()
    if match.group("period"):
        shift = {"next": 1, "last": -1, "this": 0}[match.group("period_rel").lower()]
        period = match.group("period").lower()
        if period == "week":
            return "week", f"the week of {(_monday(today) + timedelta(weeks=shift)).isoformat()}"
        if period == "month":
            month = add_months(today.replace(day=1), shift)
            return "month", f"{calendar.month_name[month.month]} {month.year}"
        return "year", str(today.year + shift)
    if match.group("in_unit"):
        return "day", _shift(today, _count(match.group("in_n")), match.group("in_unit").lower()).isoformat()
    return "day", _shift(today, -_count(match.group("ago_n")), match.group("ago_unit").lower()).isoformat()


def _render(kind: str, absolute: str, prep: str | None, at_start: bool) -> str:
    """Keep the speaker's preposition; add the one a date needs when there was none."""
    if prep:
        return f"{'on' if prep.lower() == 'at' else prep} {absolute}"
    if at_start or kind == "end":
        return absolute[0].upper() + absolute[1:] if at_start else absolute
    return f"{'on' if kind == 'day' else 'in'} {absolute}"


def rewrite_relative_time(text: str, reference: datetime | date, *, annotate: bool = False) -> TimeRewrite:
    """Replace every relative expression in `text` by the absolute date it meant at `reference`."""
    today = reference.date() if isinstance(reference, datetime) else reference
    changed = False

    def replace(match: re.Match[str]) -> str:
        nonlocal changed
        before = text[: match.start()]
        if _ANNOTATED_BEFORE.search(before) and text[match.end() : match.end() + 1] == ")":
            return match.group(0)
        kind, absolute = _resolve(match, today)
        rendered = _render(kind, absolute, match.group("prep"), bool(_SENTENCE_START.search(before)))
        changed = True
        return f"{rendered} ({match.group('expr')})" if annotate else rendered

    rewritten = _EXPRESSION.sub(replace, text)
    return TimeRewrite(rewritten, changed)


def has_relative_time(text: str) -> bool:
    return rewrite_relative_time(text, date(2000, 1, 1)).changed
