"""Turn a user's statement into the text of a durable memory.

"My flight to Lisbon is next Tuesday" said on 2026-03-05 by Ava becomes "Ava's flight to Lisbon
is on 2026-03-10.": third person (the name when the user gave one, else "The user"), relative
time made absolute from the message's own timestamp. Whether the statement should become a memory
at all (already cited, already known, overruled) is the caller's decision. A whole message is read
by `extraction.message_facts`; this is the clause-level form the verify pass compares claims with.
"""

from __future__ import annotations

import re

from language.clauses import STATEMENT_KINDS, Clause, is_statement_worth_keeping
from language.dates import rewrite_relative_time
from language.ellipsis import with_subject
from language.person import INTRODUCTION_CLAUSE, to_third_person

_SPACES = re.compile(r"\s+")
_TRAILING = ",;:-\u2013\u2014 "
_LOWER_OPENING = re.compile(r"(?<=[a-z]{2}[.!?])(?<!etc\.)(?<!\bvs\.) ([a-z])(?=[\w'\u2019]* )")
"""A chat's sentence begun in lower case after another's stop ("… a year. those times are …")."""
_CLOSED_QUOTE = re.compile(r"[.!?][\"'\u201d\u2019)]+$")
"""A sentence ending inside its quotation or brackets is ended ('start with "The Last Wish."')."""


def memory_text_for(clause: Clause, user_name: str | None) -> str | None:
    """The memory a statement clause would make, or None when it is not a keepable statement."""
    if clause.kind not in STATEMENT_KINDS:
        return None
    if clause.kind == "introduction":
        match = INTRODUCTION_CLAUSE.match(clause.body)
        said = match.group("name") if match else None
        # Only the name the user introduced themselves with; "I'm Italian" is not a name.
        return f"The user's name is {user_name}." if said and said == user_name else None
    if not is_statement_worth_keeping(clause.body):
        return None
    text = rewrite_relative_time(with_subject(clause.body), clause.ts).text
    text = to_third_person(text, user_name)
    return finish_sentence(text)


def finish_sentence(text: str) -> str:
    text = _SPACES.sub(" ", text).strip().rstrip(_TRAILING)
    if text.endswith("!"):
        text = text[:-1]
    if not text.endswith((".", "?")) and not _CLOSED_QUOTE.search(text):
        text += "."
    text = _LOWER_OPENING.sub(lambda m: f" {m.group(1).upper()}", text)
    return text[:1].upper() + text[1:]
