"""The offline engine: deterministic rules and a local embedder, no model, no network.

One pass, in order:
1. read the transcript as data: drop other scopes' turns and instruction-like messages (noted);
2. split user messages into clauses and classify them;
3. walk the messages in time order: corrections supersede what they overrule, fresh statements
   become memories (TranscriptPass);
4. the motives are the gather pass's (`dreaming.passes.gather`); a complaint repeated across
   threads for one reason also earns a memory;
5. only if there was any motive or action: tidy the remaining memories (rivals, duplicates,
   relative dates);
6. the job's steering, as far as rules can apply it (`steering.py`: new memories about a topic
   the operator drops are not created, those about one they keep rank into the core).

The same snapshot always yields the same plan: every collection is walked in a stable order and
create-refs are numbered in the order the actions are made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dreaming.embedding import Embedder, canonical_tokens
from dreaming.embedding.known import known_first
from dreaming.embedding.minilm import MiniLMEmbedder
from dreaming.engine.base import Curated, EngineResult, ReadAhead, Search, Verified
from dreaming.engine.offline.cased_turns import read_turns
from dreaming.engine.offline.corrections import generic_tokens
from dreaming.engine.offline.dissatisfaction import complaint_memory_text
from dreaming.engine.offline.duplicates import find_duplicate
from dreaming.engine.offline.housekeeping import Housekeeping
from dreaming.engine.offline.paraphrases import Paraphrases
from dreaming.engine.offline.plan_builder import PlanBuilder
from dreaming.engine.offline.slots import SlotReader
from dreaming.engine.offline.speaker_roles import AssistantRole, ChatRoles, read_roles
from dreaming.engine.offline.steering import steer_plan
from dreaming.engine.offline.transcript_pass import TranscriptPass
from dreaming.engine.offline.verifier import verify_claims
from dreaming.engine.offline.walk_readings import MessageReading, prefetch_texts, read_messages
from dreaming.engine.offline.working_set import WorkingMemory, WorkingSet
from dreaming.signals import Signals
from dreaming.snapshot import Snapshot
from language.injection import injection_note
from schemas import ActionPlan, ConversationTurn

MOTIVE_MEMORY_CONFIDENCE = 0.6


@dataclass(frozen=True)
class _EngineReading:
    """What `propose` reads of a snapshot before the walk: none of it depends on the memories'
    vectors, so it can be read ahead (`OfflineEngine.read_ahead`)."""

    notes: tuple[str, ...]
    turns: list[ConversationTurn]
    """The scope's own turns."""
    consumed: frozenset[str]
    readable: list[ConversationTurn]
    """The turns minus instruction-like ones."""
    roles: ChatRoles
    cited_by: dict[str, tuple[str, ...]]
    """Message id -> the texts of the memories citing it."""
    readings: list[MessageReading]


