"""Cut a pass's new messages into chunks that each fit the model's context.

Coverage, not a cap: every new message of the pass is in some chunk, in the order the scope's
partition holds them (Kafka offset), so the messages a pass has read are always a prefix and the
watermark can say how far it got. A chunk's prompt is the fixed part (system prompt, headings),
its messages (each with the message before it in its session) and memory-adds, and the stored
memories those touch; with the reply budget it must fit `llm_context_tokens`. Its messages take
at most `message_share` of the room, the touched memories the rest; when the touched memories do
not fit, the chunk is halved, down to one message.

Tokens are estimated from characters (`llm_chars_per_token`, on the cautious side for JSON lines);
a prompt the provider still finds too long is halved again by the engine (`retry_smaller`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from dreaming.embedding import canonical_tokens
from dreaming.engine.base import EngineError
from dreaming.engine.llm.context import Embed, PromptContext, PromptLimits, RelevantMemories, with_previous_in_session
from dreaming.engine.llm.prompt import data_line, memory_row, message_row, motive_rows
from dreaming.snapshot import Snapshot
from schemas import ConversationTurn, CreateAction, MemoryRecord, Motive
from schemas.actions import MemoryAction

MOTIVE_SHARE = 0.15
"""Of a part's data room, at most this share for the SIGNALS block."""


@dataclass(frozen=True)
class TokenBudget:
    context_tokens: int
    """The model's context: prompt and reply together."""
    reply_tokens: int
    chars_per_token: float

    def tokens(self, text: str) -> int:
        return math.ceil(len(text) / self.chars_per_token) + 1

    @property
    def prompt_tokens(self) -> int:
        return self.context_tokens - self.reply_tokens


@dataclass(frozen=True)
class Chunk:
    context: PromptContext
    motives: tuple[Motive, ...]
    start: int
    stop: int
    """The planner's items [start, stop): new messages (with their memory-adds) and free memory-adds."""
    estimated_tokens: int


@dataclass
class _Item:
    """One new message with the memory-adds citing it, or one memory-add citing no new message."""

    turn: ConversationTurn | None
    adds: list[MemoryRecord] = field(default_factory=list)
    tokens: int = 0

    @property
    def texts(self) -> list[str]:
        return ([self.turn.content] if self.turn else []) + [m.text for m in self.adds]


