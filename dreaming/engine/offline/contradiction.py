"""Does one message contradict, support, or say nothing about one stored claim?

The rules are the offline engine's own (`corrections.overrules_change` for stated changes,
`corrections.statement_overrules` for newer statements: same subject, same attribute, by
meaning), applied one claim at a time: the engine walks new messages and asks which memories they
overrule; the verify pass walks claims and asks which messages overrule them. Only user messages
count (an assistant saying "your window seat" is not evidence), and only messages newer than the
claim's newest evidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from dreaming.embedding import canonical_tokens
from dreaming.engine.base import SILENT, Finding
from dreaming.engine.offline.corrections import (
    apply_change,
    is_bare,
    overrules_change,
    restamped,
    statement_overrules,
    updated_text,
)
from dreaming.engine.offline.duplicates import is_duplicate
from dreaming.engine.offline.slots import SlotReader, Update
from dreaming.engine.offline.turn_readings import TurnReading
from language.clauses import STATEMENT_KINDS
from language.dates import without_stamp


@dataclass(frozen=True)
class Claim:
    text: str
    evidence_ts: datetime
    """When its newest evidence was said (or when it was written, if it cites nothing)."""

    @cached_property
    def tokens(self) -> frozenset[str]:
        """Read once per claim, not once per message it is judged against."""
        return canonical_tokens(self.text)


def judge(
    claim: Claim,
    reading: TurnReading,
    slots: SlotReader,
    people: Sequence[str] = (),
    common: frozenset[str] = frozenset(),
    statements: bool = True,
) -> Finding:
    """What a message (`reading`: a user message read with the assistant turn it replies to, see
    `turn_readings`) says about `claim`; `people` are the named speakers of a multi-person chat,
    `common` the scope's words too frequent to tell one attribute from another
    (`WorkingSet.common_tokens`). With `statements` False only its stated changes are read (the
    walk has judged what it states against the claim already, see `verifier`)."""
    turn = reading.turn
    if turn.role != "user" or turn.ts <= claim.evidence_ts:
        return SILENT
    subject, name, tokens = reading.subject, reading.name, claim.tokens
    for read in reading.clauses:
        clause = read.clause
        change = clause.change
        if clause.kind in ("correction", "decision") and change is not None:
            if overrules_change(
                claim.text, claim.evidence_ts, change, (clause.body, *reading.context), turn.ts, slots, subject, people
            ):
                if is_bare(clause.body, change):
                    swapped = apply_change(claim.text, change)
                    replacement = restamped(swapped, turn.ts) if swapped else None
                    keeps = bool(swapped) and bool(
                        canonical_tokens(without_stamp(swapped or "")) - canonical_tokens(turn.content) - name
                    )
                    return Finding("contradicted", turn.message_id, replacement, clause.body, keeps_claim=keeps)
                return Finding("contradicted", turn.message_id, read.statement, clause.body)
            new, old = canonical_tokens(change.new), canonical_tokens(change.old or "")
            if new and new <= tokens and not old & tokens:
                return Finding("supported", turn.message_id, quote=clause.body)
        if statements and clause.kind in STATEMENT_KINDS:
            statement = read.statement
            if statement is None:
                continue
            verdict = statement_overrules(statement, claim.text, slots, subject, people, name, common)
            if isinstance(verdict, Update):
                edited = updated_text(claim.text, verdict, turn.ts)
                if edited is not None:
                    return Finding("contradicted", turn.message_id, edited, clause.body, keeps_claim=True)
            if verdict:
                return Finding("contradicted", turn.message_id, statement, clause.body)
            if is_duplicate(read.statement_tokens, tokens - name):
                return Finding("supported", turn.message_id, quote=clause.body)
    return SILENT
