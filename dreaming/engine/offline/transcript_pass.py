"""Walk the user's messages in order and turn what they state into actions.

Per message: a stated value change first looks for the memories it overrules (supersede them with
a replacement carrying the new value); then what the message states — its statement sentences,
attributed to its speaker, dated — becomes a memory, or grows the memory its speaker is telling
in this session about the same topic, unless memory already says it; a statement that gives an
attribute a new value ("... is red" after "... is green", "45 sources" after "52") supersedes the
older one. Working in message order is what makes "newest evidence wins" hold: a memory created
from an early message is itself overruled by a later one, inside the same plan.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import date

from dreaming.embedding import canonical_tokens
from dreaming.engine.offline.duplicates import find_duplicate, new_values, words_beyond
from dreaming.engine.offline.paraphrases import Paraphrases
from dreaming.engine.offline.plan_builder import PlanBuilder
from dreaming.engine.offline.revisions import Revisions
from dreaming.engine.offline.slots import SlotReader
from dreaming.engine.offline.speaker_roles import ChatRoles
from dreaming.engine.offline.walk_readings import MessageReading, prefetch_texts, read_messages
from dreaming.engine.offline.working_set import WorkingMemory, WorkingSet
from language.changes import normal_values
from language.clauses import Clause, clauses_of
from language.dates import rewrite_relative_time, without_stamp
from schemas import ConversationTurn

NOTED_COSINE = 0.55
"""A memory-add citing a message says what the message says at this cosine."""
NOTED_EXTRA_WORDS = 1
"""...and the message's statement has at most this many content words the add lacks: an add's
paraphrase ("grooms her dogs") leaves out the words said ("daily brushing, baths and nail trims"),
which a reader may ask about."""
FACT_CONFIDENCE = 0.8
ASSISTANT_CONFIDENCE = 0.6
"""What an AI assistant said is advice the user may or may not have taken: below a person's own statement."""


