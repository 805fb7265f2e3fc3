"""The old value of a knowledge update: what its stale messages state that the new answer replaced.

A knowledge-update question names the messages that carry the old value (`stale_message_ids`),
not the value itself. A stale message usually says more than that one value ("the recital is on
May 2, and the choir has 4 altos"); a reader misled by it is one who reads the old *value*,
so `stale_leak` asks whether an item states it, not only whether it cites a stale message.

The old values are the values of the stale messages of the answer's kinds that the answer does not
give:

- a day ("May 2, 2025", any spelling `matching` reads) when the answer names a day;
- a month and day without a year ("April 21") when the answer names one;
- a clock time ("3 PM", "15:30") when the answer gives one;
- a number when the answer gives one, counted in one of the answer's words ("12 rooms" for
  "18 rooms", "20 uploads/hour" for "450 uploads per day", "82%" for "88%"); a bare-number
  answer ("9") takes every number of the stale messages.

An item states an old value when it mentions one of them (the same day, time or number, whatever
it counts). When no old value can be found (the answer is no value, or the stale messages give none
of its kind) the caller falls back to citation alone. One rule, written for the evaluation and
shared by both sides: a raw stale message always states its own old value.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

from dreamstream_tools.evaluation.matching import date_mentions, words

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_MONTH_DAY = re.compile(
    rf"\b(?P<mn>{_MONTH})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b"
    rf"|\b(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mn2>{_MONTH})\b",
    re.IGNORECASE,
)
_CLOCK = re.compile(
    r"\b(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<half>[ap])\.?\s?m\b\.?|\b(?P<h24>\d{1,2}):(?P<m24>\d{2})\b",
    re.IGNORECASE,
)
# A number not inside a date or a version ("2025-10-03", "3/4", "2.3.1"), with the word it counts.
_NUMBER = re.compile(
    r"(?<![\w.,/-])(?P<n>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<f>\d+))?(?![\w.,/-]*\d)(?P<unit>\s*%|\s*[a-z]+)?",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?:19|20)\d\d")
# A stamp the reader adds (the message's own date, a memory's "said on") is no value the text states.
_STAMPS = re.compile(r"\[\d{4}-\d{2}-\d{2}\]|\(said on [^)]*\)", re.IGNORECASE)


class Value(NamedTuple):
    kind: str
    """"day", "month_day", "clock" or "number"."""
    key: str
    """The value, spelled one way ("2024-04-01", "4-21", "15:00", "1200")."""
    unit: str = ""
    """For a number, the word it counts ("commit", "%"), singular; "" when none follows."""


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


@lru_cache(maxsize=1 << 15)
def values(text: str) -> frozenset[Value]:
    """Every day, month-day, clock time and number the text states (reader's stamps left out)."""
    text = _STAMPS.sub(" ", text)
    found: set[Value] = set()
    for mention in date_mentions(text):
        if mention.day is not None:
            found.add(Value("day", f"{mention.year:04d}-{mention.month:02d}-{mention.day:02d}"))
    for match in _MONTH_DAY.finditer(text):
        month = _MONTHS[(match.group("mn") or match.group("mn2")).lower()]
        day = int(match.group("d") or match.group("d2"))
        if 1 <= day <= 31:
            found.add(Value("month_day", f"{month}-{day}"))
    taken = [m.span() for m in _MONTH_DAY.finditer(text)]  # a date's day is no count
    for match in _CLOCK.finditer(text):
        if match.group("h24"):
            hour, minute = int(match.group("h24")), int(match.group("m24"))
        else:
            hour, minute = int(match.group("h")) % 12, int(match.group("m") or 0)
            hour += 12 if match.group("half").lower() == "p" else 0
        if hour < 24 and minute < 60:
            found.add(Value("clock", f"{hour}:{minute:02d}"))
            taken.append(match.span())
    for match in _NUMBER.finditer(text):
        if any(start <= match.start() < end for start, end in taken):
            continue
        unit = (match.group("unit") or "").strip().lower()
        if not unit and _YEAR.fullmatch(match.group("n")):
            continue  # a year: part of a date, or a date of its own
        number = match.group("n").replace(",", "") + (f".{match.group('f')}" if match.group("f") else "")
        found.add(Value("number", number, "%" if unit in {"%", "percent"} else _singular(unit)))
    return frozenset(found)


def old_values(answer: str, stale_texts: Iterable[str]) -> frozenset[Value]:
    """The values of `stale_texts` of the answer's kinds that the answer does not give (see above)."""
    given = values(answer)
    if not given:
        return frozenset()
    kinds = {v.kind for v in given}
    numbers = {v.key for v in given if v.kind == "number"}
    counted = {_singular(w) for w in words(answer)} | {v.unit for v in given if v.kind == "number"}
    bare = any(v.kind == "number" and not v.unit for v in given)
    old: set[Value] = set()
    for text in stale_texts:
        for value in values(text):
            if value.kind not in kinds or value in given:
                continue
            if value.kind == "number" and (value.key in numbers or not (bare or value.unit in counted)):
                continue
            old.add(value)
    return frozenset(old)


def states_any(text: str, old: frozenset[Value]) -> bool:
    """The text mentions one of the old values: the same day, time or number, whatever it counts."""
    wanted = {(v.kind, v.key) for v in old}
    return any((v.kind, v.key) in wanted for v in values(text))


def states_new_value(answer: str, text: str) -> bool:
    """The text states every value the answer gives, read as old values are: a day, a time, a
    number bare or counting one of the answer's words ("a total of 14 tiles" gives "14 ceramic
    tiles"; "14 grout bags" does not). False when the answer gives no value. An item saying the
    new value beside the old one ("pushed from 8 AM to 11 AM") tells the reader which is which."""
    given = values(answer)
    if not given:
        return False
    counted = {_singular(w) for w in words(answer)} | {v.unit for v in given} | {""}
    stated = {(v.kind, v.key) for v in values(text) if v.kind != "number" or v.unit in counted}
    return {(v.kind, v.key) for v in given} <= stated
