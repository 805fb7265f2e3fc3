"""Split a user message into clauses and say what each one does.

"My flight to Lisbon is next Tuesday, can you check the gate?" is two clauses: a fact and a
request. Only statements (fact, preference, decision, correction, introduction) can become
memories; questions, requests, greetings, complaints and injected instructions never do.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from language import patterns
from language.injection import is_injection
from language.patterns import compiled
from language.person import INTRODUCTION_CLAUSE
from language.sentences import split_sentences
from language.stated_changes import ValueChange, parse_change
from language.text_caches import text_cache
from schemas import ConversationTurn

ClauseKind = Literal[
    "fact",
    "preference",
    "decision",
    "correction",
    "introduction",
    "question",
    "request",
    "greeting",
    "dissatisfaction",
    "injection",
    "other",
]
STATEMENT_KINDS: frozenset[str] = frozenset({"fact", "preference", "decision", "correction", "introduction"})

_CLAUSE_COMMA = compiled(patterns.CLAUSE_COMMA_BEFORE)
_LEAD_INS = compiled(patterns.LEAD_INS)
_GREETING = compiled(patterns.GREETING)
_QUESTION_START = compiled(patterns.QUESTION_START)
_REQUEST_START = compiled(patterns.REQUEST_START)
_LEFT_AN_INFINITIVE = compiled(patterns.LEFT_AN_INFINITIVE)
IMPERATIVE_VERBS = patterns.IMPERATIVE_VERBS
_DISSATISFACTION = tuple(compiled(p) for p in patterns.DISSATISFACTION)
_CORRECTION_MARKER = compiled(patterns.CORRECTION_MARKER)
_DECISION_MARKER = compiled(patterns.DECISION_MARKER)
_PREFERENCE_MARKER = compiled(patterns.PREFERENCE_MARKER)
_DEICTIC_START = compiled(patterns.DEICTIC_START)
_MIN_STATEMENT_WORDS = patterns.MIN_STATEMENT_WORDS
_WORDS = compiled(patterns.WORD)


@dataclass(frozen=True)
class Clause:
    message_id: str
    session_id: str
    ts: datetime
    position: int
    """Index of the clause within its message."""
    text: str
    """The clause as written."""
    body: str
    """The clause without lead-ins ("and please remember", "also note that", "hi")."""
    kind: ClauseKind
    change: ValueChange | None = None


def split_clauses(content: str) -> list[str]:
    parts: list[str] = []
    for sentence in split_sentences(content, semicolons=True, newlines=True):
        parts.extend(piece.strip() for piece in _CLAUSE_COMMA.split(sentence))
    return [part for part in parts if part and any(ch.isalnum() for ch in part)]


_SO_AS_DEGREE = compiled(patterns.SO_AS_DEGREE)


def strip_lead_ins(clause: str) -> str:
    body = clause.strip()
    while (stripped := _LEAD_INS.sub("", body, count=1).strip()) != body:
        if _SO_AS_DEGREE.match(body):
            break
        if _LEFT_AN_INFINITIVE.match(stripped):
            break  # "remember to pack water" asks for a deed; "remember I'm vegetarian" says a fact
        body = stripped
    return body


def classify(body: str) -> tuple[ClauseKind, ValueChange | None]:
    """What the clause does, and the value change it states if it states one."""
    if is_injection(body):
        return "injection", None
    if not body or _GREETING.match(body):
        return "greeting", None
    if INTRODUCTION_CLAUSE.match(body):
        return "introduction", None
    if body.rstrip().endswith("?") or _QUESTION_START.match(body):
        return "question", None
    is_decision = bool(_DECISION_MARKER.search(body))
    first_word = body.split(maxsplit=1)[0].lower().strip(",.:;!")
    if not is_decision and (_REQUEST_START.match(body) or first_word in IMPERATIVE_VERBS):
        return "request", None
    change = parse_change(body)
    if is_decision:
        return "decision", change
    if change is not None or _CORRECTION_MARKER.search(body):
        return "correction", change
    if any(pattern.search(body) for pattern in _DISSATISFACTION):
        return "dissatisfaction", None
    if _PREFERENCE_MARKER.search(body):
        return "preference", None
    if is_statement_worth_keeping(body):
        return "fact", None
    return "other", None


def is_statement_worth_keeping(body: str) -> bool:
    """Long enough to say something, and not leaning on context ("it's fine", "no, that one")."""
    return len(_WORDS.findall(body)) >= _MIN_STATEMENT_WORDS and not _DEICTIC_START.match(body)


def clauses_of(turn: ConversationTurn, body: str | None = None) -> list[Clause]:
    """The clauses of a turn's text (`body`: the text without a speaker prefix, when it had one)."""
    return [
        Clause(turn.message_id, turn.session_id, turn.ts, position, text, stripped, kind, change)
        for position, (text, stripped, kind, change) in enumerate(_read_clauses(turn.content if body is None else body))
    ]


@text_cache(maxsize=16_384)
def _read_clauses(content: str) -> tuple[tuple[str, str, ClauseKind, ValueChange | None], ...]:
    """Each clause as written, without its lead-ins, and what it does: read once per text, as every
    pass of a scope reads its whole window again for the corrections it states."""
    found = []
    for text in split_clauses(content):
        body = strip_lead_ins(text)
        found.append((text, body, *classify(body)))
    return tuple(found)
