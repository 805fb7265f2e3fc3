"""Choose what one pass shows the model: the new messages, a little context, the memories they touch.

The prompt must grow with the new signal, not with the store: a scope with a thousand memories and
five new messages gets those five messages, the message before each in its session, the pending
memory-adds, and the few memories that share specific words or meaning with them. Everything is
capped by `PromptLimits`, and whatever a cap leaves out is counted, so the pass can say so.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from consumers.embedding import canonical_tokens
from consumers.snapshot import Snapshot
from schemas import ConversationTurn, MemoryRecord

Embed = Callable[[Sequence[str]], list[list[float]]]


@dataclass(frozen=True)
class PromptLimits:
    max_new_messages: int = 60
    """Newest first: with more new messages than this, the oldest new ones are not shown."""
    max_memories: int = 40
    """Stored memories shown besides the pending memory-adds, most relevant first."""
    max_pending_adds: int = 40
    max_text_chars: int = 2_000
    """Longer message or memory texts are cut, with a marker, in the prompt only."""
    min_similarity: float = 0.5
    """Embedding cosine at which a memory counts as touched without a shared specific word; unrelated
    short texts reach about 0.35 with the local hashing embedder, so the bar sits well above that."""


@dataclass(frozen=True)
class PromptContext:
    messages: tuple[ConversationTurn, ...]
    """New messages and their context, chronological."""
    new_message_ids: frozenset[str]
    memories: tuple[MemoryRecord, ...]
    """Pending memory-adds and the touched stored memories, oldest first."""
    pending_add_ids: frozenset[str]
    memories_stored: int
    new_messages_left_out: int = 0
    pending_adds_left_out: int = 0

    @property
    def memory_ids(self) -> frozenset[str]:
        return frozenset(m.memory_id for m in self.memories)


def select_context(snapshot: Snapshot, limits: PromptLimits, embed: Embed) -> PromptContext:
    new = [t for t in snapshot.transcript if t.message_id in snapshot.new_message_ids]
    shown_new = new[-limits.max_new_messages :] if limits.max_new_messages else []
    messages = _with_previous_in_session(snapshot.transcript, {t.message_id for t in shown_new})

    pending = [m for m in snapshot.memories if m.memory_id in snapshot.pending_add_ids and m.is_active]
    shown_pending = sorted(pending, key=lambda m: (m.created_at, m.memory_id))[-limits.max_pending_adds :]
    stored = [m for m in snapshot.memories if m.is_active and m.memory_id not in snapshot.pending_add_ids]
    queries = [t.content for t in shown_new] + [m.text for m in shown_pending]
    touched = _touched_memories(stored, queries, {t.message_id for t in messages}, limits, embed)

    return PromptContext(
        messages=messages,
        new_message_ids=frozenset(t.message_id for t in shown_new),
        memories=tuple(sorted([*shown_pending, *touched], key=lambda m: (m.created_at, m.memory_id))),
        pending_add_ids=frozenset(m.memory_id for m in shown_pending),
        memories_stored=len(stored),
        new_messages_left_out=len(new) - len(shown_new),
        pending_adds_left_out=len(pending) - len(shown_pending),
    )


def _with_previous_in_session(transcript: Sequence[ConversationTurn], wanted: set[str]) -> tuple[ConversationTurn, ...]:
    """The wanted messages plus, for each, the message before it in the same session: a reply
    like "no, aisle" means nothing without the question it answers."""
    keep: set[str] = set(wanted)
    previous_in_session: dict[str, ConversationTurn] = {}
    for turn in transcript:
        before = previous_in_session.get(turn.session_id)
        if turn.message_id in wanted and before is not None:
            keep.add(before.message_id)
        previous_in_session[turn.session_id] = turn
    return tuple(t for t in transcript if t.message_id in keep)


def _touched_memories(
    stored: list[MemoryRecord], queries: list[str], shown_message_ids: set[str], limits: PromptLimits, embed: Embed
) -> list[MemoryRecord]:
    """Stored memories the new signal touches, most relevant first, at most `max_memories`."""
    if not stored or not queries or limits.max_memories <= 0:
        return []
    specific = _specific_weights(stored)
    query_tokens = frozenset().union(*(canonical_tokens(q) for q in queries))
    similarity = _max_cosine(embed([m.text for m in stored]), embed(queries))

    ranked: list[tuple[bool, float, MemoryRecord]] = []
    for memory, cosine in zip(stored, similarity):
        shared = sum(specific.get(token, 0.0) for token in canonical_tokens(memory.text) & query_tokens)
        cites_shown = not shown_message_ids.isdisjoint(memory.evidence_message_ids)
        if shared > 0 or cosine >= limits.min_similarity or cites_shown:
            ranked.append((cites_shown, shared + float(cosine), memory))
    ranked.sort(key=lambda row: (row[0], row[1]), reverse=True)
    return [memory for _, _, memory in ranked[: limits.max_memories]]


def _specific_weights(stored: list[MemoryRecord]) -> dict[str, float]:
    """Inverse document frequency of each token over the stored memories, keeping only tokens in
    at most half of them: in a scope about Ava, "ava" touches everything and so means nothing."""
    frequency = Counter(token for memory in stored for token in canonical_tokens(memory.text))
    total = len(stored) + 1
    weights = {token: math.log(total / count) for token, count in frequency.items()}
    return {token: weight for token, weight in weights.items() if weight >= math.log(2)}


def _max_cosine(rows: list[list[float]], queries: list[list[float]]) -> np.ndarray:
    """Per row, its best cosine against any query (the embedder's vectors are unit length)."""
    best: np.ndarray = (np.asarray(rows) @ np.asarray(queries).T).max(axis=1)
    return best
