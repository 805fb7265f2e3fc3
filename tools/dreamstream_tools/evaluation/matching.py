"""Does a text state an answer? Which dates does it mention? Does it lean on an undated relative time?

Pure functions, shared by the memory metrics and the baseline so both are judged alike.

**Words.** Text is NFKC-normalised, case-folded, curly quotes made straight, and split into runs
of letters and digits ("PostgreSQL 16" → `postgresql 16`, "AX3000" → `ax3000`, "Ava's" →
`ava s`). An answer is *contained* in a text when its words appear there in order and next to
each other; the answer's last word may carry a plural `s`/`es` in the text ("aisle" is in "aisle
seats", "window seat" in "window seats"). Whole words only: "red" is not in "preferred".

**Dates.** An answer is a *date answer* when it contains exactly one exact day ("7 May 2023",
"On 14.01.2024", "The week before 9 June 2023": the day the dataset resolved a relative time from);
"in 2021" is a year and "June 2023" a month, not days. A text contains a date answer when it
mentions that day in any supported spelling, whatever else the answer says: "2026-03-10",
"March 10, 2026", "Mar 10 2026", "10 March 2026", "10March, 2026", "10th of March, 2026",
"Tuesday, March 10, 2026", "2026/03/10", "10.03.2026" (day first, as in most of Europe) and ISO
timestamps ("2026-03-10T09:00") all normalise to 2026-03-10. A year is required ("March 10" alone
is not a date); slashed day/month orders other than year-first are ambiguous and not recognised.
An answer that is nothing but a month ("March 2026", "2026-03") is contained in any mention of a
day or month in it; any other answer is matched by words.

**Relative times.** A text holds an *undated relative time* when it says "yesterday", "next
week", "in three days", "the end of next month", "last weekend", "next week's meeting", ... and
the expression is not the bracketed original wording after an absolute date ("on 2026-03-10
(next Tuesday)" is dated). Detection is the offline engine's (`relative_time.has_relative_time`)
plus what that resolver deliberately leaves alone: weekends, "the week after next", "fortnight"
and possessives ("next week's").
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from collections.abc import Iterable
from datetime import date
from functools import lru_cache
from typing import NamedTuple

from language.dates import has_relative_time

_WORD = re.compile(r"[^\W_]+")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_MONTH = r"(?P<{}>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ORD = r"(?:st|nd|rd|th)?"
_WEEKDAY = r"(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+)?"
_DAY_PATTERNS = (
    re.compile(r"(?<![\d-])(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?![\d])"),
    re.compile(r"(?<![\d/])(?P<y>\d{4})/(?P<m>\d{1,2})/(?P<d>\d{1,2})(?![\d/])"),
    re.compile(rf"\b{_WEEKDAY}{_MONTH.format('mn')}\s+(?P<d>\d{{1,2}}){_ORD},?\s*(?P<y>\d{{4}})\b", re.IGNORECASE),
    # "10 March 2026", "10th of March, 2026", and the run-together "24June, 2022" of hand-typed answers
    re.compile(
        rf"(?<![\w.]){_WEEKDAY}(?:the\s+)?(?P<d>\d{{1,2}}){_ORD}\s*(?:of\s+)?{_MONTH.format('mn')},?\s*"
        rf"(?P<y>\d{{4}})\b",
        re.IGNORECASE,
    ),
    # "14.01.2024": day first (dots are never year-first or month-first in common use)
    re.compile(r"(?<![\d.])(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})(?![\d]|\.\d)"),
)
_MONTH_PATTERNS = (
    re.compile(r"(?<![\d-])(?P<y>\d{4})-(?P<m>\d{1,2})(?![\d-])"),
    re.compile(rf"\b{_MONTH.format('mn')},?\s+(?P<y>\d{{4}})\b", re.IGNORECASE),
)

_EXTRA_RELATIVE = re.compile(
    r"\b(?:(?:next|last|this|coming|past)\s+weekend|the\s+week\s+after\s+next|(?:in\s+)?a\s+fortnight"
    r"|(?:next|last|this)\s+(?:week|month|year)['\u2019]s|(?:tomorrow|yesterday|today|tonight)['\u2019]s"
    r"|(?:next|last|this)\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)['\u2019]s)\b",
    re.IGNORECASE,
)
# "2026-03-10 (next Tuesday)", "2026 (next year)": the bracket keeps the wording, the date says when.
_ANNOTATION = re.compile(r"(\d{4}(?:-\d{2}-\d{2})?)\s*\([^()]*\)")


class DateMention(NamedTuple):
    year: int
    month: int
    day: int | None
    """None for a month-precision mention ("March 2026")."""


def _folded(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()


def words(text: str) -> list[str]:
    return _WORD.findall(_folded(text))


def first_words(text: str, count: int) -> str:
    """The text (folded as `words` reads it) up to the end of its `count`-th word, so that
    `words(first_words(t, n)) == words(t)[:n]`: what a reader who stops after n words has read."""
    if count <= 0:
        return ""
    folded = _folded(text)
    end = 0
    for number, match in enumerate(_WORD.finditer(folded), 1):
        end = match.end()
        if number == count:
            break
    return folded[:end]


@lru_cache(maxsize=1 << 17)
def _spaced(text: str) -> str:
    """The text's words joined by single spaces, with a space at each end: whole-word, in-order
    adjacency becomes a substring test (cached: the same memory or message is tested many times)."""
    return " " + " ".join(words(text)) + " "


def _needles(answer: str) -> tuple[str, ...]:
    """The answer's words as substrings of `_spaced` text; its last word may carry a plural s/es."""
    joined = " ".join(words(answer))
    if not joined:
        return ()
    return (f" {joined} ", f" {joined}s ", f" {joined}es ")


