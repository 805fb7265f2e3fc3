"""Who is speaking in a message.

Multi-person chats written as one stream prefix each message with the speaker's name
("Caroline: I went to ..."). That name, not one guessed for the whole scope, is whose "I" and
"my" the message's statements are; in a two-person conversation "you" is the other person.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

# One to three capitalised words, then a colon and a space: "Caroline: ...", "Mary Ann: ...".
_PREFIX = re.compile(r"^\s*(?P<name>[A-Z][\w'\-]{0,30}(?: [A-Z][\w'\-]{0,30}){0,2}):\s+(?P<body>\S.*)\Z", re.DOTALL)
# Words that open an ordinary sentence followed by a colon ("Note: ...", "Update: ..."): not names.
_NOT_NAMES = frozenset(
    """
note update reminder warning fyi ps p.s re subject summary edit todo question answer correction system
user assistant important tip example step result problem issue
""".split()
)


class Speaker(NamedTuple):
    name: str | None
    """The speaker's name when the message starts with one, else None."""
    body: str
    """The message without the name prefix."""


def split_speaker(content: str) -> Speaker:
    match = _PREFIX.match(content)
    if match is None or match.group("name").lower() in _NOT_NAMES:
        return Speaker(None, content)
    return Speaker(match.group("name"), match.group("body"))


def participants(contents: Iterable[str]) -> tuple[str, ...]:
    """The distinct named speakers, in order of first appearance."""
    seen: dict[str, None] = {}
    for content in contents:
        name = split_speaker(content).name
        if name is not None:
            seen.setdefault(name, None)
    return tuple(seen)


def other_participant(speaker: str | None, names: tuple[str, ...]) -> str | None:
    """In a two-person conversation, the one who is not speaking: whom "you" means."""
    if speaker is None or len(names) != 2 or speaker not in names:
        return None
    return names[1] if names[0] == speaker else names[0]


# --- who the two roles of a chat are, when the messages carry no name prefix
ADDRESS_OPENERS = (
    r"hi|hiya|hey|hello|heya|yo|thanks|thank you|thx|congrats|congratulations|wow|oh|aw+|yes|yeah|no|sure"
    r"|sorry|good (?:morning|afternoon|evening|night)|morning|bye|cheers|haha|omg|ok|okay|dear"
)
"""Words that open a message addressed to someone by name ("Hey Mel!", "Thanks so much, Jon")."""
_VOCATIVE_OPENER = re.compile(
    rf"^\s*(?i:{ADDRESS_OPENERS})(?:\s+(?i:so much|a lot|again))?[,!.]?\s+(?P<name>[A-Z][a-z]{{1,20}})\b(?!\s+[A-Z])"
)
_VOCATIVE_CLOSER = re.compile(r",\s+(?P<name>[A-Z][a-z]{1,20})\s*[!.?]+(?:\s|$)")
_LIFE_CUE = re.compile(
    r"(?i)\bmy\s+(?:wife|husband|partner|boyfriend|girlfriend|kids?|son|daughter|mom|mum|dad|mother|father"
    r"|parents|brother|sister|family|dog|cat|pets?|friends?|grandma|grandpa|cousin)\b"
    r"|\b(?:i|we)\s+(?:went|visited|saw|met|took|bought|started|finished|tried|made|had|was|were|got|did|love"
    r"|enjoy|felt)\b|\blast (?:week|weekend|night|month|year)\b|\byesterday\b"
)
_MARKDOWN = re.compile(r"^\s*(?:#{1,6}\s|[-*]\s|\d+\.\s|```)", re.MULTILINE)
PERSON_SHARE = 0.08
"""An "assistant" telling of their own life (family, outings, "last weekend") in this share of
their turns, in turns about as long as the user's and without markup, is a person."""
MARKUP_SHARE = 0.1
LENGTH_RATIO = 2.0
"""An AI assistant answers at length (lists, plans, code); two people write turns of a size."""


