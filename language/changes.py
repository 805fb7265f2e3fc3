"""Read a value change out of one clause: "aisle, not window", "DuckDB instead of PostgreSQL",
"switched from window to aisle", "switched to aisle seats" (old value unknown).

Values are short phrases (at most three words). The new value is read backwards from the marker
with as many words as the old one has, then words both phrases share at the end are dropped, so
"aisle seats instead of window seats" gives aisle / window.
"""

from __future__ import annotations

from dataclasses import dataclass

from language import patterns
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
    """The last `count` words of `text`, stopping at punctuation or a stop word."""
    words: list[str] = []
    for raw in reversed(_words(text)):
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
    while len(new) > 1 and len(old) > 1 and new[-1].lower() == old[-1].lower():
        new, old = new[:-1], old[:-1]
    return new, old


def _pair(new: list[str], old: list[str]) -> ValueChange | None:
    if not new or not old or old[-1].lower() in {"one", "ones"}:
        return None  # "the 9am one": the value is elsewhere in the sentence
    new, old = _trim_shared_tail(new, old)
    if [w.lower() for w in new] == [w.lower() for w in old]:
        return None
    return ValueChange(new=" ".join(new), old=" ".join(old))


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
            if change and change.old == " ".join(old) and len(wider) == len(old) + 1:
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
