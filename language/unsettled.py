"""Occasions said to be moved or called off without a new time.

"Can you remind me what date it's been rescheduled to?", "the dentist visit got postponed", "my
3 PM call with Dana was cancelled": the day or time memory holds for that occasion no longer
holds, though nothing says what replaced it. `unsettled_occasions` finds each such statement and
the noun phrase naming the occasion ("it" read from the words before it); whoever keeps the old
time marks it as no longer current. A new time given with the change ("postponed to May 9") is
an update of the value itself, read elsewhere (`changes`); a change only wished, asked about or
denied ("if it gets postponed", "has it been moved?", "wasn't cancelled") states nothing. No model.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from language.antecedents import OPENERS, PHRASE_END
from language.sentences import sentence_end

MAX_PHRASE_WORDS = 8
"""An occasion's noun phrase longer than this is cut: its head and first qualifiers name it."""

_HOW = {
    "rescheduled": "rescheduled",
    "postponed": "postponed",
    "pushed back": "postponed",
    "put off": "postponed",
    "delayed": "delayed",
    "moved": "moved",
    "cancelled": "cancelled",
    "canceled": "cancelled",
    "called off": "cancelled",
}
"""The verbs that unsettle an occasion's time, and what the memory then says happened to it."""
_VERB_STEMS = ("reschedul", "postpone", "pushed", "put off", "delayed", "moved", "cancel", "called off")
_VERBS = "|".join(sorted((verb.replace(" ", r"\s+") for verb in _HOW), key=len, reverse=True))
_CHANGE = re.compile(
    r"(?P<subject>\b(?:[Ii]t|[\w'\u2019-]+))\s*"
    r"(?P<aux>(?:['\u2019]s|\s(?:has|have|had))\s+(?:(?:just|already|now|recently|also)\s+)?been"
    r"|\s(?:was|were|is|are|got)|\s(?:is|are)\s+being)\s+"
    r"(?:(?:just|already|now|since|recently|suddenly|officially|also)\s+)?"
    rf"(?P<verb>{_VERBS})\b"
)
_ASKED_WHEN = re.compile(
    r"\b(?:when|what\s+(?:date|day|time)|how\s+long)\s+(?:was|were|has|had|is)\s+(?P<subject>it)\s+"
    rf"(?:been\s+)?(?:(?:just|already|now|recently)\s+)?(?P<verb>{_VERBS})\b",
    re.IGNORECASE,
)
"""A question about the new time ("when was it moved to?") takes the move as given."""
_STRANDED_TO = re.compile(r"\s+to\s*(?:[?.!,;]|$)")
"""The "to" a question leaves at the end ("what date it's been moved to?"): no new time follows."""
_TAIL_STOP = re.compile(r"[,;:.!?]|\s(?:and|but|so|because|since|which|while|as)\b", re.IGNORECASE)
_NEW_VALUE = re.compile(r"\s(?:to|until|till|for|from|by|at|on|in|into)\b", re.IGNORECASE)
"""What follows the verb when it says the new time or place ("to May 9", "until Friday", "by a
week"): an update of the value, not a time left unsaid. "due to" and "because of" say why."""
_REASON = re.compile(r"\s(?:due|owing|thanks)\s+to\b|\s+because\s+of\b", re.IGNORECASE)
_NOT_SAID = re.compile(
    r"\b(?:if|whether|unless|in case|might|may|could|would|should|will|won't|wouldn't|hope|hoping|afraid|"
    r"worried that|wonder(?:ing)?|not|never|n't)\b|n['\u2019]t\b",
    re.IGNORECASE,
)
"""A word before the change (in its clause) that makes it a supposition, a fear or a denial."""
_YES_NO = re.compile(r"\s*(?:has|have|had|was|were|is|are|did)\s+(?:it|the|my|our|your|this|that)\b", re.IGNORECASE)
"""A sentence opening on these asks whether the change happened ("Has the demo been pushed back too?")."""
_CLAUSE_START = re.compile(r"[,;:.!?]\s*|\s(?:and|but|so|because|though|although|since|which)\s", re.IGNORECASE)
_OPENER = re.compile(rf"\b(?i:{OPENERS})\s+(?=[A-Za-z0-9$])|\b[A-Z][a-z]+['\u2019]s\s+(?=[a-z])")
"""A noun phrase's start; unlike an "it"'s antecedent, an occasion may open on its time ("my 3 PM call")."""
_LINK_WORDS = frozenset("of on in for about with at from by".split())
_LINK = re.compile(rf"\s(?:{'|'.join(sorted(_LINK_WORDS))})\s+$", re.IGNORECASE)
"""A phrase after these qualifies the one before it: "the webinar on | AI ethics in | the hiring process"."""
_SENTENCE_END = sentence_end(careful=True, newlines=True)