class ChunkPlanner:
    def __init__(
        self,
        snapshot: Snapshot,
        motives: tuple[Motive, ...],
        limits: PromptLimits,
        budget: TokenBudget,
        embed: Embed,
        fixed_tokens: int,
    ) -> None:
        """`fixed_tokens`: the prompt of a chunk with nothing in it (system prompt, headings)."""
        self._snapshot = snapshot
        self._motives = motives
        self._limits = limits
        self._budget = budget
        self._embed = embed
        self._data_tokens = budget.prompt_tokens - fixed_tokens
        if self._data_tokens < 50:
            raise EngineError(
                f"llm_context_tokens {budget.context_tokens} leaves no room for messages: the fixed prompt takes "
                f"about {fixed_tokens} tokens and the reply {budget.reply_tokens}"
            )
        # The SIGNALS block gets a fixed share of the room (the motives that fit it, in order), so
        # a pass with many motives does not crowd out every part's memories.
        max_chars = limits.max_text_chars
        self._motive_tokens = [budget.tokens(data_line(row)) for row in motive_rows(motives, max_chars)]
        self._motive_room = min(sum(self._motive_tokens), int(self._data_tokens * MOTIVE_SHARE))
        self._new = _new_in_partition_order(snapshot)
        self._items = self._make_items()
        self.new_messages = len(self._new)
        stored = [m for m in snapshot.memories if m.is_active and m.memory_id not in snapshot.pending_add_ids]
        self.memories_stored = len(stored)
        self._relevant = RelevantMemories(stored, embed, limits)
        texts = [text for item in self._items for text in item.texts]
        self._vectors = np.asarray(embed(texts), dtype=np.float32).reshape(len(texts), -1) if texts else None
        self._first_vector = np.cumsum([0, *(len(item.texts) for item in self._items)])
        self._created: list[MemoryRecord] = []
        self._cursor = 0
        self._cap: int | None = None
        self.parts = 0

    # --- the engine's side
    def next(self) -> Chunk | None:
        """The next chunk, or None once every new message and memory-add has been in one."""
        if self._cursor >= len(self._items):
            return None
        cap = self._cap or len(self._items)
        while (chunk := self._assemble(self._cursor, cap)) is None:
            cap = max(min(self._taken(self._cursor), cap) // 2, 1)
        self._cursor, self._cap = chunk.stop, None
        self.parts += 1
        return chunk

    def retry_smaller(self, chunk: Chunk) -> bool:
        """The provider found the chunk too long: plan it again at half the items (False at one)."""
        if chunk.stop - chunk.start <= 1:
            return False
        self._cursor, self._cap = chunk.start, (chunk.stop - chunk.start) // 2
        self.parts -= 1
        return True

    def unread_from(self, start: int) -> frozenset[str]:
        """The new message ids of the items from `start` on: what the pass leaves for the next one."""
        return frozenset(item.turn.message_id for item in self._items[start:] if item.turn is not None)

    @property
    def cursor(self) -> int:
        return self._cursor

    def created(self, actions: Sequence[MemoryAction], stamp_from: Snapshot) -> None:
        """Memories a chunk's plan created (ids = their pass-wide refs): later chunks may touch them."""
        made = [
            MemoryRecord(
                scope=stamp_from.scope,
                memory_id=a.ref,
                text=a.text,
                origin="transcript",
                evidence_message_ids=a.evidence_message_ids,
                created_at=stamp_from.job.requested_at,
                updated_at=stamp_from.job.requested_at,
            )
            for a in actions
            if isinstance(a, CreateAction)
        ]
        self._created.extend(made)
        self._relevant.add(made)

    # --- planning
    def _make_items(self) -> list[_Item]:
        snapshot = self._snapshot
        position = {t.message_id: i for i, t in enumerate(self._new)}
        items = [_Item(turn) for turn in self._new]
        free: list[MemoryRecord] = []
        pending = sorted(
            (m for m in snapshot.memories if m.memory_id in snapshot.pending_add_ids and m.is_active),
            key=lambda m: (m.created_at, m.memory_id),
        )
        for add in pending:
            cited = [position[i] for i in add.evidence_message_ids if i in position]
            if cited:
                items[max(cited)].adds.append(add)
            else:
                free.append(add)
        for add in free:  # by time among the messages, so a budget cut leaves the later ones for later
            at = next((i for i, item in enumerate(items) if item.turn and item.turn.ts > add.created_at), len(items))
            items.insert(at, _Item(None, [add]))
        previous = _previous_in_session(snapshot.transcript)
        max_chars = self._limits.max_text_chars
        for item in items:
            rows = [memory_row(m, pending_add=True, created=False, max_chars=max_chars) for m in item.adds]
            if item.turn is not None:
                rows.append(message_row(item.turn, new=True, max_chars=max_chars))
                before = previous.get(item.turn.message_id)
                if before is not None and before.message_id not in snapshot.new_message_ids:
                    rows.append(message_row(before, new=False, max_chars=max_chars))
            item.tokens = sum(self._budget.tokens(data_line(row)) for row in rows)
        return items

    def _taken(self, start: int) -> int:
        """How many items from `start` fit the message share of the room."""
        room = (self._data_tokens - self._motive_room) * self._limits.message_share
        used = count = 0
        for item in self._items[start:]:
            if count and used + item.tokens > room:
                break
            used += item.tokens
            count += 1
        return count

    def _assemble(self, start: int, cap: int) -> Chunk | None:
        """The chunk of at most `cap` items from `start`, or None when its touched memories do not
        fit beside its messages and it could be smaller."""
        count = min(self._taken(start), cap)
        items = self._items[start : start + count]
        new_ids = [item.turn.message_id for item in items if item.turn is not None]
        adds = [m for item in items for m in item.adds]
        messages = with_previous_in_session(self._snapshot.transcript, new_ids)
        shown = {t.message_id for t in messages}
        motives = self._motives_for(shown)
        max_chars = self._limits.max_text_chars
        used = sum(item.tokens for item in items) + self._motive_room
        # a new message's context message that is new as well but read in another part
        chosen = set(new_ids)
        used += sum(
            self._budget.tokens(data_line(message_row(t, new=False, max_chars=max_chars)))
            for t in messages
            if t.message_id not in chosen and t.message_id in self._snapshot.new_message_ids
        )
        touched = self._touched(start, count, shown, {m.memory_id for m in adds})
        fitted: list[MemoryRecord] = []
        for memory in touched:
            created = memory.memory_id in self._created_ids
            cost = self._budget.tokens(
                data_line(memory_row(memory, pending_add=False, created=created, max_chars=max_chars))
            )
            if used + cost > self._data_tokens:
                break
            fitted.append(memory)
            used += cost
        if len(fitted) < len(touched) and count > 1:
            return None
        created_ids = frozenset(m.memory_id for m in fitted if m.memory_id in self._created_ids)
        context = PromptContext(
            messages=messages,
            new_message_ids=frozenset(new_ids),
            memories=tuple(sorted([*adds, *fitted], key=lambda m: (m.created_at, m.memory_id))),
            pending_add_ids=frozenset(m.memory_id for m in adds),
            memories_stored=self.memories_stored,
            created_ids=created_ids,
            part=self.parts + 1,
            new_messages_in_pass=self.new_messages,
            touched_left_out=len(touched) - len(fitted),
        )
        return Chunk(context, motives, start, start + count, used)

    def _motives_for(self, shown: set[str]) -> tuple[Motive, ...]:
        """The motives citing a shown message (or none), in order, as many as the motive room holds."""
        kept, used = [], 0
        for motive, tokens in zip(self._motives, self._motive_tokens):
            if motive.message_ids and shown.isdisjoint(motive.message_ids):
                continue
            if used + tokens > self._motive_room:
                break
            kept.append(motive)
            used += tokens
        return tuple(kept)

    @property
    def _created_ids(self) -> set[str]:
        return {m.memory_id for m in self._created}

    def _touched(self, start: int, count: int, shown: set[str], add_ids: set[str]) -> list[MemoryRecord]:
        if self._vectors is None:
            return []
        first, last = self._first_vector[start], self._first_vector[start + count]
        queries = self._vectors[first:last]
        texts = [text for item in self._items[start : start + count] for text in item.texts]
        tokens = frozenset().union(*(_tokens(text) for text in texts))
        ranked = self._relevant.ranked(queries, tokens, shown)
        return [m for m in ranked if m.memory_id not in add_ids][: self._limits.max_memories]


def _tokens(text: str) -> frozenset[str]:
    return frozenset(canonical_tokens(text))


def _new_in_partition_order(snapshot: Snapshot) -> list[ConversationTurn]:
    new = [t for t in snapshot.transcript if t.message_id in snapshot.new_message_ids]
    if snapshot.offsets:
        order = {t.message_id: i for i, t in enumerate(snapshot.transcript)}
        new.sort(key=lambda t: (snapshot.offsets.get(t.message_id, -1), order[t.message_id]))
    return new


def _previous_in_session(transcript: Sequence[ConversationTurn]) -> dict[str, ConversationTurn]:
    before: dict[str, ConversationTurn] = {}
    last: dict[str, ConversationTurn] = {}
    for turn in transcript:
        if turn.session_id in last:
            before[turn.message_id] = last[turn.session_id]
        last[turn.session_id] = turn
    return before
