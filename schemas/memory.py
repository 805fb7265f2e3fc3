"""The curated memory record, as stored in a generation and read by agents."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import AwareDatetime, Field

from schemas.events import Contract, MemoryAdd, MessageId, Metadata
from schemas.scope import ScopeStr

MemoryStatus = Literal["active", "superseded", "merged", "archived"]
MemoryOrigin = Literal["memory_add", "transcript", "motive"]
MemoryTier = Literal["core", "archive"]


class MemoryRecord(Contract):
    """One memory in one generation. Only `active` records are visible to readers; the others
    stay in the generation so its history says where every value went."""

    schema_version: Literal[1] = 1
    scope: ScopeStr
    memory_id: str = Field(min_length=1, max_length=256)
    text: str = Field(min_length=1, max_length=20_000)
    status: MemoryStatus = "active"
    origin: MemoryOrigin
    evidence_message_ids: tuple[MessageId, ...] = ()
    """Provenance: the transcript messages that support this memory."""
    protected: bool = False
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    created_at: AwareDatetime
    updated_at: AwareDatetime
    superseded_by: str | None = None
    merged_into: str | None = None
    merged_from: tuple[str, ...] = ()
    """The records merged into this one, directly or through a record merged into it."""
    status_reason: str = ""
    """Why the status is what it is (for superseded, merged and archived records)."""
    tier: MemoryTier = "core"
    """Where an active memory lives: the bounded *core* an agent puts in its prompt, or the
    unbounded, searchable *archive*. Every read and search returns both; a tier is a ranking,
    never a reason a memory is hidden."""
    consolidated: bool = True
    """False for a memory-add read before any pass curated it (search shows it at once)."""
    metadata: Metadata = None
    """Provenance: the producer's metadata of the memory-add this record came from."""
    valid_from: AwareDatetime | None = None
    """When its evidence made it true: the earliest message it rests on (a memory-add's source
    messages, else the add's own time; a correction's time for a corrected text). None on records
    written before validity was tracked: readers then use `created_at`."""
    valid_to: AwareDatetime | None = None
    """Set once it is superseded, retired by evidence or by a correction: the time of the evidence
    that ended it. None while it holds."""

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    @classmethod
    def from_add(cls, add: MemoryAdd, *, valid_from: datetime | None = None, pending: bool = False) -> MemoryRecord:
        """The one way a memory-add becomes a record. As a pass's snapshot holds it by default
        (`protected` as the add says, valid from `valid_from`, else the add's own time); with
        `pending`, as readers see it before any pass: searchable at once, in the archive tier,
        unconsolidated and never protected (only a pass or an operator protects)."""
        return cls(
            scope=add.scope,
            memory_id=add.memory_id,
            text=add.text,
            origin="memory_add",
            evidence_message_ids=add.source_message_ids,
            protected=add.protected and not pending,
            created_at=add.ts,
            updated_at=add.ts,
            metadata=add.metadata,
            valid_from=valid_from or add.ts,
            tier="archive" if pending else "core",
            consolidated=not pending,
        )
