"""A message as the verify pass reads it: who speaks, its clauses, and the memory each statement
clause would make (`facts.memory_text_for`).

The verify pass judges each related message against every claim it may bear on, and none of this
depends on the claim: `TurnReadings` reads each message once per pass instead of once per claim.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from dreaming.embedding import canonical_tokens
from dreaming.engine.offline.facts import memory_text_for
from language.clauses import STATEMENT_KINDS, Clause, clauses_of
from language.speakers import split_speaker
from schemas import ConversationTurn


@dataclass(frozen=True)
class ReadClause:
    clause: Clause
    subject: str | None
    name: frozenset[str]

    @cached_property
    def statement(self) -> str | None:
        """The memory a statement clause would make; None for another kind, or one that makes
        none. Made when first asked: a pass that judges only stated changes never needs it."""
        return memory_text_for(self.clause, self.subject) if self.clause.kind in STATEMENT_KINDS else None

    @cached_property
    def statement_tokens(self) -> frozenset[str]:
        """The statement's canonical tokens less the speaker's name (empty without a statement)."""
        return canonical_tokens(self.statement) - self.name if self.statement is not None else frozenset()


@dataclass(frozen=True)
class TurnReading:
    turn: ConversationTurn
    subject: str | None
    """Whose statements they are: the named speaker, else the user's name."""
    name: frozenset[str]
    """The subject's canonical tokens."""
    context: tuple[str, ...]
    """The message without its speaker prefix, then the assistant turn it answers: what a stated
    change is read beside."""
    clauses: tuple[ReadClause, ...]
    """Empty for an assistant turn: only user messages are evidence."""


def read_turn(turn: ConversationTurn, answered: ConversationTurn | None, user_name: str | None) -> TurnReading:
    """`turn` read once (`answered`: the assistant turn it replies to)."""
    if turn.role != "user":
        return TurnReading(turn, None, frozenset(), (), ())
    speaker = split_speaker(turn.content)
    subject = speaker.name or user_name
    name = canonical_tokens(subject) if subject else frozenset()
    context = (speaker.body, *((answered.content,) if answered is not None else ()))
    clauses = tuple(ReadClause(clause, subject, name) for clause in clauses_of(turn, speaker.body))
    return TurnReading(turn, subject, name, context, clauses)


class TurnReadings:
    """The messages one verify pass has read, by message id: made per pass, so it never holds
    more than that pass's transcript window."""

    def __init__(self, answered: Mapping[str, ConversationTurn], user_name: str | None) -> None:
        self._answered = answered
        self._user_name = user_name
        self._read: dict[str, TurnReading] = {}

    def of(self, turn: ConversationTurn) -> TurnReading:
        reading = self._read.get(turn.message_id)
        if reading is None:
            reading = read_turn(turn, self._answered.get(turn.message_id), self._user_name)
            self._read[turn.message_id] = reading
        return reading

    def __len__(self) -> int:
        return len(self._read)
