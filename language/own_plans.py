"""A plan the user settles with an AI assistant, said as "let's ...": the user's own decision.

Told to an assistant, "Let's move the launch to March 3" or "Sure, let's go with the blue
theme" settles what the user will do: the assistant acts in the conversation, never in the
user's world, so the "us" who will do it is the user, and the sentence says "I'll move the launch
to March 3". What the two do in the conversation itself ("let's see how it goes", "let's focus
on the code", "let's dive into it", "let's get started") is no plan of the user's and stays a
request. A "let's" is read as a plan when its verb commits to a deed (schedule, book, go with,
switch, set up, ...) or when its clause carries a value or a time ("let's keep the cap at 40
hours", "let's repaint the porch on Saturday").

Between two people "let's go hiking on Sunday" is a proposal to the other, not a decision: the
caller reads it so only when the listener is an assistant.
"""

from __future__ import annotations

import re

from language.dates import WEEKDAYS, has_relative_time
from language.values import carries_value, numbers, value_words

_LETS = re.compile(
    r"\b(?P<lets>[Ll]et(?:'s|\u2019s| us))\s+"
    r"(?P<adverb>(?:(?:just|also|then|now|definitely|finally|still|go ahead and)\s+)*)"
    r"(?P<verb>[a-z]+)\b(?P<rest>[^.;!?]*?)(?=,?\s+(?:and\s+)?[Ll]et(?:'s|\u2019s| us)\s|[.;!?]|$)"
)
"""A lower-case verb: "Let's Encrypt" is a name."""
_JOINED_LETS = re.compile(r"(?<=\w),?\s+and\s+(?P<lets>let(?:'s|\u2019s| us)\s)")
DEEDS = frozenset(
    """
adopt agree aim allocate book budget buy cancel cap change commit confirm cut deploy drop enable
encrypt finalise finalize hire hold increase install invite launch limit lower meet migrate move
order pay phase plan postpone proceed push raise reduce reschedule reserve schedule send set settle
start stick switch target upgrade use
""".split()
)
"""Verbs that commit to a deed in the user's world. Verbs of editing ("add", "fix", "replace")
are not among them: said to an assistant, they more often ask it for the edit."""
_WEEKDAY = re.compile(rf"(?i)\b(?:{'|'.join(WEEKDAYS)})s?\b")
"""A weekday ("on Saturday"): with the relative times `language.dates` reads ("next week",
"tomorrow"), a time of the deed that is no date, and a plan as a date is."""
CONVERSATION = frozenset(
    """
address analyse analyze assume begin brainstorm break calculate chat check circle
clarify compare consider continue create delve dig discuss dive do double-check draft examine
explore figure find focus get give hear hope imagine know look outline pause pretend put
recap refine revisit review say see simplify summarise summarize suppose take tackle talk think
try tweak unpack verify walk wrap work write
""".split()
)
"""What the two do in the conversation itself ("let's see", "let's break it down")."""
_CONVERSATION_AFTER = {
    "go": re.compile(r"^\s+(?:through|over|back|on|into|deeper|step)\b"),
    "move": re.compile(r"^\s+(?:on|forward|ahead)\b"),
    "start": re.compile(r"^\s*(?:$|with|by|off|over|from|here|there|again|now)\b"),
    "set": re.compile(r"^\s+(?:this|that|it)\s+(?:aside|up)\b"),
    "keep": re.compile(r"^\s+(?:it|this|that|things|going|in touch|in mind|up|talking|chatting|at it)\b"),
}
"""A deed's verb that, followed by these words, is about the conversation ("let's go over it",
"let's move on", "let's start with the basics")."""
_GOING_WITH = re.compile(r"^\s+(?:with|ahead|for)\b")
""""Let's go with the oak desk", "let's go ahead with it": a choice made."""


def _names_things(text: str) -> bool:
    """Names, titles or dates, not a bare count: "start with 'Coco' and 'Up'" chooses, "start
    with the 2 easy ones" only orders the work."""
    return bool(value_words(text) - set(numbers(text)))


def _is_plan(verb: str, rest: str) -> bool:
    if verb in CONVERSATION:
        return False
    after = _CONVERSATION_AFTER.get(verb)
    if after is not None and after.match(rest) and not (verb == "start" and _names_things(rest)):
        return False
    going = verb == "go" and _GOING_WITH.match(rest) is not None
    return verb in DEEDS or going or carries_value(rest) or _WEEKDAY.search(rest) is not None or has_relative_time(rest)


def as_own_plans(sentence: str) -> str:
    """`sentence` with each "let's" that settles a deed of the user's said as "I'll" ("Sure,
    let's book the 9 AM slot" -> "Sure, I'll book the 9 AM slot"); the rest as it was."""

    def said_as_own(match: re.Match[str]) -> str:
        if not _is_plan(match.group("verb"), match.group("rest")):
            return match.group(0)
        adverb = match.group("adverb").replace("go ahead and ", "")
        return f"I'll {adverb}{match.group('verb')}{match.group('rest')}"

    # A "let's" left is about the conversation: set apart by a dash, it is cut off as a request.
    return _JOINED_LETS.sub(r" - \g<lets>", _LETS.sub(said_as_own, sentence))
