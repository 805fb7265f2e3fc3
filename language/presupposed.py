"""What a question or a request takes as given.

"How do I plan around the fact that my lease now ends on 30 June?" asks something, but it also
states the lease's end: a question can carry a fact the speaker presents as settled, behind "the
fact that", "now that", "given (that)", "seeing that", "considering (that)", "since" or "because"
(also after "especially"). That
clause is a statement the speaker made, as much as if it stood alone, and a later value stated this
way updates an earlier one.

The clause runs from its subject to the first place where the question takes over again: a comma,
the end of the sentence, an embedded question ("… how I …"), "so"/"but"/"and how", or "to" opening
the purpose of the whole request ("… that I saved $400 to plan the next step"); "to" before a name,
a number or a noun phrase ("moved to May 3", "switched to the night shift") stays in the clause.
"""

from __future__ import annotations

import re

from language.changes import AUXILIARIES, IRREGULAR_PAST
from language.values import carries_value

_TRIGGER = re.compile(
    r"(?i)\b(?:(?:especially|particularly)\s+)?"
    r"(?:the fact that|now that|given(?: that)?|seeing that|seeing as|considering(?: that)?|since|because)\s+"
)
# A person opens a clause ("since I joined"); a noun phrase ("since the move", "since my
# birthday") is one only with a verb after it (`_has_verb`). "it", "they", "this" are left alone: the
# clause would lose what they stand for, which the question as asked keeps.
_PRONOUN = re.compile(r"(?i)(?:i|i'm|i've|i'd|i'll|we|we're|we've|he|he's|she|she's)\b")
_DETERMINER = re.compile(r"(?i)(?:my|our|his|her|their|the)\b")
_SPEAKERS_OWN = re.compile(r"(?i)(?:my|our)\b")
# The auxiliaries and irregular past forms the change reader knows, "now" ("my lease now ends …"),
# and any "-ed" word or "'s"/"'re"/"'ve".
_VERB_WORDS = (AUXILIARIES - {"to"}) | IRREGULAR_PAST | {"now"}
_WORD = re.compile(r"[a-z']+", re.IGNORECASE)
_END = re.compile(
    r"(?i)\s*(?:,(?!\d{3})|[;?!])|\.(?:\s|$)"
    r"|\s+(?:how|what|which|whether|why|where|so|but"
    r"|and (?:how|what|whether|can|could|should|would|will|is|are|do|does))\b"
)
_TO = re.compile(
    r"(?<!\bdue)(?<!\bowing)(?<!\bthanks)(?<!\baccording)(?<!\bnext)(?<!\bclose)(?<!\bprior)\s+to\s+(?P<next>[\w$'\u2019-]+)"
)
"""A "to" that may open the request's purpose; "due to", "thanks to", "according to" and their like
are prepositions inside the clause ("… moved to May 3 due to the rain")."""
# After "to", these open a place, a time or a thing the clause is about, not the request's purpose.
_TO_KEEPS = frozenset(
    """
a an the my our your his her their its this that these those some another each every one two three four five six
seven eight nine ten half about around over under nearly almost roughly just only
""".split()
)


def _has_verb(clause: str) -> bool:
    return any(
        word in _VERB_WORDS or (len(word) > 4 and word.endswith("ed")) or word.endswith(("'s", "'re", "'ve"))
        for word in (w.lower() for w in _WORD.findall(clause))
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
    if match and _clause_after(piece[match.end() :]) is not None:
        return piece[match.end() :]
    return piece


def _clause_after(rest: str) -> str | None:
    """The clause that `rest` (the words after a trigger) opens, up to where the question takes
    over again; None when it opens none."""
    pronoun = _PRONOUN.match(rest)
    if not pronoun and not _DETERMINER.match(rest):
        return None
    end = _END.search(rest)
    clause = _cut_purpose(rest[: end.start()] if end else rest).strip()
    return clause if pronoun or _has_verb(clause) else None


def presupposed_clauses(text: str) -> list[str]:
    """The clauses `text` (a question or a request) takes as given, in order; each opens on its
    subject ("my lease now ends on 30 June"). A trigger not followed by a clause ("since May",
    "because of the rain", "since the move") gives nothing."""
    found: list[str] = []
    for trigger in _TRIGGER.finditer(text):
        clause = _clause_after(text[trigger.end() :])
        if clause is not None and len(clause.split()) >= 2:
            found.append(clause)
    return found


def frame_statement(piece: str) -> str | None:
    """What a piece opening a question on a trigger states ("Given the rent went up to 900 euros,
    can you …?" -> "The rent went up to 900 euros"): its clause when the clause has the speaker,
    a person or a value for subject; a noun phrase holding a value as that phrase ("Given my
    budget of 500 euros" -> "My budget of 500 euros"); nothing when it only frames the question
    ("Considering the weather", "Given the rising popularity of animated films"). A piece opening
    on no trigger is returned as it is."""
    trigger = _TRIGGER.match(piece)
    if trigger is None:
        return piece
    rest = piece[trigger.end() :]
    said = rest[:1].upper() + rest[1:]
    if _clause_after(rest) is not None and (_PRONOUN.match(rest) or _SPEAKERS_OWN.match(rest) or carries_value(rest)):
        return said
    if not carries_value(piece):
        return None
    return said if _DETERMINER.match(rest) else piece
