"""Rewrite relative time ("next Tuesday", "the end of next month") as absolute dates.

A memory read weeks later must not say "next Tuesday": the expression is resolved against the
timestamp of the message it came from. Conventions (documented because people disagree):

- "next <weekday>" is that weekday in the following calendar week (weeks start on Monday), so on
  Thursday 2026-03-05 "next Tuesday" is 2026-03-10 and "next Friday" is 2026-03-13.
- "this <weekday>" is the first such day on or after today; "last <weekday>" the most recent one
  strictly before today; "coming <weekday>" the first one strictly after today.
- "last/next week" is "the week before/after" the message's date, "this week" "the week of" it;
  weekends likewise; "next/last/this month" the calendar month; "last/this/next year" the year;
  "last summer" the most recent summer that has ended; "the end of (the|this|next|last)
  month/year" its last day; "last night", "this morning" the day; "a few days/weeks ago" and
  "the other day" stay vague but anchored ("a few days before 2023-05-08").
- Bare weekdays ("on Tuesday") are left alone: past or future cannot be told without tense.
- Possessives keep their shape: "tomorrow's opening" said on 2023-06-19 is "2023-06-20's opening",
  "last week's scrimmage" "the week before 2023-12-19's scrimmage" (a little clumsy, never undated).
- A date the calendar cannot hold (year 0 or 10000) leaves the expression as it was: a message
  dated 9999-12-31 saying "tomorrow" is data to keep, not a reason to fail.

With `annotate=True` the original wording is kept in parentheses ("on 2026-03-10 (next
Tuesday)"), except after a possessive ("2026-03-10's meeting"); such an annotated expression is
recognised and never rewritten twice.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta
from typing import NamedTuple

from language.text_caches import text_cache

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
_PREPOSITIONS = ("on", "by", "before", "after", "until", "till", "since", "from", "at", "for")
_WEEKDAY = "|".join(WEEKDAYS)
_NUMBER = r"\d{1,3}|" + "|".join(NUMBER_WORDS)

_EXPRESSION = re.compile(
    rf"(?:\b(?P<prep>{'|'.join(_PREPOSITIONS)})\s+)?"
    r"\b(?P<expr>"
    r"(?:the\s+)?day\s+after\s+tomorrow|(?:the\s+)?day\s+before\s+yesterday"
    r"|today|tonight|tomorrow|yesterday|last\s+night|this\s+(?:morning|afternoon|evening)"
    r"|(?:the\s+)?other\s+day|(?:a\s+few|a\s+couple\s+of|several)\s+(?P<few_unit>day|week|month|year)s\s+ago"
    r"|(?P<wk_rel>next|last|this(?:\s+past)?|this\s+coming)\s+(?P<wk_unit>week|weekend)"
    r"|(?P<season_rel>last|this|next)\s+(?P<season>summer|spring|autumn|fall)"
    r"|(?:the\s+)?end\s+of\s+(?:(?P<end_rel>the|this|next|last)\s+)?(?P<end_unit>month|year)"
    rf"|(?P<wd_rel>next|last|this|coming)\s+(?P<weekday>{_WEEKDAY})"
    r"|(?P<period_rel>next|last|this)\s+(?P<period>month|year)"
    rf"|in\s+(?P<in_n>{_NUMBER})\s+(?P<in_unit>day|week|month|year)s?"
    rf"|(?P<ago_n>{_NUMBER})\s+(?P<ago_unit>day|week|month|year)s?\s+ago"
    r")\b(?P<poss>['\u2019]s\b)?",
    re.IGNORECASE,
)
# "today" meaning "nowadays": "kids today", "in today's world", "the music of today". Said of a
# whole era, not of the day the message was written, so it is never turned into a date.
_ERA_BEFORE = re.compile(
    r"(?i)\b(?:of|people|kids|children|teens|teenagers|youth|society|everyone|everybody|folks|students|parents"
    r"|families|artists|musicians|players|companies|businesses|workers|consumers|women|men|adults)\s+$"
)
_ERA_AFTER = re.compile(
    r"(?i)^['\u2019]s\s+(?:world|society|age|era|culture|economy|market|youth|generation|climate|times|kids"
    r"|children|standards|technology|digital|fast-paced|modern|busy|online)\b"
)


def means_nowadays(text: str, start: int, end: int) -> bool:
    """Whether the "today" at text[start:end] means "nowadays" (`_ERA_BEFORE`, `_ERA_AFTER`)."""
    if text[start:end].lower() != "today":
        return False
    return bool(_ERA_BEFORE.search(text[:start]) or _ERA_AFTER.match(text[end:]))


# An expression already annotated by an earlier pass: "2026-03-10 (next Tuesday)".
_ANNOTATED_BEFORE = re.compile(r"(?:\d{4}-\d{2}-\d{2}|\b\d{4})\s*\($")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n)$")
# After a sentence's opening time, what shows the time is not its subject: a comma, or the subject
# that follows ("Yesterday I …", "Last month Ana …", "Tomorrow the shop …").
_OPENS_ON_TIME = re.compile(
    r"\s*,|\s+(?:(?i:i|i'm|i've|i'd|we|we're|we've|he|she|they|it|my|our|his|her|their|the|a|an)\b|[A-Z])"
)
_PREPOSITION_BEFORE = re.compile(
    r"(?i)\b(?:of|in|into|during|through|throughout|to|within|over|across|around|about|between|past|like)\s+$"
)
"""A preposition of the speaker's own ("the first week of next month", "moved to next year"): the
date takes no second one."""


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


_SEASON_END_MONTH = {"spring": 5, "summer": 8, "autumn": 11, "fall": 11}


def _season_year(today: date, relation: str, season: str) -> int:
    """ "last summer" is the most recent summer that has ended; "this summer" the one of this year."""
    ended = today.month > _SEASON_END_MONTH[season]
    if relation == "last":
        return today.year if ended else today.year - 1
    if relation == "next":
        return today.year + 1 if ended else today.year
    return today.year


def _resolve(match: re.Match[str], today: date) -> tuple[str, str]:
    """(kind, absolute text): kind is "day", "end", "week", "month", "year" or "vague"."""
    expr = " ".join(match.group("expr").lower().split())
    offset = {
        "today": 0,
        "tonight": 0,
        "tomorrow": 1,
        "yesterday": -1,
        "last night": -1,
        "this morning": 0,
        "this afternoon": 0,
        "this evening": 0,
    }.get(expr)
    if offset is None and "day after tomorrow" in expr:
        offset = 2
    if offset is None and "day before yesterday" in expr:
        offset = -2
    if offset is not None:
        return "day", (today + timedelta(days=offset)).isoformat()
    if expr.endswith("other day"):
        return "vague", f"a few days before {today.isoformat()}"
    if match.group("few_unit"):
        unit = match.group("few_unit").lower()
        return "vague", f"a few {unit}s before {today.year if unit == 'year' else today.isoformat()}"
    if match.group("wk_unit"):
        relation = match.group("wk_rel").lower()
        word = (
            "after"
            if "next" in relation or "coming" in relation
            else "before"
            if "last" in relation or "past" in relation
            else "of"
        )
        return "vague", f"the {match.group('wk_unit').lower()} {word} {today.isoformat()}"
    if match.group("season"):
        season = match.group("season").lower()
        return "month", f"{season} {_season_year(today, match.group('season_rel').lower(), season)}"
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
        if match.group("period").lower() == "month":
            month = add_months(today.replace(day=1), shift)
            return "month", f"{calendar.month_name[month.month]} {month.year}"
        return "year", str(date(today.year + shift, 1, 1).year)
    if match.group("in_unit"):
        return "day", _shift(today, _count(match.group("in_n")), match.group("in_unit").lower()).isoformat()
    return "day", _shift(today, -_count(match.group("ago_n")), match.group("ago_unit").lower()).isoformat()


def _render(kind: str, absolute: str, prep: str | None, at_start: bool, opens_on_time: bool = False) -> str:
    """Keep the speaker's preposition; add the one a date needs when there was none, also at the
    start of a sentence that opens on the time ("On 2024-03-02 I …", "In May 2024, we …"), but not
    where the time is the subject ("2024-03-04 works for me")."""
    if kind == "vague":
        return f"{prep} {absolute}" if prep else (absolute[0].upper() + absolute[1:] if at_start else absolute)
    if prep:
        return f"{'on' if prep.lower() == 'at' else prep} {absolute}"
    if kind == "end" or (at_start and not opens_on_time):
        return absolute[0].upper() + absolute[1:] if at_start else absolute
    preposition = "on" if kind == "day" else "in"
    return f"{preposition.title() if at_start else preposition} {absolute}"


def rewrite_relative_time(text: str, reference: datetime | date, *, annotate: bool = False) -> TimeRewrite:
    """Replace every relative expression in `text` by the absolute date it meant at `reference`."""
    return _rewritten(text, reference.date() if isinstance(reference, datetime) else reference, annotate)


@text_cache(maxsize=32_768)
def _rewritten(text: str, today: date, annotate: bool) -> TimeRewrite:
    """Cached by the day: every pass dates each memory of its scope from its evidence's day again."""
    changed = False

    def replace(match: re.Match[str]) -> str:
        nonlocal changed
        before = text[: match.start()]
        at_start = bool(_SENTENCE_START.search(before))
        if _ANNOTATED_BEFORE.search(before) and text[match.end() : match.end() + 1] == ")":
            return match.group(0)
        if means_nowadays(text, match.start("expr"), match.end("expr")):
            return match.group(0)
        try:
            kind, absolute = _resolve(match, today)
        except (OverflowError, ValueError):  # outside the calendar (years 1..9999): keep the words
            return match.group(0)
        if match.group("poss"):  # "tomorrow's opening" -> "2023-06-20's opening"
            prep = match.group("prep")
            rendered = f"{prep + ' ' if prep else ''}{absolute}'s"
        elif not match.group("prep") and _PREPOSITION_BEFORE.search(before):
            rendered = absolute  # "the first week of next month": the sentence has its preposition
        else:
            opens_on_time = _OPENS_ON_TIME.match(text, match.end()) is not None
            rendered = _render(kind, absolute, match.group("prep"), at_start, opens_on_time)
        changed = True
        if annotate and match.group("poss"):  # "2023-06-20's (tomorrow's) opening" would read as undated
            return rendered
        said = match.group("expr")
        if at_start:  # its capital was the sentence's: "On 2024-03-02 (yesterday) I …"
            said = said[:1].lower() + said[1:]
        return f"{rendered} ({said})" if annotate else rendered

    rewritten = _EXPRESSION.sub(replace, text)
    return TimeRewrite(rewritten, changed)


