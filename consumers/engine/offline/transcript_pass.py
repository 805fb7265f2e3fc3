"""Walk the user's messages in order and turn what they state into actions.

For every clause: a stated value change first looks for the memories it overrules (supersede them
with a replacement carrying the new value); a statement in a message no memory cites yet becomes
a new memory unless memory already says it; a statement that gives an attribute a new value
("... is red" after "... is green") supersedes the older one. Working in message order is what
makes "newest evidence wins" hold: a memory created from an early message is itself overruled by
a later one, inside the same plan.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Mapping, Sequence

from consumers.embedding import canonical_tokens
from consumers.engine.offline.changes import ValueChange
from consumers.engine.offline.clauses import Clause
from consumers.engine.offline.corrections import apply_change, attribute_rivals, explicit_targets
from consumers.engine.offline.duplicates import find_duplicate
from consumers.engine.offline.facts import memory_text_for
from consumers.engine.offline.plan_builder import PlanBuilder
from consumers.engine.offline.working_set import WorkingMemory, WorkingSet
from schemas import ConversationTurn

CORRECTION_CONFIDENCE = 0.9
FACT_CONFIDENCE = 0.8


class TranscriptPass:
    def __init__(self, builder: PlanBuilder, working: WorkingSet, user_name: str | None,
                 consumed: frozenset[str], notes: list[str], generic: frozenset[str] = frozenset()) -> None:
        self.builder = builder
        self.working = working
        self.user_name = user_name
        self.name_tokens = canonical_tokens(user_name) if user_name else frozenset()
        self.generic = generic
        """The scope's generic words (`corrections.generic_tokens`): they tie a correction to no memory."""
        self.consumed = consumed
        self.notes = notes
        self._created_from: dict[str, list[frozenset[str]]] = defaultdict(list)

    def run(self, turns: Sequence[ConversationTurn], clauses: Mapping[str, list[Clause]]) -> None:
        """`turns` is the chronological transcript minus injected messages."""
        last_assistant: dict[str, ConversationTurn] = {}
        for turn in turns:
            if turn.role == "assistant":
                last_assistant[turn.session_id] = turn
            elif turn.role == "user":
                for clause in clauses.get(turn.message_id, []):
                    self._clause(turn, clause, last_assistant.get(turn.session_id))

    def _clause(self, turn: ConversationTurn, clause: Clause, answered: ConversationTurn | None) -> None:
        fresh = turn.message_id not in self.consumed
        if clause.kind in ("correction", "decision"):
            if clause.change is not None and self._apply_change(turn, clause, clause.change, answered):
                return
        if not fresh:
            return  # an earlier pass consolidated this message
        if clause.change is not None and clause.change.old is None and self._covered(turn, clause.change.new):
            return  # "I switched to aisle seats" right after "it's aisle, not window"
        self._add_statement(turn, clause)

    def _apply_change(self, turn: ConversationTurn, clause: Clause, change: ValueChange,
                      answered: ConversationTurn | None) -> bool:
        context = canonical_tokens(turn.content) | (canonical_tokens(answered.content) if answered else frozenset())
        targets = explicit_targets(change, self.working, context, turn.ts, self.name_tokens | self.generic)
        for memory in targets.protected if turn.message_id not in self.consumed else ():
            self.notes.append(f"message {turn.message_id} contradicts protected memory {memory.key}; "
                              "left untouched for a person to review")
        applied = False
        for target in targets.overruled:
            text = apply_change(target.text, change)
            if text is None or self.builder.touched(target.key):
                continue
            rationale = f"the user corrected {change.old!r} in {turn.message_id}: \u201c{clause.body}\u201d"
            self._replace(target, text, turn, rationale)
            applied = True
        return applied

    def _replace(self, target: WorkingMemory, text: str, turn: ConversationTurn, rationale: str) -> None:
        """Supersede `target` by a memory saying `text`: an existing one if memory already says it,
        else one created from this message. A protected memory cannot be named as a replacement
        (it is never part of an action), so then the target is archived with the same evidence."""
        tokens = canonical_tokens(text)
        existing = find_duplicate(tokens, self.working)
        if existing is not None and existing.protected:
            self.builder.archive(target.key, (turn.message_id,),
                                 f"{rationale}; protected memory {existing.key} already holds the new value")
        else:
            replacement = existing.key if existing is not None else self._create(
                text, tokens, turn, rationale, CORRECTION_CONFIDENCE)
            self.builder.supersede(target.key, replacement, (turn.message_id,), rationale)
        self.working.retire(target.key)

    def _covered(self, turn: ConversationTurn, value: str) -> bool:
        tokens = canonical_tokens(value)
        return bool(tokens) and any(tokens <= made for made in self._created_from[turn.message_id])

    def _add_statement(self, turn: ConversationTurn, clause: Clause) -> None:
        text = memory_text_for(clause, self.user_name)
        tokens = canonical_tokens(text) if text else frozenset()
        if text is None or not tokens or find_duplicate(tokens, self.working) is not None:
            return
        rivals = attribute_rivals(text, self.working, self.name_tokens)
        if any(r.evidence_ts >= turn.ts for r in rivals):
            self.notes.append(f"statement in {turn.message_id} is older than a memory that gives it another "
                              "value; kept the newer one")
            return
        if any(r.protected for r in rivals):
            self.notes.append(f"statement in {turn.message_id} contradicts a protected memory; not recorded")
            return
        ref = self._create(text, tokens, turn, f"{clause.kind} stated by the user in {turn.message_id}",
                           FACT_CONFIDENCE)
        for rival in rivals:
            self.builder.supersede(rival.key, ref, (turn.message_id,),
                                   f"newer value stated by the user in {turn.message_id}")
            self.working.retire(rival.key)

    def _create(self, text: str, tokens: frozenset[str], turn: ConversationTurn, rationale: str,
                confidence: float) -> str:
        ref = self.builder.create(text, (turn.message_id,), rationale, confidence)
        self.working.add(WorkingMemory(key=ref, text=text, tokens=tokens, evidence_ids=(turn.message_id,),
                                       evidence_ts=turn.ts, created_in_plan=True))
        self._created_from[turn.message_id].append(tokens)
        return ref