class OfflineEngine:
    name = "offline"

    def __init__(
        self, embedder: Embedder | None = None, assistant_roles: Mapping[str, AssistantRole] | None = None
    ) -> None:
        self.embedder = embedder if embedder is not None else MiniLMEmbedder()
        self.assistant_roles = dict(assistant_roles or {})
        """Per tenant, agent or scope prefix: whether the `assistant` role is a person (settings)."""

    def verify(
        self, snapshot: Snapshot, candidate: Curated, search: Search, *, top_k: int, max_claims: int
    ) -> Verified:
        """The claims the plan left alone, judged by the same rules as `propose` (`verifier.py`),
        but for what the walk judged already: what messages state, against any claim but the
        pending memory-adds."""
        return verify_claims(
            snapshot,
            candidate,
            search,
            top_k=top_k,
            max_claims=max_claims,
            embed=self.embedder.embed_array,
            walked=True,
        )

    def read_ahead(self, snapshot: Snapshot, signals: Signals) -> ReadAhead:
        """What `propose` reads of the snapshot before its walk meets memory, and the texts the
        walk will embed first: a caller running several passes embeds all of theirs in one batch
        (`embed_ahead`), then hands each back to `propose`."""
        reading = self._read(snapshot)
        known = snapshot.stored_vectors
        texts = prefetch_texts(reading.readings, reading.consumed, reading.cited_by)
        return ReadAhead(snapshot=snapshot, texts=tuple(t for t in texts if t not in known), state=reading)

    def embed_ahead(self, texts: Sequence[str]) -> None:
        """Embed several passes' read-ahead texts in one batch; the embedder's cache keeps them
        for the passes (a model call costs less per token the more rows it holds)."""
        if texts:
            self.embedder.embed_array(list(dict.fromkeys(texts)))

    def propose(self, snapshot: Snapshot, signals: Signals, ahead: ReadAhead | None = None) -> EngineResult:
        reading = ahead.state if ahead is not None and ahead.snapshot is snapshot else None
        if not isinstance(reading, _EngineReading):
            reading = self._read(snapshot)
        notes = list(reading.notes)
        turns, consumed, roles, cited_by = reading.turns, reading.consumed, reading.roles, reading.cited_by
        user_name = roles.user_name
        messages = {t.message_id: t for t in turns}

        builder = PlanBuilder()
        working = WorkingSet.from_records(snapshot.memories, {i: t.ts for i, t in messages.items()})
        generic = generic_tokens(canonical_tokens(m.text) for m in snapshot.memories if m.is_active)
        embed = known_first(snapshot.stored_vectors, self.embedder.embed_array)
        slots = SlotReader(embed)
        names = frozenset().union(*(canonical_tokens(p) for p in (*roles.people, user_name or "")))
        paraphrases = Paraphrases(builder, working, embed, names)
        TranscriptPass(
            builder,
            working,
            roles,
            consumed,
            notes,
            generic,
            self._similarity,
            cited_by,
            embed,
            slots,
            frozenset(messages),
            paraphrases,
        ).run(reading.readable, reading.readings)
        paraphrases.flush()
        if signals.complaint is not None:
            self._remember_complaint(
                builder,
                working,
                complaint_memory_text(signals.complaint, user_name),
                signals.complaint.message_ids,
                messages,
            )

        if not signals.motives and not builder.actions:
            return EngineResult(plan=ActionPlan(), notes=tuple(notes))  # no signal: nothing to dream about
        name_tokens = canonical_tokens(user_name) if user_name else frozenset()
        Housekeeping(builder, working, messages, embed, name_tokens, notes, slots, roles.people).run(
            snapshot.memories, self._unchecked(snapshot), snapshot.pending_add_ids
        )
        plan, steered = steer_plan(builder.build(), snapshot.job.steering, self.embedder.embed_array)
        notes.extend(steered)
        return EngineResult(plan=plan, motives=signals.motives, notes=tuple(notes))

    def _read(self, snapshot: Snapshot) -> _EngineReading:
        notes: list[str] = []
        turns = self._own_turns(snapshot, notes)
        consumed = self._consumed_messages(snapshot, turns)
        injected = snapshot.injected_message_ids
        notes.extend(injection_note(t) for t in turns if t.message_id in injected and t.message_id not in consumed)
        readable = [t for t in turns if t.message_id not in injected]
        roles = read_roles(snapshot.scope, readable, self.assistant_roles)
        cited_by: dict[str, tuple[str, ...]] = {}  # superseded memories count: what they noted was read
        for memory in snapshot.memories:
            for message_id in memory.evidence_message_ids:
                cited_by[message_id] = (*cited_by.get(message_id, ()), memory.text)
        readings = read_messages(readable, roles, consumed)
        return _EngineReading(tuple(notes), turns, consumed, readable, roles, cited_by, readings)

    def _similarity(self, a: str, b: str) -> float:
        vectors = self.embedder.embed_array([a, b])
        return float(vectors[0] @ vectors[1])

    @staticmethod
    def _unchecked(snapshot: Snapshot) -> frozenset[str]:
        """The stored memories no pass has compared with the others yet: the pending memory-adds,
        and any record citing a message this pass is the first to read. Every other one met the
        memories live when it was made (the walk's rules), so comparing it again would make the
        result depend on where the pass boundaries fell (and the gate refuses such a change anyway:
        its evidence is not new)."""
        new = snapshot.new_message_ids
        return frozenset(
            m.memory_id
            for m in snapshot.memories
            if m.memory_id in snapshot.pending_add_ids or any(i in new for i in m.evidence_message_ids)
        )

    @staticmethod
    def _consumed_messages(snapshot: Snapshot, turns: list[ConversationTurn]) -> frozenset[str]:
        """Messages an earlier pass already consolidated: cited by a memory a pass wrote from the
        transcript, or read by an earlier pass (not in the snapshot's new messages). A message only
        a memory-add cites is not among them: the add is what an agent noted, not the dated fact
        the message states."""
        cited = {i for m in snapshot.memories if m.origin != "memory_add" for i in m.evidence_message_ids}
        cited.update(t.message_id for t in turns if t.message_id not in snapshot.new_message_ids)
        return frozenset(cited)

    @staticmethod
    def _own_turns(snapshot: Snapshot, notes: list[str]) -> list[ConversationTurn]:
        """The scope's own turns: a stray turn from another scope is never read (tenant isolation).
        A message typed in lower case is read with its capitals back (`cased_turns`)."""
        own = read_turns(snapshot)
        if len(own) != len(snapshot.transcript):
            notes.append(f"ignored {len(snapshot.transcript) - len(own)} transcript turn(s) from other scopes")
        return own

    @staticmethod
    def _remember_complaint(
        builder: PlanBuilder,
        working: WorkingSet,
        text: str,
        evidence: tuple[str, ...],
        messages: dict[str, ConversationTurn],
    ) -> None:
        tokens = canonical_tokens(text)
        if find_duplicate(tokens, working) is not None:
            return
        ref = builder.create(
            text, evidence, "one reason behind repeated dissatisfaction across threads", MOTIVE_MEMORY_CONFIDENCE
        )
        newest = max(messages[i].ts for i in evidence)
        working.add(
            WorkingMemory(
                key=ref, text=text, tokens=tokens, evidence_ids=evidence, evidence_ts=newest, created_in_plan=True
            )
        )
