"""What a question or a request takes as given.

"How do I plan around the fact that my lease now ends on 30 June?" asks something, but it also
states the lease's end: a question can carry a fact the speaker presents as settled, behind "the
fact that", "now that", "given that", "seeing that", "considering that", "since" or "because". That
clause is a statement the speaker made, as much as if it stood alone, and a later value stated this
way updates an earlier one.

The clause runs from its subject to the first place where the question takes over again: a comma,
the end of the sentence, an embedded question ("… how I …"), "so"/"but"/"and how", or "to" opening
the purpose of the whole request ("… that I saved $400 to plan the next step"); "to" before a name,
a number or a noun phrase ("moved to May 3", "switched to the night shift") stays in the clause.
"""

from __future__ import annotations

import re

_TRIGGER = re.compile(
    r"(?i)\b(?:the fact that|now that|given that|seeing that|seeing as|considering that|since|because)\s+"
)
# A person opens a clause ("since I joined"); a noun phrase ("since the move", "since my
# birthday") is one only with a verb after it (`_VERB`). "it", "they", "this" are left alone: the
# clause would lose what they stand for, which the question as asked keeps.
_PRONOUN = re.compile(r"(?i)(?:i|i'm|i've|i'd|i'll|we|we're|we've|he|he's|she|she's)\b")
_DETERMINER = re.compile(r"(?i)(?:my|our|his|her|their|the)\b")
_VERB = re.compile(
    r"(?i)\b(?:is|are|was|were|been|has|have|had|got|gets|will|would|can|could|did|does|am|now"
    r"|went|came|became|grew|fell|rose|made|took|gave|left|began|ran|paid|spent|sold|bought|found|kept|lost|won|set"
    r"|cut|put|met|told|said|felt)\b|\b\w{3,}ed\b|'(?:s|re|ve)\b"
)
_END = re.compile(
    r"(?i)\s*(?:,(?!\d{3})|[;?!])|\.(?:\s|$)"
    r"|\s+(?:how|what|which|whether|why|where|so|but"
    r"|and (?:how|what|whether|can|could|should|would|will|is|are|do|does))\b"
)
_TO = re.compile(r"\s+to\s+(?P<next>[\w$'\u2019-]+)")
# After "to", these open a place, a time or a thing the clause is about, not the request's purpose.
_TO_KEEPS = frozenset(
    """
a an the my our your his her their its this that these those some another each every one two three four five six
seven eight nine ten half about around over under nearly almost roughly just only
""".split()
)


def _cut_purpose(clause: str) -> str:
    """The clause without a trailing purpose of the request ("… to improve my resume")."""
    for match in _TO.finditer(clause):
        following = match.group("next")
        if following[:1].isupper() or following[:1].isdigit() or following[:1] == "$":
            continue
        if following.lower() in _TO_KEEPS:
            continue
        return clause[: match.start()]
    return clause


def without_trigger(piece: str) -> str:
    """A piece that opens on a trigger and a clause, said as the clause ("now that I've reached 16
    stops" -> "I've reached 16 stops"); any other piece as it is."""
    match = _TRIGGER.match(piece)
    if match and _opens_clause(piece[match.end() :]):
        return piece[match.end() :]
    return piece


def _opens_clause(rest: str) -> bool:
    if _PRONOUN.match(rest):
        return True
    if not _DETERMINER.match(rest):
        return False
    end = _END.search(rest)
    return bool(_VERB.search(_cut_purpose(rest[: end.start()] if end else rest)))


def presupposed_clauses(text: str) -> list[str]:
    """The clauses `text` (a question or a request) takes as given, in order; each opens on its
    subject ("my lease now ends on 30 June"). A trigger not followed by a clause ("since May",
    "because of the rain", "since the move") gives nothing."""
    found: list[str] = []
    for trigger in _TRIGGER.finditer(text):
        rest = text[trigger.end() :]
        if not _opens_clause(rest):
            continue
        end = _END.search(rest)
        clause = _cut_purpose(rest[: end.start()] if end else rest).strip()
        if len(clause.split()) >= 2:
            found.append(clause)
    return found