def contains_words(text: str, answer: str) -> bool:
    """The answer's words appear in the text, in order and adjacent (whole words only)."""
    hay = _spaced(text)
    return any(needle in hay for needle in _needles(answer))


def _month_number(match: re.Match[str]) -> int:
    if "mn" in match.re.groupindex and match.group("mn"):
        return _MONTHS[match.group("mn").lower()]
    return int(match.group("m"))


def date_mentions(text: str) -> set[DateMention]:
    """Every valid date (day precision) and month (month precision) the text mentions."""
    return set(_date_mentions(text))


@lru_cache(maxsize=1 << 17)
def _date_mentions(text: str) -> frozenset[DateMention]:
    found: set[DateMention] = set()
    for pattern in _DAY_PATTERNS:
        for match in pattern.finditer(text):
            year, month, day = int(match.group("y")), _month_number(match), int(match.group("d"))
            try:
                date(year, month, day)
            except ValueError:
                continue
            found.add(DateMention(year, month, day))
    for pattern in _MONTH_PATTERNS:
        for match in pattern.finditer(text):
            year, month = int(match.group("y")), _month_number(match)
            if 1 <= month <= 12 and 1000 <= year:
                found.add(DateMention(year, month, None))
    return frozenset(found)


@lru_cache(maxsize=1 << 14)
def answer_date(answer: str) -> DateMention | None:
    """The day a date answer names (the answer contains exactly one exact day, whatever words
    surround it), or the month when the whole answer is a month; None otherwise."""
    stripped = answer.strip().rstrip(".")
    mentions = _date_mentions(stripped)
    days = {m for m in mentions if m.day is not None}
    if len(days) == 1:
        return next(iter(days))
    if days or len(mentions) != 1:
        return None
    # A month answer must be nothing but the month ("March 2026"), not "the first week of March 2026".
    leftover = [w for w in words(stripped) if not w.isdigit() and w not in _MONTHS]
    return next(iter(mentions)) if not leftover else None


def normalised_date(answer: str) -> str | None:
    """ "2026-03-10" for any spelling of that day, "2026-03" for a month, None when not a date."""
    found = answer_date(answer)
    if found is None:
        return None
    return f"{found.year:04d}-{found.month:02d}" + (f"-{found.day:02d}" if found.day is not None else "")


def _date_matches(wanted: DateMention, mentions: Iterable[DateMention]) -> bool:
    if wanted.day is not None:
        return wanted in mentions
    return any(m.year == wanted.year and m.month == wanted.month for m in mentions)


def contains_answer(text: str, answer: str) -> bool:
    """Whether `text` states `answer`: by date when the answer is a date, else by words."""
    wanted = answer_date(answer)
    if wanted is None:
        return contains_words(text, answer)
    return _date_matches(wanted, _date_mentions(text))


def any_contains(texts: Iterable[str], answer: str) -> bool:
    return Haystack(texts).contains(answer)


class Haystack:
    """Many texts asked the same kind of question many times (is this answer in any of them?):
    their words and dates are read once. `contains(answer)` is `any(contains_answer(t, answer))`."""

    def __init__(self, texts: Iterable[str]) -> None:
        texts = list(texts)
        # "\n" never occurs in `_spaced` text, so no answer matches across two texts.
        self._spaced = "\n".join(_spaced(t) for t in texts)
        self._dates: frozenset[DateMention] = frozenset().union(*(_date_mentions(t) for t in texts))

    def contains(self, answer: str) -> bool:
        wanted = answer_date(answer)
        if wanted is None:
            return any(needle in self._spaced for needle in _needles(answer))
        return _date_matches(wanted, self._dates)


def has_undated_relative_time(text: str) -> bool:
    """A relative time ("next week", "yesterday", "next week's") with no absolute date beside it."""
    stripped = _ANNOTATION.sub(r"\1", text)
    return has_relative_time(stripped) or bool(_EXTRA_RELATIVE.search(stripped))


def with_iso_dates(text: str) -> str:
    """The text with every day-precision date spelled as YYYY-MM-DD, so spellings compare equal."""
    for pattern in _DAY_PATTERNS:

        def iso(match: re.Match[str]) -> str:
            try:
                return date(int(match.group("y")), _month_number(match), int(match.group("d"))).isoformat()
            except ValueError:
                return match.group(0)

        text = pattern.sub(iso, text)
    return text
