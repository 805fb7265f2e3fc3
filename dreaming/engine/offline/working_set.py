"""The memories a pass reasons over while it builds its plan.

It starts as the snapshot's active memories and changes as the plan grows: a memory created from
an early message can be superseded by a later one in the same plan, a superseded memory stops
being a target. An inverted index on canonical tokens keeps lookups cheap over long transcripts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from dreaming.embedding import canonical_tokens
from language.dates import without_stamp
from schemas import MemoryRecord


@dataclass(frozen=True)
class WorkingMemory:
    key: str
    """The memory id, or the create-ref for a memory this plan creates."""
    text: str
    tokens: frozenset[str]
    evidence_ids: tuple[str, ...]
    evidence_ts: datetime
    """When its newest evidence was said (message ts), or when it was written if none is known."""
    protected: bool = False
    created_in_plan: bool = False
    origin: str = "transcript"
    """The record's origin ("memory_add" for an agent's note); a memory this plan makes is "transcript"."""


def newest_evidence_ts(record: MemoryRecord, message_ts: Mapping[str, datetime]) -> datetime:
    """The time of the newest evidence behind a claim: its cited messages, or its `valid_from` when
    later (a corrected text holds from the correction on, whatever its messages said before)."""
    known = [message_ts[i] for i in record.evidence_message_ids if i in message_ts]
    newest = max(known) if known else record.created_at
    return max(newest, record.valid_from) if record.valid_from is not None else newest


COMMON_SHARE = 0.25
MIN_MEMORIES_FOR_COMMON = 20


def frequent_tokens(token_sets: Iterable[frozenset[str]], share: float, min_memories: int) -> frozenset[str]:
    """Tokens in more than `share` of the sets, given at least `min_memories` sets (none below)."""
    sets = list(token_sets)
    if len(sets) < min_memories:
        return frozenset()
    counts = Counter(token for tokens in sets for token in tokens)
    return frozenset(token for token, count in counts.items() if count > share * len(sets))


def common_tokens_of(records: Iterable[MemoryRecord]) -> frozenset[str]:
    """`WorkingSet.common_tokens` of the active records, without building the set's index."""
    return frequent_tokens(
        (canonical_tokens(without_stamp(r.text)) for r in records if r.is_active), COMMON_SHARE, MIN_MEMORIES_FOR_COMMON
    )


class WorkingSet:
    def __init__(self) -> None:
        self._entries: dict[str, WorkingMemory] = {}
        self._retired: set[str] = set()
        self._postings: dict[str, list[str]] = {}
        self._order: dict[str, int] = {}
        self._common: frozenset[str] | None = None
        # How many live memories hold each token, and the tokens by that count: the common
        # tokens are read off the few highest counts, not recounted over every memory each time.
        self._counts: dict[str, int] = {}
        self._by_count: dict[int, set[str]] = {}
        self._live = 0
        self._changes: list[str] = []
        """Every key added or retired, in order: what an index kept beside this set must redo."""
        self._citing: dict[str, dict[str, None]] = {}
        """Message id -> the keys of the memories that have cited it (live or not), in order."""

    @classmethod
    def from_records(cls, records: tuple[MemoryRecord, ...], message_ts: Mapping[str, datetime]) -> WorkingSet:
        working = cls()
        for record in records:
            if record.is_active:
                working.add(
                    WorkingMemory(
                        key=record.memory_id,
                        text=record.text,
                        tokens=canonical_tokens(without_stamp(record.text)),
                        evidence_ids=record.evidence_message_ids,
                        evidence_ts=newest_evidence_ts(record, message_ts),
                        protected=record.protected,
                        origin=record.origin,
                    )
                )
        return working

    def common_tokens(self, share: float = COMMON_SHARE, min_memories: int = MIN_MEMORIES_FOR_COMMON) -> frozenset[str]:
        """Tokens in more than `share` of the live memories (given at least `min_memories`): in a
        scope about one project, its words tell no two of its facts apart. `frequent_tokens` over
        the live memories' tokens, read off counts kept as memories come and go."""
        if self._common is None:
            if self._live < min_memories:
                self._common = frozenset()
            else:
                above = [tokens for count, tokens in self._by_count.items() if count > share * self._live]
                self._common = frozenset().union(*above)
        return self._common

    def tokens_above(self, share: float, min_memories: int = 3) -> frozenset[str]:
        """Tokens in more than `share` of the live memories, and in two at least (given at least
        `min_memories`); not cached."""
        if self._live < min_memories:
            return frozenset()
        above = max(share * self._live, 1)
        return frozenset().union(*(tokens for count, tokens in self._by_count.items() if count > above))

    def changes_since(self, position: int) -> list[str]:
        """The keys added or retired since `position` changes were logged (a reader's cursor)."""
        return self._changes[position:]

    def add(self, memory: WorkingMemory) -> None:
        self._common = None
        self._changes.append(memory.key)
        if self.is_live(memory.key):
            self._count(self._entries[memory.key].tokens, -1)
        self._entries[memory.key] = memory
        if memory.key not in self._retired:
            self._count(memory.tokens, +1)
        self._order.setdefault(memory.key, len(self._order))
        for token in sorted(memory.tokens):
            self._postings.setdefault(token, []).append(memory.key)
        for message_id in memory.evidence_ids:
            self._citing.setdefault(message_id, {})[memory.key] = None

    def retire(self, key: str) -> None:
        """Superseded or merged in this plan: no longer a target nor a duplicate candidate."""
        if self.is_live(key):
            self._count(self._entries[key].tokens, -1)
        self._retired.add(key)
        self._common = None
        self._changes.append(key)

    def _count(self, tokens: frozenset[str], step: int) -> None:
        self._live += step
        for token in tokens:
            before = self._counts.get(token, 0)
            after = before + step
            if before:
                self._by_count[before].discard(token)
                if not self._by_count[before]:
                    del self._by_count[before]
            if after:
                self._counts[token] = after
                self._by_count.setdefault(after, set()).add(token)
            else:
                del self._counts[token]

    def get(self, key: str) -> WorkingMemory | None:
        return self._entries.get(key)

    def is_live(self, key: str) -> bool:
        return key in self._entries and key not in self._retired

    def citing(self, message_id: str) -> list[WorkingMemory]:
        """Live memories citing the message, in insertion order."""
        return [self._entries[key] for key in self._citing.get(message_id, ()) if self.is_live(key)]

    def _posting(self, token: str) -> list[str]:
        return self._postings.get(token, [])

    def containing_all(self, tokens: frozenset[str]) -> list[WorkingMemory]:
        """Live memories whose tokens include every token given, in insertion order."""
        if not tokens:
            return []
        rarest = min(sorted(tokens), key=lambda t: len(self._posting(t)))
        return [
            m
            for key in self._posting(rarest)
            if key not in self._retired and tokens <= (m := self._entries[key]).tokens
        ]

    def sharing_any(self, tokens: frozenset[str], limit_tokens: int) -> list[WorkingMemory]:
        """Live memories holding at least one of the `limit_tokens` rarest of `tokens`, in insertion order.

        A memory that shares a fraction f of `tokens` must hold one of any len(tokens)*(1-f)+1 of
        them, so callers pass that count and never scan the whole set.
        """
        ranked = sorted(sorted(tokens), key=lambda t: len(self._posting(t)))[: max(1, limit_tokens)]
        keys = {key for token in ranked for key in self._posting(token) if key not in self._retired}
        return [self._entries[key] for key in sorted(keys, key=self._order.__getitem__)]
