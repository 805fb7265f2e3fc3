"""What a bare "it" stands for, read from the words before it.

"I looked over the field trip budget, and it was raised to $120" states a new value of the field
trip budget, but a clause cut at the comma says only "it was raised to $120", and nothing in it
is close in meaning to "the field trip budget is $100". `noun_phrases_before` lists the noun
phrases the speaker said just before the "it" (the nearest first), and `with_antecedent` puts one
in the pronoun's place, so a reader can compare what the clause is about. Which one is meant is
left to whoever compares: a wrong one is simply unlike anything. No model here.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from language.dates import WEEKDAYS
from language.sentences import sentence_end
from language.tokens import MONTHS

MAX_PHRASES = 3
"""Noun phrases offered for one "it": the nearest ones."""
MAX_PHRASE_WORDS = 7
"""A noun phrase longer than this is cut: the head and its first qualifier say what it is."""

_PRONOUN = re.compile(r"\b[Ii]t(?:['\u2019](?:s|ll|d)\b)?(?![\w'\u2019-])")
OPENERS = r"the|a|an|my|our|your|his|her|their|this|that"
"""The words that open a noun phrase (a possessive name opens one too: "Ava's flight")."""
_PHRASE_START = re.compile(rf"\b(?i:{OPENERS})\s+(?=[A-Za-z])|\b[A-Z][a-z]+['\u2019]s\s+(?=[a-z])")
PHRASE_END = re.compile(
    r"[,;:!?()\u2013\u2014\"]|\s(?:and|but|or|so|because|since|that|which|who|when|while|if|then|"
    r"is|are|was|were|has|have|had|got|gets|will|would|can|could|should|might|must|do|does|did|"
    r"again|now|today|yesterday|recently|already|too|also|just|still|anyway)\b",
    re.IGNORECASE,
)
"""Where a noun phrase ends: punctuation, a conjunction, a verb or a word of time after it."""
_QUALIFIER = re.compile(r"\b(?:for|of|with|from|at|in|on|to|by)\s+$", re.IGNORECASE)
"""A phrase after these qualifies the one before it ("a gift for …"); one after "about" is more
often what a verb is about ("emailed the landlord about the heater"), a phrase of its own."""
_OPEN_END = re.compile(r"\b(?:for|of|with|about|from|at|in|on|to|by)$", re.IGNORECASE)


def completed_by_what_follows(phrase: str) -> bool:
    """A phrase of `noun_phrases_before` that ends on its preposition ("a big fan of", "a photo
    of"): the pronoun after it completes it, so it is not what that pronoun stands for."""
    return _OPEN_END.search(phrase) is not None


_QUALIFIER_INSIDE = re.compile(r"\s(?:for|about|from|at|in|on|to|by)\s", re.IGNORECASE)
"""Where a phrase's head ends: "a gift | for the recital". Who or what a thing is with or of stays
part of it ("the call with Dr. Ruiz", "the cost of the trip"): another call is another thing."""
_DUMMY = re.compile(
    r"(?:\s+(?:is|was|will\s+be|has\s+been|had\s+been))?(?:\s+been)?"
    r"(?:\s+(?:now|already|almost|nearly|just|only|about|over|around|another))*"
    rf"\s+(?:\d|{'|'.join(MONTHS)}|{'|'.join(WEEKDAYS)}|(?:a|one|two|three|four|five|six|several|a\s+few)\s+"
    r"(?:minutes?|hours?|days?|weeks?|months?|years?)\b|time\b|late\b|early\b|noon\b|midnight\b)",
    re.IGNORECASE,
)
"""What follows the "it" of a time or a span: a number, a date, a length of time ("it's been a
few weeks"), the time of day. "It may …" reads as the month too, which leaves a change that only
may happen unresolved, as it should be."""
_SENTENCE_END = sentence_end(careful=True, newlines=True)
_POSSESSIVE_OPENER = re.compile(r"^(?:my|our|your)\s+", re.IGNORECASE)
_CONTRACTIONS = {"'s been": " has been", "'s": " is", "'ll": " will", "'d": " would"}


def noun_phrases_before(text: str, end: int) -> list[str]:
    """The noun phrases opened by a determiner or a possessive in `text[:end]`, nearest first, at
    most `MAX_PHRASES`, each cut to its head (`_QUALIFIER_INSIDE`). In "a gift for my niece's
    recital", "it was delayed" stands for the gift, never the recital: a phrase qualifying another
    is no phrase of its own, and the qualifier is left out. In "emailed the landlord about the
    heater", both "the heater" and "the landlord" are offered."""
    before = text[:end]
    spans: list[tuple[int, int]] = []
    for opener in _PHRASE_START.finditer(before):
        start = opener.start()
        rest = before[start:]
        stop = min(
            (m.start() for m in (PHRASE_END.search(rest, pos=1), _SENTENCE_END.search(rest)) if m), default=len(rest)
        )
        if spans and spans[-1][0] < start < spans[-1][1] and _QUALIFIER.search(before[:start]):
            continue  # inside the phrase before it, after "for", "of", "with"…
        spans.append((start, start + stop))
    found: list[str] = []
    for start, stop in reversed(spans):
        head = _QUALIFIER_INSIDE.search(before, start, stop)  # "it" stands for the gift, not what it is for
        words = before[start : head.start() if head else stop].rstrip(" .!?").split()[:MAX_PHRASE_WORDS]
        phrase = _POSSESSIVE_OPENER.sub("the ", " ".join(words))
        if len(words) >= 2 and not _PRONOUN.fullmatch(words[-1]) and phrase not in found:
            found.append(phrase)
        if len(found) == MAX_PHRASES:
            break
    return found


def pronoun_at(text: str) -> re.Match[str] | None:
    """The first bare "it" of `text` (with its contraction: "it's", "it'll") that stands for a
    thing: not the "it" of a time or a span ("it's now May 3", "it's been 2 weeks since")."""
    for pronoun in _PRONOUN.finditer(text):
        if not _DUMMY.match(text, pronoun.end()):
            return pronoun
    return None


def with_antecedent(text: str, pronoun: re.Match[str], phrase: str) -> str:
    """`text` with the "it" at `pronoun` replaced by `phrase` ("it's been moved" -> "the
    recital has been moved")."""
    said = pronoun.group(0).replace("\u2019", "'")
    tail = said[2:].lower()
    after = text[pronoun.end() :]
    if tail == "'s" and after.lower().startswith(" been"):
        tail, after = "'s been", after[5:]
    if said[0] == "I":  # "It" opened a sentence: so does the phrase
        phrase = phrase[:1].upper() + phrase[1:]
    return f"{text[: pronoun.start()]}{phrase}{_CONTRACTIONS.get(tail, '')}{after}"


class Reading(NamedTuple):
    """A statement read with its "it" replaced by `phrase`."""

    phrase: str
    text: str


def resolved(statement: str, message: str) -> list[Reading]:
    """`statement` (a clause of `message`, maybe reworded) with its first bare "it" replaced by
    each noun phrase `message` says before that "it", in its sentence or the one before: one
    reading per phrase, nearest first; none when the statement has no "it" or the message does
    not say it."""
    pronoun = pronoun_at(statement)
    if pronoun is None:
        return []
    following = _next_words(statement, pronoun.end())
    for said in _PRONOUN.finditer(message):
        if following and _next_words(message, said.end()) == following:
            start = _sentence_start(message, _sentence_start(message, said.start()) - 1)
            phrases = noun_phrases_before(message[start:], said.start() - start)
            return [Reading(phrase, with_antecedent(statement, pronoun, phrase)) for phrase in phrases]
    return []


_WORD = re.compile(r"[a-z0-9']+")


def _next_words(text: str, at: int, count: int = 2) -> tuple[str, ...]:
    return tuple(_WORD.findall(text[at : at + 60].lower().replace("\u2019", "'"))[:count])


def _sentence_start(text: str, at: int) -> int:
    """Where the sentence holding position `at` starts (0 for the first, or when `at` < 0)."""
    return max((m.end() for m in _SENTENCE_END.finditer(text) if m.end() <= at), default=0)