def has_relative_time(text: str) -> bool:
    return rewrite_relative_time(text, date(2000, 1, 1)).changed


# --- when a statement was made: every memory the offline engine writes from a message says so, so
# "when did X happen?" can be answered by the statement's own date when it names no other. The
# stamp leads, as in a log line or an agent's own history ("[2023-05-08] Caroline: ..."): three
# words, where "(said on 2023-05-08)" took five. The older trailing form is still read.
_STAMP = re.compile(r"^\[(?P<day>\d{4}-\d{2}-\d{2})\]\s*")
_OLD_STAMP = re.compile(r"\s*\(said on (?P<day>\d{4}-\d{2}-\d{2})\)\s*$")


def said_on(reference: datetime | date) -> str:
    day = reference.date() if isinstance(reference, datetime) else reference
    return f"[{day.isoformat()}]"


def stamped(statement: str, reference: datetime | date) -> str:
    """`statement` with the day it was said in front: "[2023-05-08] Caroline went ..."."""
    return f"{said_on(reference)} {statement}"


@text_cache(maxsize=32_768)
def without_stamp(text: str) -> str:
    """The statement without its said-on date, for comparing what two memories say (cached: the
    rivalry check reads every candidate memory's body once per new statement)."""
    return _OLD_STAMP.sub("", _STAMP.sub("", text, count=1))


def stamp_day(text: str) -> date | None:
    """The day a stamped memory was said on, or None when it carries no stamp."""
    match = _STAMP.match(text) or _OLD_STAMP.search(text)
    return date.fromisoformat(match.group("day")) if match else None
