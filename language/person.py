"""Who the user is, and first-person statements rewritten about them.

A memory is read later, out of context, by an agent: "my flight is on 2026-03-10" must become
"Ava's flight is on 2026-03-10" (or "The user's ..." when no name was given). The name is only
taken from an explicit introduction ("my name is Ava", "call me Ava", "Hi, I'm Ava"), never
guessed from "I'm Italian".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from language import patterns
from language.patterns import compiled

_NAME_WORD = patterns.NAME_WORD
# Case-insensitive lead-ins, case-sensitive names: "I'm vegetarian" is not an introduction.
_INTRODUCTIONS = (
    re.compile(rf"\b(?i:my name is|my name's|call me)\s+(?P<name>{_NAME_WORD})\b"),
    re.compile(rf"^\s*(?i:hi|hello|hey)(?i:\s+there)?[,!.]?\s+(?i:i'm|i am|this is)\s+(?P<name>{_NAME_WORD})\b"),
)
INTRODUCTION_CLAUSE = compiled(patterns.INTRODUCTION_CLAUSE)

_ADVERB = (
    r"(?:\w+(?:ally|ently|antly|ously|ively|arly|ully)|always|never|often|sometimes|also|still|just|only"
    r"|now|even|really|already|rarely|mostly|barely|hardly|definitely|honestly|probably|actually)"
)
_VERB = r"(?:[a-z]+n't|[a-z]+n\u2019t|[a-z]+)"
_FIRST_PERSON = re.compile(
    r"\b(?P<i_be>I(?:'m|\u2019m| am))\b"
    r"|\bI(?P<i_aux>'ve|'ll|'d|\u2019ve|\u2019ll|\u2019d)\b"
    rf"|\bI\s+(?P<i_adv>{_ADVERB}\s+)?(?P<i_verb>{_VERB})\b"
    r"|\b(?P<my>[Mm]y|[Mm]ine)\b|\b(?P<me>[Mm]e|[Mm]yself)\b"
    r"|\b(?P<we_be>[Ww]e(?:'re|\u2019re| are))\b"
    r"|\b[Ww]e(?P<we_aux>'ve|'ll|'d|\u2019ve|\u2019ll|\u2019d)\b"
    rf"|\b[Ww]e\s+(?P<we_adv>{_ADVERB}\s+)?(?P<we_verb>{_VERB})\b"
    r"|\b(?P<our>[Oo]urs?)\b|\b(?P<us>us)\b"
)
_AUXILIARIES = {"'ve": "has", "'ll": "will", "'d": "would"}
_IRREGULAR = {
    "have": "has",
    "do": "does",
    "don't": "doesn't",
    "haven't": "hasn't",
    "go": "goes",
    "be": "is",
    "am": "is",
    "are": "is",
}
# Forms that do not change with the subject: modals, pasts (regular and common irregular).
_INVARIANT = frozenset(
    """
can could will would shall should may might must was were had did can't couldn't won't wouldn't
shouldn't didn't wasn't weren't hadn't went flew got took made said came saw bought left sent told
thought found gave ate drank knew met paid put ran sat spent wrote began brought chose felt kept lost
heard held became set forgot moved read let cut hit
""".split()
)


def detect_user_name(user_texts: Iterable[str]) -> str | None:
    """The name the user most recently introduced themselves with, if any."""
    name: str | None = None
    for text in user_texts:
        for pattern in _INTRODUCTIONS:
            for match in pattern.finditer(text):
                name = match.group("name").capitalize()
    return name


def third_person_verb(verb: str) -> str:
    lower = verb.lower().replace("\u2019", "'")
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower in _INVARIANT or lower.endswith(("ed", "n't")):
        return verb
    if lower.endswith("y") and len(lower) > 2 and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    return verb + "s"


_SECOND_PERSON = re.compile(
    r"\b(?P<you_be>[Yy]ou(?:'re|\u2019re| are))\b|\b(?P<you_were>[Yy]ou were)\b"
    r"|\b[Yy]ou(?P<you_aux>'ve|'ll|'d|\u2019ve|\u2019ll|\u2019d)\b"
    r"|\b(?P<you_have>[Yy]ou have)\b"
    r"|\b(?P<your>[Yy]our)\b|\b(?P<yours>[Yy]ours)\b|\b(?P<you>[Yy]ou)\b"
)


def _second_person(statement: str, other: str) -> str:
    """In a two-person chat, "you" is the other person."""

    def replace(match: re.Match[str]) -> str:
        if match.group("you_be"):
            return f"{other} is"
        if match.group("you_were"):
            return f"{other} was"
        if match.group("you_have"):
            return f"{other} has"
        if match.group("you_aux"):
            return f"{other} {_AUXILIARIES[match.group('you_aux').replace(chr(0x2019), chr(39))]}"
        if match.group("your") or match.group("yours"):
            return f"{other}'s"
        return other

    return _SECOND_PERSON.sub(replace, statement)


def to_third_person(statement: str, name: str | None, *, other: str | None = None, speaker_named: bool = False) -> str:
    """Rewrite first-person references ("I", "my", "we", "our") about the speaker and their team.

    `speaker_named` is a chat participant named in the message itself: then "we" is not "the
    team" (it is the speaker's family, friends, the two people talking...) and stays as said;
    `other` is whom "you" means in a two-person conversation."""
    subject = name or "the user"
    possessive = f"{subject}'s"
    if other:
        statement = _second_person(statement, other)

    def replace(match: re.Match[str]) -> str:
        if speaker_named and (
            match.group("we_be")
            or match.group("we_aux")
            or match.group("we_verb")
            or match.group("our")
            or match.group("us")
        ):
            return match.group(0)
        if match.group("i_be"):
            return f"{subject} is"
        if match.group("i_aux"):
            return f"{subject} {_AUXILIARIES[match.group('i_aux').replace(chr(0x2019), chr(39))]}"
        if match.group("i_verb"):
            return f"{subject} {match.group('i_adv') or ''}{third_person_verb(match.group('i_verb'))}"
        if match.group("my"):
            return possessive
        if match.group("me"):
            return subject
        if match.group("we_be"):
            return "the team is"
        if match.group("we_aux"):
            return f"the team {_AUXILIARIES[match.group('we_aux').replace(chr(0x2019), chr(39))]}"
        if match.group("we_verb"):
            return f"the team {match.group('we_adv') or ''}{third_person_verb(match.group('we_verb'))}"
        if match.group("our"):
            return "the team's"
        if match.group("us"):
            return "the team"
        raise AssertionError(f"unhandled first-person form {match.group(0)!r}")

    rewritten = _FIRST_PERSON.sub(replace, statement)
    return rewritten[:1].upper() + rewritten[1:]
