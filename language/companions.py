"""Who "we" are in a message: the speaker and the person (or group) the message names beside them.

"My partner Sam and I met at a cafe; we still go there" — "we" is the speaker and Sam. A memory
read out of context must say so, never "the team" (a family is not a team) and never "we" (a
reader cannot tell whose). The companion is found in the message itself, by the shapes English
uses to name one: "<Name> and I", "me and <Name>", "my <relation> <Name>", "my <relation>", "with
<Name>". A collective relation ("my team", "my family") is who "we" are, on its own.

Whatever companion a message names, the "we" who talk ("since we last chatted", "we've spoken
about it") are the two people of the conversation: the speaker and whom they talk to.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Relations a speaker names a companion by: kinship, partners, friends, work, household.
RELATIONS = (
    "partner|wife|husband|spouse|boyfriend|girlfriend|fianc[eé]e?|friend|best friend|buddy|mom|mum|mother|dad"
    "|father|parents|son|daughter|kids|children|brother|sister|siblings|cousin|grandma|grandmother|grandpa"
    "|grandfather|aunt|uncle|niece|nephew|colleague|coworker|co-worker|boss|manager|roommate|flatmate|neighbou?r"
    "|teammate|classmate|mentor|dog|cat"
)
COLLECTIVES = "team|family|group|class|band|crew|company|club|squad|household|department"
_NAME = r"[A-Z][a-z]+(?:\s[A-Z][a-z]+)?"
_NAME_AND_I = re.compile(rf"\b(?P<name>{_NAME})\s+and\s+(?:I|me|myself)\b|\b(?:I|me)\s+and\s+(?P<name2>{_NAME})\b")
_MY_RELATION = re.compile(
    rf"(?i:\bmy\s+(?:(?:new|old|little|big|younger|older|best|dear|lovely)\s+)?(?P<rel>{RELATIONS}))"
    rf"(?:,?\s+(?P<name>{_NAME})\b)?"
)
_MY_COLLECTIVE = re.compile(rf"(?i:\b(?:my|our)\s+(?P<rel>{COLLECTIVES})\b)")
_RELATION_AND_I = re.compile(rf"(?i:\bmy\s+(?P<rel>{RELATIONS}))(?:,?\s+(?P<name>{_NAME}),?)?\s+and\s+(?:I|me)\b")
_WITH_NAME = re.compile(rf"\bwith\s+(?P<name>{_NAME})\b")
_NOT_NAMES = frozenset({"I", "The", "A", "An", "My", "Our", "We", "It", "This", "That", "You"})


class Companion(NamedTuple):
    name: str | None
    """The companion's name when the message gives one ("Sam")."""
    relation: str | None
    """How the speaker calls them ("partner"), or None."""
    collective: bool = False
    """A group the speaker belongs to ("team", "family"): then "we" is the group itself."""

    def who_we_are(self, speaker: str) -> str:
        """ "we" said by `speaker`: "Ava and Sam", "Ava and Ava's partner", "Ava's team"."""
        if self.collective:
            return f"{speaker}'s {self.relation}"
        if self.name:
            return f"{speaker} and {self.name}"
        return f"{speaker} and {speaker}'s {self.relation}"


def _named(name: str | None) -> str | None:
    return name if name and name.split()[0] not in _NOT_NAMES else None


def companion_of(text: str, ignore: frozenset[str] = frozenset()) -> Companion | None:
    """The companion a message names for its speaker, if any (`ignore`: names that are not
    companions, e.g. the speaker's own and the listener's)."""
    for pattern in (_RELATION_AND_I, _NAME_AND_I):
        for match in pattern.finditer(text):
            groups = match.groupdict()
            name = _named(groups.get("name") or groups.get("name2"))
            relation = groups.get("rel")
            if name in ignore:
                name = None
            if name or relation:
                return Companion(name, relation.lower() if relation else None)
    relation = _MY_RELATION.search(text)
    if relation:
        name = _named(relation.group("name"))
        return Companion(None if name in ignore else name, relation.group("rel").lower())
    collective = _MY_COLLECTIVE.search(text)
    if collective:
        return Companion(None, collective.group("rel").lower(), collective=True)
    beside = _WITH_NAME.search(text)
    if beside and (name := _named(beside.group("name"))) and name not in ignore:
        return Companion(name, None)
    return None


_WE_WHO_TALK = re.compile(
    r"\b[Ww]e(?P<contracted>['\u2019](?:ve|d))?"
    r"(?P<aux>(?:\s+(?:last|have|had|haven't|hadn't|never|not|didn't|did|just|already|often|recently|finally))*)"
    r"\s+(?P<verb>talk(?:ed|ing)?|chat(?:ted|ting)?|spoke|spoken|speak(?:ing)?|caught\s+up|catch(?:ing)?\s+up"
    r"|text(?:ed)?|messag(?:ed|ing)|discuss(?:ed|ing)?)\b"
)
_CONTRACTED = {"ve": " have", "d": " had"}
# What only the two talking share: "I appreciate our friendship", "I loved our chat".
_OURS_WHO_TALK = re.compile(
    r"\b[Oo]ur\s+(?P<shared>friendship|bond|chats?|talks?|conversations?|catch[- ]?ups?|connection)\b"
)


def we_who_talk(text: str, speaker: str, listener: str) -> str:
    """ "It's been ages since we chatted" said by Ava to Sam: "since Ava and Sam chatted". The
    conversation's own "we" is its two people, whoever else the message is about, and so is the
    friendship or the chat that is "ours"."""

    def the_two(match: re.Match[str]) -> str:
        contracted = _CONTRACTED[match.group("contracted")[1:]] if match.group("contracted") else ""
        return f"{speaker} and {listener}{contracted}{match.group('aux')} {match.group('verb')}"

    text = _OURS_WHO_TALK.sub(lambda m: f"{speaker} and {listener}'s {m.group('shared')}", text)
    return _WE_WHO_TALK.sub(the_two, text)
