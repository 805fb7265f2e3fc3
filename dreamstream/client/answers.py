"""What the client sends (a `Filter`) and what it returns: typed, read tolerantly (fields a newer
server adds are ignored)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from dreaming.store.pointer import GenerationInfo
from schemas import MemoryRecord


def iso(value: datetime | str) -> str:
    return value.isoformat() if isinstance(value, datetime) else value


@dataclass(frozen=True)
class Filter:
    """What list and search may be narrowed to (the API's filter parameters)."""

    tier: Literal["core", "archive"] | None = None
    origin: Literal["memory_add", "transcript", "motive"] | None = None
    consolidated: bool | None = None
    created_after: datetime | str | None = None
    created_before: datetime | str | None = None
    updated_after: datetime | str | None = None
    updated_before: datetime | str | None = None
    metadata: Mapping[str, str | int | float | bool] | None = None
    """Equality on flat metadata keys, every one must hold."""
    about: str | None = None
    """Only memories that name this person or thing ("Ava" finds "Ava's sister", not "Avalon")."""

    def params(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for name in ("tier", "origin", "created_after", "created_before", "updated_after", "updated_before", "about"):
            value = getattr(self, name)
            if value is not None:
                out[name] = iso(value) if isinstance(value, datetime) else str(value)
        if self.consolidated is not None:
            out["consolidated"] = "true" if self.consolidated else "false"
        for key, value in (self.metadata or {}).items():
            out[f"meta.{key}"] = ("true" if value else "false") if isinstance(value, bool) else str(value)
        return out


@dataclass(frozen=True)
class SearchHit:
    memory: MemoryRecord
    score: float
    consolidated: bool
    """False for a memory-add no dream pass has curated yet."""
    tier: str
    """`core` (what an agent puts in its prompt) or `archive` (searchable, not in the prompt)."""


@dataclass(frozen=True)
class Page:
    scope: str
    generation: int
    memories: tuple[MemoryRecord, ...]
    next_cursor: str | None
    total: int


@dataclass(frozen=True)
class Version:
    """A memory in one kept generation, and when the value it stands for held (along the active
    generation's lineage; None off it, or from a server that does not say)."""

    generation: int
    generation_status: str
    record: MemoryRecord | None
    """None: the memory is not in that generation."""
    valid_from: datetime | None = None
    valid_to: datetime | None = None


@dataclass(frozen=True)
class MemoryHistory:
    scope: str
    memory: MemoryRecord | None
    """As readers see it now; None when it is no longer active."""
    versions: tuple[Version, ...]
    """Oldest first; empty for a memory-add no pass has curated yet."""


@dataclass(frozen=True)
class ContextItem:
    memory_id: str
    section: str
    """`core` or `related` (the query's hits outside the core)."""
    tier: str
    consolidated: bool
    date: str
    text: str
    tokens: int
    score: float | None


@dataclass(frozen=True)
class Context:
    scope: str
    text: str
    """The prompt-ready block."""
    items: tuple[ContextItem, ...]
    tokens: int
    budget_tokens: int
    omitted: Mapping[str, int]


@dataclass(frozen=True)
class Generations:
    scope: str
    active_generation: int
    next_generation: int
    generations: tuple[GenerationInfo, ...]


@dataclass(frozen=True)
class Accepted:
    """A memory-add the API produced: searchable (`consolidated: false`) once the worker indexed it."""

    scope: str
    memory_id: str


@dataclass(frozen=True)
class Correction:
    """A correction the API produced; the next pass applies it (its diary names `correction_id`)."""

    scope: str
    memory_id: str
    correction_id: str


@dataclass(frozen=True)
class Steering:
    text: str
    by: str | None
    set_at: str | None


def record(data: Mapping[str, Any]) -> MemoryRecord:
    """A MemoryRecord from the API's JSON, ignoring fields this version does not know."""
    return MemoryRecord.model_validate({k: v for k, v in data.items() if k in MemoryRecord.model_fields})


def version_of(data: Mapping[str, Any]) -> Version:
    return Version(
        int(data["generation"]),
        str(data["generation_status"]),
        record(data["record"]) if data.get("record") else None,
        _instant_or_none(data.get("valid_from")),
        _instant_or_none(data.get("valid_to")),
    )


def _instant_or_none(value: object) -> datetime | None:
    return datetime.fromisoformat(value) if isinstance(value, str) and value else None


def generations_of(body: Mapping[str, Any]) -> Generations:
    return Generations(
        str(body["scope"]),
        int(body["active_generation"]),
        int(body["next_generation"]),
        tuple(GenerationInfo.model_validate(g) for g in body["generations"]),
    )
