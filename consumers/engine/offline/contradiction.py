"""Does one message contradict, support, or say nothing about one stored claim?

The rules are the offline engine's own (`corrections.overruled_text` for stated changes,
`corrections.rival_values` for newer statements, the same clause classifier and the same
third-person rewriting), applied one claim at a time: the engine walks new messages and asks
which memories they overrule; the verify pass walks claims and asks which messages overrule them.
Only user messages count (an assistant saying "your window seat" is not evidence), and only
messages newer than the claim's newest evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from consumers.embedding import canonical_tokens
from consumers.engine.base import SILENT, Finding
from consumers.engine.offline.corrections import overruled_text, rival_values
from consumers.engine.offline.duplicates import is_duplicate
from consumers.engine.offline.facts import memory_text_for
from language.clauses import STATEMENT_KINDS, clauses_of
from schemas import ConversationTurn


@dataclass(frozen=True)
class Claim:
    text: str
    evidence_ts: datetime
    """When its newest evidence was said (or when it was written, if it cites nothing)."""

    @property
    def tokens(self) -> frozenset[str]:
        return canonical_tokens(self.text)


def judge(
    claim: Claim,
    turn: ConversationTurn,
    answered: ConversationTurn | None,
    user_name: str | None,
    generic: frozenset[str] = frozenset(),
) -> Finding:
    """What `turn` (a user message, with the assistant turn it replies to) says about `claim`;
    `generic` are the scope's generic words (`corrections.generic_tokens`)."""
    if turn.role != "user" or turn.ts <= claim.evidence_ts:
        return SILENT
    tokens = claim.tokens
    name = canonical_tokens(user_name) if user_name else frozenset()
    ignore = name | generic
    context = canonical_tokens(turn.content) | (canonical_tokens(answered.content) if answered else frozenset())
    for clause in clauses_of(turn):
        change = clause.change
        if clause.kind in ("correction", "decision") and change is not None:
            replaced = overruled_text(claim.text, tokens, claim.evidence_ts, change, context, turn.ts, ignore)
            if replaced is not None:
                return Finding("contradicted", turn.message_id, replaced, clause.body)
            new, old = canonical_tokens(change.new), canonical_tokens(change.old or "")
            if new and new <= tokens and not old & tokens:
                return Finding("supported", turn.message_id, quote=clause.body)
        if clause.kind in STATEMENT_KINDS:
            statement = memory_text_for(clause, user_name)
            if statement is None:
                continue
            if rival_values(statement, claim.text, name):
                return Finding("contradicted", turn.message_id, statement, clause.body)
            if is_duplicate(canonical_tokens(statement) - name, tokens - name):
                return Finding("supported", turn.message_id, quote=clause.body)
    return SILENT