class TranscriptPass:
    def __init__(
        self,
        builder: PlanBuilder,
        working: WorkingSet,
        roles: ChatRoles,
        consumed: frozenset[str],
        notes: list[str],
        generic: frozenset[str] = frozenset(),
        similarity: Callable[[str, str], float] = lambda a, b: 0.0,
        cited_by: Mapping[str, tuple[str, ...]] | None = None,
        prefetch: Callable[[list[str]], object] = lambda texts: None,
        slots: SlotReader | None = None,
        window: frozenset[str] = frozenset(),
        paraphrases: Paraphrases | None = None,
    ) -> None:
        self.builder = builder
        self.paraphrases = paraphrases
        self._changing = False
        """Grows the memory a person's statement paraphrases instead of making a second one."""
        self.working = working
        self.roles = roles
        self.user_name = roles.user_name
        self.name_tokens = canonical_tokens(roles.user_name) if roles.user_name else frozenset()
        self.generic = generic
        """The scope's generic words (`corrections.generic_tokens`): they tie a correction to no memory."""
        self.consumed = consumed
        self.notes = notes
        self._created_from: dict[str, list[frozenset[str]]] = defaultdict(list)
        self.similarity = similarity
        """Cosine of two statements' sentence embeddings (the engine's embedder)."""
        self.prefetch = prefetch
        self.cited_by = cited_by or {}
        """Message id -> the texts of the memories citing it (e.g. a memory-add an agent wrote about it)."""
        self._made: dict[str, list[tuple[str, str]]] = defaultdict(list)
        """Per message: (ref, text) of the memories made from it in this plan."""
        self._said_that_day: dict[tuple[str | None, date], list[str]] = defaultdict(list)
        """Per (speaker, day): the ids of the messages the walk has passed, in order."""
        self.revisions = Revisions(
            builder,
            working,
            slots if slots is not None else SlotReader(lambda texts: [[0.0] for _ in texts]),
            notes,
            consumed,
            window,
            lambda message_id, tokens: self._created_from[message_id].append(tokens),
        )
        """The correction and update step (`revisions`)."""
        self.revisions.people = roles.people
        self.revisions.name_tokens = self.name_tokens

    def run(self, turns: Sequence[ConversationTurn], readings: Sequence[MessageReading] | None = None) -> None:
        """`turns` is the chronological transcript minus injected messages; `readings`, when given,
        are `read_messages` of them, read ahead."""
        if readings is None:
            readings = read_messages(turns, self.roles, self.consumed)
        texts = prefetch_texts(readings, self.consumed, self.cited_by)
        if texts:
            self.prefetch(texts)  # one batch instead of one or two texts at a time inside the walk
        for reading in readings:
            if reading.speaker.is_person:
                self._message(reading)
                self._said_that_day[reading.speaker.name, reading.turn.ts.date()].append(reading.turn.message_id)
            elif reading.turn.message_id not in self.consumed:
                for note in reading.facts:
                    self._add_statement(reading.turn, note.text, "assistant turn", None, ASSISTANT_CONFIDENCE)

    def _message(self, reading: MessageReading) -> None:
        """Corrections first (they supersede what they overrule), then the facts the message
        states, attributed to whoever said it (`extraction.message_facts`)."""
        turn, speaker = reading.turn, reading.speaker
        subject = speaker.name
        handled: list[str] = []
        context = (speaker.body, *((reading.answered.content,) if reading.answered is not None else ()))
        clauses = clauses_of(turn, speaker.body)
        for clause in clauses:
            if self._clause(turn, clause, subject, context):
                handled.append(clause.body)
        # A message stating a change makes its own memories: a paraphrase of the old value is the correction.
        self._changing = any(c.change is not None for c in clauses)
        if turn.message_id in self.consumed:
            return  # an earlier pass consolidated this message
        for fact in reading.facts:
            if any(body and body in fact.source for body in handled) or self._noted_already(turn, fact.body):
                continue
            kind = "question with a value" if fact.kind == "asked" else "statement"
            self._add_statement(turn, fact.text, kind, subject)
        self.revisions.settle(turn, self._made.get(turn.message_id, []))
        self.revisions.unsettle(turn, speaker.body, subject)

    def _noted_already(self, turn: ConversationTurn, body: str) -> bool:
        """A memory-add about this message already says it, and the message adds no value to it:
        creating it again would only duplicate the add. Values are compared as meant, not as
        spelled: the add's relative times read from the message's day ("last Saturday" is the
        fact's "2024-06-08"), a number in words as its digits ("two hours" = "2 hours")."""
        for noted in self.cited_by.get(turn.message_id, ()):
            said = rewrite_relative_time(without_stamp(noted), turn.ts, annotate=True).text
            if (
                self.similarity(body, without_stamp(noted)) >= NOTED_COSINE
                and _adds_no_value(body, said)
                and len(words_beyond(body, said)) <= NOTED_EXTRA_WORDS
            ):
                return True
        return False

    def _clause(self, turn: ConversationTurn, clause: Clause, subject: str | None, context: Sequence[str]) -> bool:
        """True when the clause was taken care of here (a correction applied, or already covered)."""
        if clause.kind in ("correction", "decision"):
            if clause.change is not None and self.revisions.correct(turn, clause, subject, context):
                return True
        if turn.message_id in self.consumed:
            return False
        if clause.change is not None and clause.change.old is None and self._covered(turn, clause.change.new):
            return True  # "I switched to aisle seats" right after "it's aisle, not window"
        return False

    def _covered(self, turn: ConversationTurn, value: str) -> bool:
        tokens = canonical_tokens(value)
        return bool(tokens) and any(tokens <= made for made in self._created_from[turn.message_id])

    def _add_statement(
        self,
        turn: ConversationTurn,
        text: str,
        kind: str,
        subject: str | None,
        confidence: float = FACT_CONFIDENCE,
    ) -> str | None:
        """Create the memory (`text`: a statement with its speaker and date) unless memory already
        says it or a newer value overrules it; its ref. What an assistant said overrules nothing."""
        tokens = canonical_tokens(without_stamp(text))
        if not tokens or find_duplicate(tokens, self.working) is not None:
            return None
        rivals = []
        if kind != "assistant turn":  # what an assistant said overrules nothing
            name_tokens = canonical_tokens(subject) if subject else self.name_tokens
            found = self.revisions.rivals(turn, text, subject, name_tokens)
            if found is None:
                return None
            rivals = found
            if (
                not rivals
                and not self._changing
                and self.paraphrases is not None
                and (
                    self.paraphrases.absorb(turn.message_id, turn.ts, turn.content, text)
                    or self.paraphrases.restate(turn.message_id, turn.ts, text, self._told_earlier(turn, subject))
                )
            ):
                return None
        who = "the assistant" if kind == "assistant turn" else subject or "the user"
        ref = self._create(text, tokens, turn, f"{kind} by {who} in {turn.message_id}", confidence)
        self.revisions.supersede_rivals(turn, ref, rivals, subject)
        return ref

    def _told_earlier(self, turn: ConversationTurn, subject: str | None) -> list[WorkingMemory]:
        """The live memories made only from what `subject` said earlier on the day of `turn`."""
        earlier = self._said_that_day.get((subject, turn.ts.date()), [])
        said = set(earlier)
        found = {m.key: m for message_id in earlier for m in self.working.citing(message_id)}
        return [m for m in found.values() if said.issuperset(m.evidence_ids)]

    def _create(
        self, text: str, tokens: frozenset[str], turn: ConversationTurn, rationale: str, confidence: float
    ) -> str:
        ref = self.builder.create(text, (turn.message_id,), rationale, confidence)
        self.working.add(
            WorkingMemory(
                key=ref,
                text=text,
                tokens=tokens,
                evidence_ids=(turn.message_id,),
                evidence_ts=turn.ts,
                created_in_plan=True,
            )
        )
        self._created_from[turn.message_id].append(tokens)
        self._made[turn.message_id].append((ref, text))
        return ref


def _adds_no_value(body: str, noted: str) -> bool:
    """Every value `body` states is in `noted`, whatever its spelling ("1,500" / "1500", "two" / "2")."""
    said = normal_values(noted)
    if not normal_values(body) <= said:
        return False  # a number, amount or day the note lacks ("three" where it says "two")
    return all((normal := normal_values(value)) and normal <= said for value in new_values(body, noted))
