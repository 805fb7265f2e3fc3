"""What in a text is a *value*: the part a later question turns on.

Numbers and amounts ("3", "45%", "$550", "2.3.1"), dates and times ("2024-03-15", "May 3", "14:30"),
names (a capitalised word that does not open a sentence: "Jessica", "Flask", "ArtSpace Gallery"),
model codes ("AX3000", "v2") and quoted titles ("Little Women"). A clause that carries one is worth
keeping even when its form is a question or an aside; a clause without one is usually glue.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from language.dates import WEEKDAYS
from language.text_caches import text_cache
from language.tokens import MONTHS

_NUMBER = re.compile(r"(?<![\w.])[$\u20ac\u00a3]?\d[\d.,:/-]*(?:%|[a-zA-Z]{1,3}\b)?")
_CODE_WORD = re.compile(r"\b(?:[A-Za-z]+\d[\w.]*|v\d[\w.]*)\b")
_QUOTED = re.compile(r"[\"\u201c][^\"\u201d]{2,60}[\"\u201d]")
_CAPITALISED = re.compile(r"\b[A-Z][\w'\u2019+#.-]*[\w+#]|\b[A-Z]\b")
_OPENER_MARKS = frozenset('.!?:;\n"\u201c(')
_NOT_NAMES = frozenset({"i", "i'm", "i've", "i'll", "i'd", "ok", "okay", "tv", "a"}) | frozenset(WEEKDAYS)
_MONTH_WORDS = (frozenset(MONTHS) | frozenset(m[:3] for m in MONTHS)) - {"may", "mar"}  # the modal, "to mar"


def names(text: str, ignore: Iterable[str] = ()) -> list[str]:
    """Capitalised words that are not capitalised by grammar (not the first word of a sentence,
    not "I"), minus `ignore` (e.g. the listener's name, which every line of a chat may hold)."""
    skip = {n.lower() for n in ignore}
    found = []
    for match in _CAPITALISED.finditer(text):
        word = match.group(0).rstrip(".")
        lower = word.lower().replace("\u2019", "'")
        if lower in _NOT_NAMES or lower in skip or _opens_sentence(text, match.start()):
            continue
        found.append(word)
    return found


def _opens_sentence(text: str, start: int) -> bool:
    """The word at `start` is the first of its text, sentence, line or quotation."""
    index = start - 1
    while index >= 0 and text[index] in " \t":
        index -= 1
    return index < 0 or text[index] in _OPENER_MARKS


def numbers(text: str) -> list[str]:
    return [m.group(0).rstrip(".,:/-") for m in _NUMBER.finditer(text)]


def has_date_word(text: str) -> bool:
    words = {w.lower().strip(".,") for w in text.split()}
    return bool(words & _MONTH_WORDS)


def carries_value(text: str, ignore_names: Iterable[str] = ()) -> bool:
    """A number, date, name, code or quoted title in `text`."""
    return bool(
        numbers(text)
        or _CODE_WORD.search(text)
        or _QUOTED.search(text)
        or has_date_word(text)
        or names(text, ignore_names)
    )


def value_words(text: str, ignore_names: Iterable[str] = ()) -> set[str]:
    """The values of `text` as words: its numbers, codes, quoted titles, month names and names."""
    found = set(numbers(text)) | {m.group(0) for m in _CODE_WORD.finditer(text)} | set(names(text, ignore_names))
    found |= {m.group(0) for m in _QUOTED.finditer(text)}
    found |= {w.strip(".,").lower() for w in text.split() if w.lower().strip(".,") in _MONTH_WORDS}
    return found


def new_values(text: str, known: str | set[str], ignore_names: Iterable[str] = ()) -> set[str]:
    """Values `text` states that `known` does not (`known`: a text, or its `value_words`)."""
    known_values = known if isinstance(known, set) else value_words(known, ignore_names)
    return value_words(text, ignore_names) - known_values


def holds_phrase(text: str, phrase: str) -> bool:
    """`phrase` stands whole in `text`, in any case: not inside a longer word or a hyphenated one
    ("aisle" in "the aisle seat", not in "aisles" or "mid-aisle")."""
    return _whole_phrase(phrase).search(text) is not None


@text_cache(maxsize=4096)
def _whole_phrase(phrase: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", re.IGNORECASE)


def said_at(sentence: str, said: str) -> re.Match[str] | None:
    """Where a value, as written (`said`: "$50", "3 PM"), first stands whole in `sentence`: not
    inside a longer number or word ("$150", "2.50")."""
    return _standing_value(said).search(sentence)


@text_cache(maxsize=4096)
def _standing_value(said: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w$\u20ac\u00a3.-]){re.escape(said)}(?![\w-])")
