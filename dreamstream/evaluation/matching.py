"""Does a text state an answer? Which dates does it mention? Does it lean on an undated relative time?

Pure functions, shared by the memory metrics and the baseline so both are judged alike.

**Words.** Text is NFKC-normalised, case-folded, curly quotes made straight, and split into runs
of letters and digits ("PostgreSQL 16" → `postgresql 16`, "AX3000" → `ax3000`, "Ava's" →
`ava s`). An answer is *contained* in a text when its words appear there in order and next to
each other; the answer's last word may carry a plural `s`/`es` in the text ("aisle" is in "aisle
seats", "window seat" in "window seats"). Whole words only: "red" is not in "preferred".

**Dates.** When the whole answer is a date, the text must mention that date in any supported
form, not the answer's spelling: "2026-03-10", "March 10, 2026", "Mar 10 2026", "10 March 2026",
"10th of March, 2026", "Tuesday, March 10, 2026", "2026/03/10" and ISO timestamps
("2026-03-10T09:00") all normalise to 2026-03-10. A year is required ("March 10" alone is not a
date); numeric day/month orders other than year-first are ambiguous and not recognised. An answer
that names a month ("March 2026", "2026-03") is contained in any mention of a day or month in it.

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
from datetime import date
from typing import Iterable, NamedTuple

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
    re.compile(rf"\b{_WEEKDAY}{_MONTH.format('mn')}\s+(?P<d>\d{{1,2}}){_ORD},?\s+(?P<y>\d{{4}})\b", re.IGNORECASE),
    re.compile(rf"\b{_WEEKDAY}(?:the\s+)?(?P<d>\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH.format('mn')},?\s+(?P<y>\d{{4}})\b",
               re.IGNORECASE),
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


def words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    return _WORD.findall(folded)


def _word_matches(expected: str, actual: str, last: bool) -> bool:
    if expected == actual:
        return True
    return last and actual in (expected + "s", expected + "es")


def contains_words(text: str, answer: str) -> bool:
    """The answer's words appear in the text, in order and adjacent (whole words only)."""
    needle, hay = words(answer), words(text)
    if not needle:
        return False
    n = len(needle)
    for start in range(len(hay) - n + 1):
        if all(_word_matches(needle[i], hay[start + i], i == n - 1) for i in range(n)):
            return True
    return False


def _month_number(match: re.Match[str]) -> int:
    if "mn" in match.re.groupindex and match.group("mn"):
        return _MONTHS[match.group("mn").lower()]
    return int(match.group("m"))


def date_mentions(text: str) -> set[DateMention]:
    """Every valid date (day precision) and month (month precision) the text mentions."""
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
    return found


def answer_date(answer: str) -> DateMention | None:
    """The date the whole answer names, or None when the answer is not (only) a date."""
    stripped = answer.strip().rstrip(".")
    mentions = date_mentions(stripped)
    days = {m for m in mentions if m.day is not None}
    if len(days) == 1:
        candidate = next(iter(days))
    elif not days and len(mentions) == 1:
        candidate = next(iter(mentions))
    else:
        return None
    # The answer must be nothing but the date (plus a weekday, ordinals, commas).
    leftover = [w for w in words(stripped) if not w.isdigit() and w not in _MONTHS
                and w not in ("st", "nd", "rd", "th", "of", "the") and not re.fullmatch(r"\d+(st|nd|rd|th)", w)
                and not re.fullmatch(r"(mon|tues?|wed(nes)?|thu(rs?)?|fri|sat(ur)?|sun)(day)?", w)]
    return candidate if not leftover else None


def normalised_date(answer: str) -> str | None:
    """"2026-03-10" for any spelling of that day, "2026-03" for a month, None when not a date."""
    found = answer_date(answer)
    if found is None:
        return None
    return f"{found.year:04d}-{found.month:02d}" + (f"-{found.day:02d}" if found.day is not None else "")


def contains_answer(text: str, answer: str) -> bool:
    """Whether `text` states `answer`: by date when the answer is a date, else by words."""
    wanted = answer_date(answer)
    if wanted is None:
        return contains_words(text, answer)
    mentions = date_mentions(text)
    if wanted.day is not None:
        return wanted in mentions
    return any(m.year == wanted.year and m.month == wanted.month for m in mentions)


def any_contains(texts: Iterable[str], answer: str) -> bool:
    return any(contains_answer(text, answer) for text in texts)


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