def _median_words(contents: Sequence[str]) -> int:
    sizes = sorted(len(c.split()) for c in contents)
    return sizes[len(sizes) // 2] if sizes else 0


def addressed_names(contents: Iterable[str]) -> Counter[str]:
    """The names a speaker calls the other by ("Hey Mel!", "Thanks, Jon.")."""
    return _names_in(contents, (_VOCATIVE_OPENER, _VOCATIVE_CLOSER))


def _names_in(contents: Iterable[str], patterns: tuple[re.Pattern[str], ...]) -> Counter[str]:
    found: Counter[str] = Counter()
    for content in contents:
        for pattern in patterns:
            for match in pattern.finditer(content):
                if match.group("name").lower() not in _NOT_NAMES:
                    found[match.group("name")] += 1
    return found


# An AI assistant's reply opening on the user's name: "Certainly, Crystal.", "Great question,
# Omar!". Not "Hi Tom," or "Dear Tom,": a reply may open on a draft the user asked for.
_REPLY_TO_NAME = re.compile(
    r"^\s*(?i:certainly|absolutely|of course|sure|great|great question|good question|thanks|thank you"
    r"|you're welcome|glad|happy|got it|understood|no problem|congrats|congratulations|yes|sorry|okay|ok)"
    r"(?:\s+(?i:so much|a lot|again))?[,!.]?\s+(?P<name>[A-Z][a-z]{1,20})\s*[,.!?]"
)


def reply_vocatives(contents: Iterable[str]) -> Counter[str]:
    """The names an AI assistant's replies open on ("Certainly, Crystal."): the user's."""
    return _names_in(contents, (_REPLY_TO_NAME,))


def speaks_as_person(contents: Sequence[str], other: Sequence[str] = ()) -> bool:
    """Whether the `assistant` turns (`contents`) read as a person chatting with the user, whose
    turns are `other`: about as long as theirs, without markup, telling of their own life —
    rather than an AI assistant (long, structured answers about the user's task)."""
    if not contents:
        return False
    if _median_words(contents) > LENGTH_RATIO * _median_words(other) + 10:
        return False
    marked = sum(1 for c in contents if _MARKDOWN.search(c))
    life = sum(1 for c in contents if _LIFE_CUE.search(c))
    return marked <= MARKUP_SHARE * len(contents) and life >= PERSON_SHARE * len(contents)


SHORT_NAME_MIN_LETTERS = 2
SHORT_NAME_MIN_TIMES = 2
"""A short form is a name of the chat's people once it addresses one of them this often: "Al"
said once may be someone else; "Hey Mel!" and "Thanks, Mel" are Melanie."""


def short_names(people: Sequence[str], addressed: Counter[str]) -> tuple[str, ...]:
    """The shortened names the chat's people are called by: "Mel" for Melanie, "Deb" for Deborah.
    A name addressed at least twice that begins a person's name and is nobody's full name. Their
    names address rather than inform ("Yeah Mel, stoked" says "stoked"), as the full names do.
    Names that do not shorten the full one ("Bob" for Robert) are not found."""
    return tuple(
        sorted(
            name
            for name, times in addressed.items()
            if times >= SHORT_NAME_MIN_TIMES
            and len(name) >= SHORT_NAME_MIN_LETTERS
            and name not in people
            and any(person.startswith(name) for person in people)
        )
    )


def addressee(names: Counter[str], exclude: str | None = None) -> str | None:
    """The name one side calls the other by most, when it is said at least twice and clearly the
    most frequent (a chat's two people call each other by name; third names come and go)."""
    merged: Counter[str] = Counter()
    for name, count in names.items():  # "Mel" and "Melanie" are one person: counted as the longer name
        longer = [n for n in names if n != name and n.startswith(name)]
        merged[max(longer, key=lambda n: names[n]) if longer else name] += count
    ranked = [(n, c) for n, c in merged.most_common() if n != exclude]
    if not ranked or ranked[0][1] < 2:
        return None
    if len(ranked) > 1 and ranked[1][1] * 2 > ranked[0][1]:
        return None
    return ranked[0][0]
