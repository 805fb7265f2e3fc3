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

from consumers.embedding import canonical_tokens
from consumers.engine.offline.duplicates import find_duplicate, new_values
from consumers.engine.offline.facts import memory_text, statement_body
from consumers.engine.offline.plan_builder import PlanBuilder
from consumers.engine.offline.revisions import Revisions
from consumers.engine.offline.slots import SlotReader
from consumers.engine.offline.working_set import WorkingMemory, WorkingSet
from language.chatter import classify_sentence, read_sentences
from language.clauses import Clause, classify, clauses_of, split_clauses, strip_lead_ins
from language.dates import without_stamp
from language.speakers import Speaker, other_participant, split_speaker
from schemas import ConversationTurn

_DROPPED_KINDS = frozenset({"question", "request", "greeting", "dissatisfaction", "injection", "introduction"})
GROUP_MAX_WORDS = 70
"""A topic one person tells over several messages of a session becomes one memory, up to this size
(beyond it a memory is too long to embed well or to put in a prompt)."""
GROUP_MAX_MESSAGES = 3
TOPIC_COSINE = 0.3
"""Two statements one person makes in a row are one topic at this sentence-embedding cosine
(all-MiniLM-L6-v2: unrelated sentences sit near 0.0-0.2, one topic retold at 0.3 and up)."""
NOTED_COSINE = 0.55
"""A memory-add citing a message says what the message says at this cosine."""
FACT_CONFIDENCE = 0.8


def _keepable(sentence: str) -> bool:
    """A statement sentence the clause reader does not see as a request, greeting or complaint."""
    kind, _ = classify(strip_lead_ins(sentence))
    return kind not in _DROPPED_KINDS


