"""Counts of things done so far: a running total only grows.

"I've completed 10 drills", "after finishing 12 drills", "has read 30 books so far" count what was
done up to a moment. A later, larger count of the same things done is the new total, whatever the
tense that says it ("I recently completed 15 drills"). A later, smaller running total of the same
things tells an earlier moment again (someone looking back on "the 12 drills I had done when my
score went up"): not a correction. A correction says so ("actually only 12, not 15") and is read
by the correction rules, not here.
"""

from __future__ import annotations

import re

from language.text_caches import text_cache
from language.tokens import stem
from language.value_holders import counted_noun
from language.values import said_at

_DONE = (
    r"(?:completed|finished|solved|done|read|written|watched|attended|visited|taken|passed|practi[cs]ed"
    r"|reviewed|submitted|logged|answered|built|published)"
)
_DOING = (
    r"(?:completing|finishing|solving|doing|reading|writing|watching|attending|taking|passing|practi[cs]ing"
    r"|reviewing|submitting|logging|answering|building|publishing)"
)
_ABOUT = r"(?:(?:about|around|over|nearly|almost|only|just|roughly)\s+)?"
_PERFECT = re.compile(rf"\b(?:have|has|had|'ve|\u2019ve)\s+(?:[a-z]+\s+){{0,2}}?{_DONE}\s+{_ABOUT}$", re.IGNORECASE)
"""The perfect ("I've completed #", "has already finished #") counts everything done up to now."""
_AFTER_DOING = re.compile(rf"\b(?:after|since|by|from)\s+{_DOING}\s+{_ABOUT}$", re.IGNORECASE)
"""A gerund after "after", "since", "by" ("after completing #") counts everything done up to that moment."""
_PAST = re.compile(rf"\b{_DONE}\s+{_ABOUT}$", re.IGNORECASE)
"""A past verb ("completed #") counts things done, told as one event: a total or a batch."""
_ANY_DONE = re.compile(rf"\b(?:{_DONE}|{_DOING}|so far|in total|total|to date)\b", re.IGNORECASE)
_SO_FAR = re.compile(r"^\s*(?:[\w-]+\s+){1,4}?(?:so far|in total|total|to date)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d[\d,]*")
_WORD = re.compile(r"[A-Za-z]+")


@text_cache(maxsize=65536)
def running_total(sentence: str, said: str) -> bool:
    """The count `said` counts everything done up to a moment ("I've completed #", "after
    finishing #", "# problems so far")."""
    before, after = _around(sentence, said)
    if before is None:
        return False
    return bool(_PERFECT.search(before) or _AFTER_DOING.search(before) or _SO_FAR.match(after))


@text_cache(maxsize=65536)
def done_count(sentence: str, said: str) -> bool:
    """The count `said` counts things done, whether a running total or a past event ("completed #")."""
    before, _ = _around(sentence, said)
    return before is not None and (running_total(sentence, said) or bool(_PAST.search(before)))


def grows(new_sentence: str, new_said: str, old_sentence: str, old_said: str) -> bool:
    """The newer count of things done is larger than an older running total of the same things: the
    total as it is now."""
    if not (running_total(old_sentence, old_said) and done_count(new_sentence, new_said)):
        return False
    new, old = _count(new_sentence, new_said), _count(old_sentence, old_said)
    return new is not None and old is not None and new[1] == old[1] and new[0] > old[0]


@text_cache(maxsize=16384)
def tells_earlier_moment(new_sentence: str, old_sentence: str) -> bool:
    """The newer sentence gives a running total smaller than one the older sentence gives of the same
    things ("has completed 12 drills" after "has completed 15 drills"): it tells an earlier moment
    again, and its other values are that moment's too."""
    old_totals = _totals(old_sentence)
    return any(n[1] == o[1] and n[0] < o[0] for n in _totals(new_sentence) for o in old_totals)


@text_cache(maxsize=16384)
def _totals(sentence: str) -> tuple[tuple[int, str], ...]:
    if not _ANY_DONE.search(sentence):
        return ()  # most sentences: nothing done is counted, no number to read
    found = []
    for match in _NUMBER.finditer(sentence):
        said = match.group(0)
        if running_total(sentence, said):
            count = _count(sentence, said)
            if count is not None:
                found.append(count)
    return tuple(found)


def _count(sentence: str, said: str) -> tuple[int, str] | None:
    """The number and the stem of the noun it counts."""
    at = said_at(sentence, said)
    digits = _NUMBER.fullmatch(said.strip())
    if at is None or digits is None:
        return None
    following = _WORD.search(sentence, at.end())
    noun = counted_noun(sentence, at.end()) or (following.group(0) if following else None)
    if noun is None:
        return None
    return int(digits.group(0).replace(",", "")), stem(noun.lower())


_REACH = 80
"""Characters either side of a count in which the words that make it a total are looked for."""


def _around(sentence: str, said: str) -> tuple[str | None, str]:
    at = said_at(sentence, said)
    if at is None:
        return None, ""
    return sentence[max(0, at.start() - _REACH) : at.start()], sentence[at.end() : at.end() + _REACH]
