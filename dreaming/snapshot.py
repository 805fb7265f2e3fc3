"""The immutable input of one dream pass."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar, cast

import numpy as np

from language.injection import injection_message_ids
from schemas import ControlEvent, ConversationTurn, DreamJob, MemoryRecord

T = TypeVar("T")


@dataclass(frozen=True)
class Snapshot:
    """What a pass reads: never edited, so every phase can be re-run and compared.

    `memories` is the active generation plus the pending memory-adds (turned into records with
    origin `memory_add`), in a stable order; `transcript` is chronological.
    """

    job: DreamJob
    generation: int
    """The active generation the pass starts from (0 when the scope has none yet)."""
    memories: tuple[MemoryRecord, ...]
    transcript: tuple[ConversationTurn, ...]
    pending_add_ids: frozenset[str] = field(default_factory=frozenset)
    """Memory ids in `memories` that arrived as memory-adds since the last pass."""
    new_message_ids: frozenset[str] = field(default_factory=frozenset)
    """Transcript messages no earlier pass has read: where new signal comes from. Empty means
    nothing is new (a snapshot of a first pass lists every message)."""
    long_inactive_ids: frozenset[str] = field(default_factory=frozenset)
    """Superseded, merged or archived records that were already inactive `N` promoted generations
    back: the prune step leaves them out of the next generation."""
    foreign_evidence_adds: frozenset[str] = field(default_factory=frozenset)
    """Pending memory-adds citing a message that is not this scope's (another scope's, or none):
    never written; the pass clears them from the inbox with a note."""
    deferred_add_ids: frozenset[str] = field(default_factory=frozenset)
    """Memory-adds left in the inbox (not in `memories`): they cite a message the index does not
    hold yet, and no turn as late as the add has been indexed (see take_snapshot)."""
    taken_at: datetime | None = None
    corrections: tuple[ControlEvent, ...] = ()
    """Corrections of stored memories (`correct` control events) waiting for this pass, oldest first."""
    offsets: Mapping[str, int] = field(default_factory=dict)
    """Message id -> its offset in the scope's turns partition (what a watermark counts in), for
    the messages of `transcript`; empty for a snapshot built by hand."""
    stored_vectors: Mapping[str, np.ndarray] = field(default_factory=dict, compare=False, repr=False)
    """The stored vector of each statement of the active generation (`store.search.embedding_text`),
    when it is that text's own embedding (`memory_vectors=embed`): what an engine would otherwise
    embed again. Empty for a snapshot built by hand."""

    @property
    def scope(self) -> str:
        return self.job.scope

    def memory(self, memory_id: str) -> MemoryRecord | None:
        return self._by_id.get(memory_id)

    @property
    def _by_id(self) -> dict[str, MemoryRecord]:
        cached = self.__dict__.get("_by_id_cache")
        if cached is None:
            cached = {m.memory_id: m for m in self.memories}
            object.__setattr__(self, "_by_id_cache", cached)
        return cached

    def message(self, message_id: str) -> ConversationTurn | None:
        cached = self.__dict__.get("_msg_cache")
        if cached is None:
            cached = {t.message_id: t for t in self.transcript}
            object.__setattr__(self, "_msg_cache", cached)
        return cached.get(message_id)

    def reading(self, name: str, read: Callable[[Snapshot], T]) -> T:
        """`read(self)`, computed once per snapshot under `name`: a reading several phases of a pass
        share (the snapshot never changes, so neither does the reading)."""
        readings = self.__dict__.get("_readings")
        if readings is None:
            readings = {}
            object.__setattr__(self, "_readings", readings)
        if name not in readings:
            readings[name] = read(self)
        return cast(T, readings[name])

    @property
    def injected_message_ids(self) -> frozenset[str]:
        """The scope's messages that try to instruct the system (`language.injection`), judged
        once per pass: gather, the engines, verify and the gate all ask."""
        cached = self.__dict__.get("_injected_cache")
        if cached is None:
            own = (t for t in self.transcript if t.scope == self.scope)
            cached = frozenset(injection_message_ids(own))
            object.__setattr__(self, "_injected_cache", cached)
        return cached

    @property
    def active_memories(self) -> tuple[MemoryRecord, ...]:
        return tuple(m for m in self.memories if m.is_active)