class TranscriptPass:
    def __init__(
        self,
        builder: PlanBuilder,
        working: WorkingSet,
        user_name: str | None,
        consumed: frozenset[str],
        notes: list[str],
        generic: frozenset[str] = frozenset(),
        similarity: Callable[[str, str], float] = lambda a, b: 0.0,
        cited_by: Mapping[str, tuple[str, ...]] | None = None,
        prefetch: Callable[[list[str]], object] = lambda texts: None,
        slots: SlotReader | None = None,
        window: frozenset[str] = frozenset(),
    ) -> None:
        self.builder = builder
        self.working = working
        self.user_name = user_name
        self.name_tokens = canonical_tokens(user_name) if user_name else frozenset()
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
        self._groups: dict[tuple[str, str], _Group] = {}
        """Per (session, speaker): the memory this plan is growing from what they say in a row."""
        self._made: dict[str, list[tuple[str, str]]] = defaultdict(list)
        """Per message: (ref, text) of the memories made or grown from it in this plan."""
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

    def run(self, turns: Sequence[ConversationTurn], participants: tuple[str, ...] = ()) -> None:
        """`turns` is the chronological transcript minus injected messages; `participants` the
        named speakers of a multi-person chat (`language.speakers`)."""
        self._prefetch([t for t in turns if t.role == "user" and t.message_id not in self.consumed])
        self.revisions.people = participants
        self.revisions.name_tokens = self.name_tokens
        last_assistant: dict[str, ConversationTurn] = {}
        for turn in turns:
            if turn.role == "assistant":
                last_assistant[turn.session_id] = turn
            elif turn.role == "user":
                self._message(turn, participants, last_assistant.get(turn.session_id))

    def _message(
        self, turn: ConversationTurn, participants: tuple[str, ...], answered: ConversationTurn | None
    ) -> None:
        """Corrections first (they supersede what they overrule), then one memory for everything
        else the message states, attributed to whoever said it."""
        speaker = split_speaker(turn.content)
        subject = speaker.name or self.user_name
        handled: list[str] = []
        context = (speaker.body, *((answered.content,) if answered is not None else ()))
        for clause in clauses_of(turn, speaker.body):
            if self._clause(turn, clause, subject, context):
                handled.append(clause.body)
        if turn.message_id in self.consumed:
            return  # an earlier pass consolidated this message
        self._state(turn, speaker, participants, subject, handled)
        self.revisions.settle(turn, self._made.get(turn.message_id, []))

    def _state(
        self,
        turn: ConversationTurn,
        speaker: Speaker,
        participants: tuple[str, ...],
        subject: str | None,
        handled: Sequence[str],
    ) -> None:
        """One memory for what the message states (or the memory its speaker is telling grows)."""
        body = self._statement_body(turn, speaker, participants, handled)
        if body is None or self._noted_already(turn, body):
            return
        named = speaker.name is not None
        key = (turn.session_id, subject or "")
        group = self._groups.get(key)
        if (
            group is not None
            and named
            and group.fits(body)
            and self.working.is_live(group.ref)
            and self.similarity(group.last_message, turn.content) >= TOPIC_COSINE
        ):
            self._extend(group, turn, body)
            return
        ref = self._add_statement(turn, body, memory_text(body, subject, named, turn.ts), "statement", subject)
        if ref is not None:
            self._groups[key] = _Group(ref, subject, named, turn, body)

    def _statement_body(
        self, turn: ConversationTurn, speaker: Speaker, participants: tuple[str, ...], handled: Sequence[str]
    ) -> str | None:
        """What `turn` states (None when nothing worth keeping); `handled` are clause bodies a
        correction already took care of."""
        statements, captions = [], []
        for sentence in read_sentences(speaker.body):
            if sentence.kind == "caption":
                captions.append(sentence.text)
                continue
            for piece in split_clauses(sentence.text):  # "My flight is on Tuesday, can you check the gate?"
                if (
                    classify_sentence(piece) == "statement"
                    and _keepable(piece)
                    and not any(body and body in piece for body in handled)
                ):
                    statements.append(strip_lead_ins(piece))
        return statement_body(
            statements,
            captions,
            turn.ts,
            speaker.name or self.user_name,
            other_participant(speaker.name, participants),
            speaker.name is not None,
        )

    def _prefetch(self, turns: Sequence[ConversationTurn]) -> None:
        """Embed the messages the walk compares in one batch (the embedder caches by text, and the
        transcript index has usually embedded them already) instead of two at a time inside it.
        Messages are compared as said: the same topic reads alike before any rewriting."""
        if turns:
            self.prefetch([t.content for t in turns])

    def _noted_already(self, turn: ConversationTurn, body: str) -> bool:
        """A memory-add about this message already says it, and the message adds no value to it
        (no date, number or name the add lacks): creating it again would only duplicate the add."""
        return any(
            not new_values(body, noted) and self.similarity(body, without_stamp(noted)) >= NOTED_COSINE
            for noted in self.cited_by.get(turn.message_id, ())
        )

    def _extend(self, group: _Group, turn: ConversationTurn, body: str) -> None:
        group.add(body, turn)
        joined = group.text()
        self.builder.extend(group.ref, joined, tuple(group.evidence))
        self.working.add(
            WorkingMemory(
                key=group.ref,
                text=joined,
                tokens=canonical_tokens(without_stamp(joined)),
                evidence_ids=tuple(group.evidence),
                evidence_ts=turn.ts,
                created_in_plan=True,
            )
        )
        self._created_from[turn.message_id].append(canonical_tokens(body))
        self._made[turn.message_id].append((group.ref, joined))

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
        self, turn: ConversationTurn, body: str, text: str, kind: str, subject: str | None
    ) -> str | None:
        """Create the memory (`text`: `body` with its speaker and date) unless memory already says
        it or a newer value overrules it; its ref."""
        tokens = canonical_tokens(without_stamp(text))
        if not tokens or find_duplicate(tokens, self.working) is not None:
            return None
        name_tokens = canonical_tokens(subject) if subject else self.name_tokens
        rivals = self.revisions.rivals(turn, text, subject, name_tokens)
        if rivals is None:
            return None
        ref = self._create(
            text, tokens, turn, f"{kind} by {subject or 'the user'} in {turn.message_id}", FACT_CONFIDENCE
        )
        self.revisions.supersede_rivals(turn, ref, rivals, subject)
        return ref

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


class _Group:
    """Statements one speaker makes in a row within a session, growing into one memory."""

    def __init__(self, ref: str, subject: str | None, named: bool, first: ConversationTurn, body: str) -> None:
        self.ref, self.subject, self.named, self.said = ref, subject, named, first.ts
        self.parts = [body]
        self.evidence = [first.message_id]
        self.last_message = first.content
        """The newest message the memory grew from, as said (what the next one is compared with)."""

    def fits(self, body: str) -> bool:
        words = sum(len(p.split()) for p in self.parts) + len(body.split())
        return len(self.evidence) < GROUP_MAX_MESSAGES and words <= GROUP_MAX_WORDS

    def add(self, body: str, turn: ConversationTurn) -> None:
        self.parts.append(body)
        self.evidence.append(turn.message_id)
        self.last_message = turn.content

    def text(self) -> str:
        return memory_text(" ".join(self.parts), self.subject, self.named, self.said)
