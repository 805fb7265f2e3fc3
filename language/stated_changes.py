"""Read a value change out of one clause: "aisle, not window", "DuckDB instead of PostgreSQL",
"switched from window to aisle", "switched to aisle seats" (old value unknown), and whether the
change is only planned ("trying to switch from A to B").

Values are short phrases (at most three words). The new value is read backwards from the marker
with as many words as the old one has, then words both phrases share at the end are dropped, so
"aisle seats instead of window seats" gives aisle / window (not a value's own last word: "8 AM
instead of 9 AM" keeps its "AM").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from language import patterns
from language.changes import values_in
from language.patterns import compiled

_MAX_WORDS = patterns.MAX_VALUE_WORDS

# Words that end a value phrase when reading forwards ...
_FORWARD_STOP = frozenset(
    """
because since as for last next this these those in on at from and but or now anymore any so to with when
after before then please either too though which that than instead rather if until by nowadays lately
recently today tonight anyway thanks every each again also only just
""".split()
)
# ... and when reading backwards from a marker.
_BACKWARD_STOP = frozenset(
    """
to with it's its it is was are be use using prefer prefers want wants like likes get take chose choose
pick picked go going i we you no yes actually and but or of for switch switched move moved change
changed not that's that
""".split()
)
_DETERMINERS = frozenset({"the", "a", "an", "my", "our", "your", "their"})
OPINION_WORDS = frozenset(
    "easy difficult simple possible impossible fine likely unlikely ready worth enough certain clear obvious".split()
)
"""Words of judgement, not of fact: "stay positive, not easy" changes no value that was said."""
_TRAILING_TIME = frozenset({"now", "nowadays", "today", "lately", "anymore", "instead", "too", "again", "currently"})

_FROM_TO = compiled(patterns.CHANGE_FROM_TO)
_INSTEAD = compiled(patterns.CHANGE_INSTEAD)
_COMMA_NOT = compiled(patterns.CHANGE_COMMA_NOT)
_NOT_BUT = compiled(patterns.CHANGE_NOT_BUT)
_SWITCH_TO = compiled(patterns.CHANGE_SWITCH_TO)
_EDGE_PUNCTUATION = ".,;:!?\"'()"


@dataclass(frozen=True)
class ValueChange:
    new: str
    old: str | None
    """None when the speaker only said what the value is now ("switched to aisle seats")."""
    elided_head: tuple[str, str] | None = None
    """(modifier, head) when the old value may have dropped a shared head word: in "white wine
    instead of red", new="wine" read word for word, but against a memory saying "red wine" the
    value that changed is the modifier ("white")."""


def _words(phrase: str) -> list[str]:
    return phrase.split()


def _forward_phrase(text: str) -> list[str]:
    """Words from the start of `text` up to punctuation or a stop word, leading determiners dropped."""
    words: list[str] = []
    for raw in _words(text):
        word = raw.strip(_EDGE_PUNCTUATION)
        lower = word.lower()
        if not word or lower in _FORWARD_STOP:
            break
        if words or lower not in _DETERMINERS:
            words.append(word)
        if raw[-1] in _EDGE_PUNCTUATION or len(words) == _MAX_WORDS:
            break
    return words


def _backward_phrase(text: str, count: int) -> list[str]:
    """The last `count` words of `text`, stopping at punctuation or a stop word. A time word right
    before the marker is not the value: in "York now, not Leeds" the new value is "York"."""
    raws = _words(text)
    while len(raws) > 1 and raws[-1].strip(_EDGE_PUNCTUATION).lower() in _TRAILING_TIME:
        raws = raws[:-1]
    return _last_words(raws, count) or _last_words(_words(text), count)


def _last_words(raws: list[str], count: int) -> list[str]:
    words: list[str] = []
    for raw in reversed(raws):
        if raw[-1] in _EDGE_PUNCTUATION and words:
            break
        word = raw.strip(_EDGE_PUNCTUATION)
        if not word or word.lower() in _BACKWARD_STOP or word.lower() in _DETERMINERS:
            break
        words.insert(0, word)
        if len(words) == count or raw[0] in _EDGE_PUNCTUATION:
            break
    return words


def _trim_shared_tail(new: list[str], old: list[str]) -> tuple[list[str], list[str]]:
    """A word both sides end in is not the value: "aisle seats instead of window seats" gives aisle
    / window. Unless it closes a value: "8 AM instead of 9 AM" changed a time of day, and a bare
    "9" is as much the 9th of a month."""
    while len(new) > 1 and len(old) > 1 and new[-1].lower() == old[-1].lower() and not _ends_a_value(old):
        new, old = new[:-1], old[:-1]
    return new, old


def _ends_a_value(words: list[str]) -> bool:
    """The phrase's last word closes a value that begins before it ("9 AM", "April 9")."""
    phrase = " ".join(words)
    last = len(phrase) - len(words[-1])
    return any(value.end == len(phrase) and value.start < last for value in values_in(phrase))


def _pair(new: list[str], old: list[str]) -> ValueChange | None:
    if not new or not old or old[-1].lower() in {"one", "ones"}:
        return None  # "the 9am one": the value is elsewhere in the sentence
    new, old = _trim_shared_tail(new, old)
    if [w.lower() for w in new] == [w.lower() for w in old]:
        return None
    return ValueChange(new=" ".join(new), old=" ".join(old))


_PLANNED_CHANGE = re.compile(
    r"\b(?:try(?:ing)?|want(?:s|ed)?|plan(?:s|ning)?|going|hop(?:e|es|ing)|(?:would|'d)\s+like|"
    r"thinking\s+(?:of|about)|consider(?:s|ing)?|might|may)\s+(?:to\s+)?"
    r"(?:switch(?:ing)?|swap(?:ping)?|mov(?:e|ing)|chang(?:e|ing)|migrat(?:e|ing)|replac(?:e|ing)|transition(?:ing)?)\b",
    re.IGNORECASE,
)


def planned_change(clause: str) -> bool:
    """The change is one someone means to make, not one made ("I'm trying to switch from A to B",
    "thinking of moving from A to B"): until it is made, what was said of A still holds."""
    return _PLANNED_CHANGE.search(clause) is not None


def parse_change(clause: str) -> ValueChange | None:
    """The value change a clause states, or None when it states none."""
    if match := _FROM_TO.search(clause):
        change = _pair(_forward_phrase(match.group("new")), _forward_phrase(match.group("old")))
        if change:
            return change
    for pattern in (_INSTEAD, _COMMA_NOT):
        if match := pattern.search(clause):
            old = _forward_phrase(match.group("old"))
            before = clause[: match.start()]
            change = _pair(_backward_phrase(before, len(old)), old)
            wider = _backward_phrase(before, len(old) + 1)
            if change and change.old == " ".join(old) and len(wider) == len(old) + 1 and not _ends_a_value(old):
                change = ValueChange(change.new, change.old, (" ".join(wider[:-1]), wider[-1]))
            if change:
                return change
    if match := _NOT_BUT.search(clause):
        change = _pair(_forward_phrase(match.group("new")), _forward_phrase(match.group("old")))
        if change:
            return change
    if match := _SWITCH_TO.search(clause):
        new = _forward_phrase(match.group("new"))
        if new:
            return ValueChange(new=" ".join(new), old=None)
    return None
