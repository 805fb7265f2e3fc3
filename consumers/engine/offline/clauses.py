"""Split a user message into clauses and say what each one does.

"My flight to Lisbon is next Tuesday, can you check the gate?" is two clauses: a fact and a
request. Only statements (fact, preference, decision, correction, introduction) can become
memories; questions, requests, greetings, complaints and injected instructions never do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from consumers.engine.offline.changes import ValueChange, parse_change
from consumers.passes.injection import is_injection
from consumers.engine.offline.person import INTRODUCTION_CLAUSE
from schemas import ConversationTurn

ClauseKind = Literal[
    "fact", "preference", "decision", "correction", "introduction",
    "question", "request", "greeting", "dissatisfaction", "injection", "other",
]
STATEMENT_KINDS: frozenset[str] = frozenset({"fact", "preference", "decision", "correction", "introduction"})

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\s*;\s*|\n+")
# A comma starts a new clause when a new subject or a question/request follows it.
_CLAUSE_COMMA = re.compile(
    r",\s+(?=(?:i|i'm|i've|i'll|i'd|we|we're|we'll|we've|can|could|would|will|please|what|when|where"
    r"|why|how|who|which|do|does|did|is|are|my|our|so|but)\b)",
    re.IGNORECASE,
)
_LEAD_INS = re.compile(
    r"^(?:(?:and|also|so|but|oh|well|btw|by the way|fyi|plus|anyway|ok|okay|hi|hello|hey)(?:\s+there)?[,!.]?\s+"
    r"|(?:please\s+)?(?:also\s+)?(?:note|remember|keep in mind|bear in mind|don't forget)(?:\s+that)?[,:]?\s+"
    r"|(?:for the record|just so you know|for your information)[,:]?\s+)",
    re.IGNORECASE,
)
_GREETING = re.compile(
    r"^(?:hi|hello|hey|good (?:morning|afternoon|evening)|thanks|thank you|cheers|bye|goodbye|ok|okay|sure"
    r"|great|perfect|got it|sounds good|no worries|noted|cool|awesome|yes|no|yep|nope|nice)"
    r"(?:\s+(?:there|so much|a lot|again|you))*[\s!.,]*$",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^(?:(?:what|when|where|why|how|who|which|whose)(?:'s|\s+(?:is|are|was|were|do|does|did|can|could|should"
    r"|would|will|has|have|much|many|long|about))"
    r"|(?:do|does|did|is|are|was|were|should|shall|have|has)\s+(?:you|i|we|it|there|this|that|the|my|our)\b)",
    re.IGNORECASE,
)
_REQUEST_START = re.compile(
    r"^(?:please|kindly|let's|let us|help me|i need you to|i want you to|i'd like you to"
    r"|(?:can|could|would|will)\s+you)\b",
    re.IGNORECASE,
)
IMPERATIVE_VERBS = frozenset("""
add analyse analyze ask book bring buy calculate call cancel check compare compile compose confirm
continue convert create define delete describe design draft draw edit email estimate explain find fix
forget generate get give go help implement improve include keep list look make move open order outline
plan prepare print put read recommend remind remove rename reply reschedule reserve review rewrite run
save schedule search send set show sort start stop suggest summarise summarize switch take tell
translate try turn update upgrade write
""".split())
_DISSATISFACTION = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"^(?:that|this|it|these|those)(?:'s|\u2019s|\s+is|\s+are|\s+was|\s+were)\s+(?:just|only|merely|still|too|not)\b",
        r"^(?:it|this|that|these|those|the \w+)\s+(?:has|have|had)\s+no\b",
        r"^(?:it|this|that|they|these|those)\s+(?:doesn't|does not|didn't|did not|don't|do not)\s+"
        r"(?:say|explain|answer|address|help|work|make sense|tell|show)\b",
        r"^too\s+\w+[.!]*$",
        r"\btoo\s+(?:generic|vague|long|short|shallow|abstract|general|complicated|technical|basic|simple)\b",
        r"\b(?:not\s+(?:helpful|useful|what i (?:asked|wanted|meant|needed))|still not (?:right|it|good)"
        r"|not quite right|anyone could say|missing the point|no soul|useless)\b",
    )
)
_CORRECTION_MARKER = re.compile(
    r"^(?:actually|correction|to be clear|i meant|sorry,? i meant|no,)\b|\b(?:changed my mind|no longer)\b",
    re.IGNORECASE,
)
_DECISION_MARKER = re.compile(
    r"\b(?:we|i)(?:'ll|\s+will|\s+are going to|'re going to|\s+have decided|'ve decided|\s+decided|\s+chose"
    r"|\s+picked|\s+agreed|\s+settled on)\b|\bdecided to\b|\bdecision is\b|\bgoing with\b|\blet's (?:go with|use)\b",
    re.IGNORECASE,
)
_PREFERENCE_MARKER = re.compile(
    r"\b(?:i|we)\s+(?:\w+ly\s+|always\s+)?(?:prefer|like|love|hate|dislike|enjoy|would rather|'d rather)\b"
    r"|\bfavou?rite\b|\bi (?:always|never)\b",
    re.IGNORECASE,
)
_DEICTIC_START = re.compile(r"^(?:it|it's|its|this|that|that's|these|those|there|here|they|no|yes)\b", re.IGNORECASE)
_MIN_STATEMENT_WORDS = 3  # "I'm vegetarian" counts as three: I, m, vegetarian
_WORDS = re.compile(r"\w+")


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
    for sentence in _SENTENCE_END.split(content):
        parts.extend(piece.strip() for piece in _CLAUSE_COMMA.split(sentence))
    return [part for part in parts if part and any(ch.isalnum() for ch in part)]


def strip_lead_ins(clause: str) -> str:
    body = clause.strip()
    while (stripped := _LEAD_INS.sub("", body, count=1)) != body:
        body = stripped.strip()
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


def clauses_of(turn: ConversationTurn) -> list[Clause]:
    clauses = []
    for position, text in enumerate(split_clauses(turn.content)):
        body = strip_lead_ins(text)
        kind, change = classify(body)
        clauses.append(Clause(turn.message_id, turn.session_id, turn.ts, position, text, body, kind, change))
    return clauses
