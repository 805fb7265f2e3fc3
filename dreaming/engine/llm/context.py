"""What one chunk of a pass shows the model, and which stored memories a chunk touches.

A chunk is some of the pass's new messages (with the message before each in its session), the
pending memory-adds that belong with them, and the stored memories they touch: those that share a
specific word with them, are close in meaning, or cite one of the messages shown. `RelevantMemories`
ranks the stored memories for any set of queries; it embeds the store once per pass, so a pass of
many chunks pays for the store's embeddings once.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from dreaming.embedding import canonical_tokens
from schemas import ConversationTurn, MemoryRecord

Embed = Callable[[Sequence[str]], list[list[float]]]


@dataclass(frozen=True)
class PromptLimits:
    max_memories: int = 40
    """Stored memories a chunk shows besides its memory-adds, most relevant first (a search's k)."""
    max_text_chars: int = 2_000
    """Longer message or memory texts are cut, with a marker, in the prompt only."""
    min_similarity: float = 0.5
    """Embedding cosine at which a memory counts as touched without a shared specific word; unrelated
    short texts reach about 0.35 with the local hashing embedder, so the bar sits well above that."""
    message_share: float = 0.6
    """Of a chunk's data budget, at most this share goes to its messages and memory-adds: the rest
    is room for the memories they touch."""


@dataclass(frozen=True)
class PromptContext:
    """One chunk of a pass as the prompt shows it."""

    messages: tuple[ConversationTurn, ...]
    """New messages and their context, chronological."""
    new_message_ids: frozenset[str]
    memories: tuple[MemoryRecord, ...]
    """Pending memory-adds, touched stored memories and memories earlier chunks created, oldest first."""
    pending_add_ids: frozenset[str]
    memories_stored: int
    created_ids: frozenset[str] = frozenset()
    """Ids in `memories` that earlier chunks of this pass created (their refs)."""
    part: int = 1
    new_messages_in_pass: int = 0
    touched_left_out: int = 0
    """Touched memories ranked below what fitted the chunk (a chunk of one message only)."""

    @property
    def memory_ids(self) -> frozenset[str]:
        return frozenset(m.memory_id for m in self.memories)


def with_previous_in_session(
    transcript: Sequence[ConversationTurn], wanted: Iterable[str]
) -> tuple[ConversationTurn, ...]:
    """The wanted messages plus, for each, the message before it in the same session: a reply
    like "no, aisle" means nothing without the question it answers."""
    keep: set[str] = set(wanted)
    previous_in_session: dict[str, ConversationTurn] = {}
    for turn in transcript:
        before = previous_in_session.get(turn.session_id)
        if turn.message_id in keep and before is not None:
            keep.add(before.message_id)
        previous_in_session[turn.session_id] = turn
    return tuple(t for t in transcript if t.message_id in keep)


class RelevantMemories:
    """The memories a pass may touch, ranked for a chunk's texts: cites a shown message first, then
    shared specific words plus embedding cosine. Memories created by earlier chunks join with `add`."""

    def __init__(self, stored: Sequence[MemoryRecord], embed: Embed, limits: PromptLimits) -> None:
        self._embed = embed
        self._limits = limits
        self._records: list[MemoryRecord] = list(stored)
        self._specific = _specific_weights(self._records)
        self._tokens = [canonical_tokens(m.text) for m in self._records]
        self._vectors = _matrix(embed([m.text for m in self._records]) if self._records else [])

    def __len__(self) -> int:
        return len(self._records)

    def add(self, records: Sequence[MemoryRecord]) -> None:
        if not records:
            return
        self._records.extend(records)
        self._tokens.extend(canonical_tokens(m.text) for m in records)
        added = _matrix(self._embed([m.text for m in records]))
        self._vectors = added if self._vectors.size == 0 else np.vstack([self._vectors, added])

    def ranked(self, queries: np.ndarray, query_tokens: frozenset[str], shown: set[str]) -> list[MemoryRecord]:
        """Every touched memory, most relevant first; `queries` holds the chunk's text vectors."""
        if not self._records or queries.size == 0:
            return []
        similarity = (self._vectors @ queries.T).max(axis=1)
        rows: list[tuple[bool, float, int]] = []
        for i, (memory, cosine) in enumerate(zip(self._records, similarity)):
            shared = sum(self._specific.get(token, 0.0) for token in self._tokens[i] & query_tokens)
            cites_shown = not shown.isdisjoint(memory.evidence_message_ids)
            if shared > 0 or cosine >= self._limits.min_similarity or cites_shown:
                rows.append((cites_shown, shared + float(cosine), i))
        rows.sort(key=lambda row: (row[0], row[1]), reverse=True)
        return [self._records[i] for _, _, i in rows]


def _matrix(vectors: list[list[float]]) -> np.ndarray:
    return np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1) if vectors else np.zeros((0, 0))


def _specific_weights(stored: list[MemoryRecord]) -> dict[str, float]:
    """Inverse document frequency of each token over the stored memories, keeping only tokens in
    at most half of them: in a scope about Ava, "ava" touches everything and so means nothing."""
    frequency = Counter(token for memory in stored for token in canonical_tokens(memory.text))
    total = len(stored) + 1
    weights = {token: math.log(total / count) for token, count in frequency.items()}
    return {token: weight for token, weight in weights.items() if weight >= math.log(2)}