class Unsettled(NamedTuple):
    """An occasion whose time a message says changed to one not given."""

    phrase: str
    """The noun phrase naming it ("the webinar on AI ethics in hiring")."""
    how: str
    """"rescheduled", "postponed", "delayed", "moved" or "cancelled"."""

    @property
    def head(self) -> str:
        """The noun the phrase names, before what qualifies it: "the webinar on AI ethics" -> "webinar"."""
        words = self.phrase.split()
        cut = next((i for i, word in enumerate(words) if i and word.lower() in _LINK_WORDS), len(words))
        return words[cut - 1]


def unsettled_occasions(message: str) -> list[Unsettled]:
    """Every occasion `message` says was moved or called off without saying its new time (the
    module's examples), with the phrase that names it; none when the phrase cannot be read."""
    lower = message.lower()
    if not any(stem in lower for stem in _VERB_STEMS):
        return []  # most messages: no verb of the kind at all
    found: list[Unsettled] = []
    changes = sorted([*_CHANGE.finditer(message), *_ASKED_WHEN.finditer(message)], key=lambda m: m.start())
    for change in changes:
        if not _states(message, change):
            continue
        subject = change.group("subject")
        if subject.lower() == "it":
            phrase = _antecedent(message, change.start("subject"))
        else:
            phrase = _phrase_ending_at(message, change.end("subject"))
        if phrase:
            found.append(Unsettled(phrase, _HOW[" ".join(change.group("verb").lower().split())]))
    return found


def _states(message: str, change: re.Match[str]) -> bool:
    """The change is stated, with no new time after it: not asked yes or no, not supposed, feared
    or denied in its clause, and what follows the verb only says why or when it was said."""
    tail = message[change.end() :]
    if not _STRANDED_TO.match(tail):
        stop = _TAIL_STOP.search(tail)
        rest = _REASON.sub(" ", tail[: stop.start() if stop else len(tail)])
        if _NEW_VALUE.search(rest):
            return False
    opened = [m.end() for m in _CLAUSE_START.finditer(message, 0, change.start("subject"))]
    clause = message[opened[-1] if opened else 0 : change.start("verb")]
    if _NOT_SAID.search(clause):
        return False
    sentence_start = max((m.end() for m in _SENTENCE_END.finditer(message) if m.end() <= change.start()), default=0)
    return not _YES_NO.match(message, sentence_start)


def _phrase_stop(text: str, start: int, end: int) -> re.Match[str] | None:
    """The first phrase end (`antecedents.PHRASE_END`) or sentence end in `text[start:end]`."""
    found = [m for m in (PHRASE_END.search(text, start, end), _SENTENCE_END.search(text, start, end)) if m]
    return min(found, key=lambda m: m.start()) if found else None


def _phrase_ending_at(text: str, end: int) -> str | None:
    """The noun phrase that ends at `end` ("… told me the team offsite | got postponed"): from the
    nearest opener back across the phrases it qualifies."""
    start = _outer_start(text, end)
    if start is None:
        return None
    words = text[start:end].rstrip(" .!?").split()
    return " ".join(words[:MAX_PHRASE_WORDS]) if len(words) >= 2 else None


def _outer_start(text: str, end: int) -> int | None:
    """Where the phrase ending at `end` opens: the last opener before it with no phrase break
    between, extended back over each opener it qualifies ("the webinar on the hiring process")."""
    openers = [m.start() for m in _OPENER.finditer(text, 0, end)]
    start = None
    for at in reversed(openers):
        if _phrase_stop(text, at + 1, end) is not None:
            break
        if start is not None and not _LINK.search(text, 0, start):
            break
        start = at
    return start


def _antecedent(text: str, pronoun: int) -> str | None:
    """What an "it" at `pronoun` stands for: the last noun phrase said before it, in its sentence
    or the one before, with the phrases that qualify it ("missing the webinar on AI ethics in
    hiring, so … it's been rescheduled")."""
    sentence = max((m.end() for m in _SENTENCE_END.finditer(text) if m.end() <= pronoun), default=0)
    earlier = max((m.end() for m in _SENTENCE_END.finditer(text) if m.end() < sentence), default=0)
    for opener in reversed(list(_OPENER.finditer(text, earlier, pronoun))):
        stop = _phrase_stop(text, opener.end(), pronoun)
        end = stop.start() if stop else pronoun
        start = _outer_start(text, end)
        if start is None:
            continue
        words = text[start:end].rstrip(" .!?").split()
        if len(words) >= 2:
            return " ".join(words[:MAX_PHRASE_WORDS])
    return None
