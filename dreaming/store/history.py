"""Reading a scope's history: its kept generations, one memory across them, what changed between
two generations, and the memory-change trail its diary holds.

`ScopeReader` is the read side the CLI and the HTTP API share. `ScopeView` implements it on the
stores of this process; the CLI has a second implementation over the worker's HTTP API (for when
a running worker holds the embedded store). Everything else here is written against the
protocol, so each read works the same way through either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from dreaming.store.diary_entry import DiaryEntry
from dreaming.store.filters import NO_FILTER, MemoryFilter
from dreaming.store.pointer import GenerationInfo, ScopeState
from dreaming.store.validity import Span, held_from, memories_as_of, when_each_value_held
from schemas import MemoryChangeEvent, MemoryRecord
from schemas.scope import parse_scope

if TYPE_CHECKING:  # the stores load a Qdrant client; readers over the HTTP API never need one
    from dreaming.store.diary import Diary
    from dreaming.store.memories import MemoryStore

OPERATOR_TRIGGER = "operator"
"""The diary trigger of an operator's decision (approve, reject, rollback), as opposed to a pass."""
_IGNORED_FIELDS = frozenset({"updated_at"})
"""Fields that change along with a real change and are not one by themselves."""


class UnknownScope(LookupError):
    """No pass has ever run for the scope (or it was forgotten)."""


class GenerationNotKept(LookupError):
    """The scope keeps no readable generation under that number."""


def is_known(state: ScopeState) -> bool:
    """A pointer is written only with a job or a generation, so an empty one was never written."""
    return bool(state.generations or state.applied_jobs)


class ScopeReader(Protocol):
    def state(self, scope: str) -> ScopeState:
        """The scope's pointer; raises UnknownScope (and ScopeError for a malformed scope)."""

    def records(
        self, scope: str, generation: int | None = None, include_inactive: bool = False, where: MemoryFilter = NO_FILTER
    ) -> list[MemoryRecord]:
        """A generation's records (None: the active one) that `where` matches; raises GenerationNotKept."""

    def pending(self, scope: str, where: MemoryFilter = NO_FILTER) -> list[MemoryRecord]:
        """The scope's memory-adds no pass has curated yet (`consolidated=False`) that `where`
        matches, oldest first."""

    def memory(self, scope: str, generation: int, memory_id: str) -> MemoryRecord | None:
        """One record of a kept generation (any status), None when that generation lacks it."""

    def diary(self, scope: str) -> list[DiaryEntry]:
        """The scope's diary, oldest first."""

    def scopes(self, tenant: str | None = None) -> list[str]:
        """Every scope with a kept generation (of one tenant)."""

    def search(
        self, scope: str, query: str, k: int = 10, where: MemoryFilter = NO_FILTER
    ) -> list[tuple[MemoryRecord, float]]:
        """The scope's memories closest to `query` that `where` matches, best first, with their
        scores (the store's search: memory-adds not yet consolidated included); raises
        UnknownScope for a scope that holds nothing at all."""

    def search_as_of(
        self, scope: str, query: str, k: int, at: datetime, where: MemoryFilter = NO_FILTER
    ) -> list[tuple[MemoryRecord, float]]:
        """The same over what held at `at` (`dreaming/store/validity.py`): the memories of the
        active generation's lineage then, and memory-adds no pass has curated yet made by then."""


class ScopeView:
    """`ScopeReader` on this process's stores."""

    def __init__(self, memories: MemoryStore, diary: Diary) -> None:
        self._memories = memories
        self._diary = diary

    def state(self, scope: str) -> ScopeState:
        parse_scope(scope)
        state = self._memories.state(scope)
        if not is_known(state):
            raise UnknownScope(f"scope {scope!r} is unknown: no pass has run for it")
        return state

    def records(
        self, scope: str, generation: int | None = None, include_inactive: bool = False, where: MemoryFilter = NO_FILTER
    ) -> list[MemoryRecord]:
        state = self.state(scope)
        number = state.active_generation if generation is None else generation
        if generation is not None:
            readable_generation(state, generation)
        records = self._memories.generation_records(scope, number, where)
        return records if include_inactive else [m for m in records if m.is_active]

    def pending(self, scope: str, where: MemoryFilter = NO_FILTER) -> list[MemoryRecord]:
        parse_scope(scope)
        if not where.wants_pending:
            return []
        return [r for r in self._memories.pending_records(scope) if where.matches(r)]

    def memory(self, scope: str, generation: int, memory_id: str) -> MemoryRecord | None:
        return self._memories.record(scope, generation, memory_id)

    def diary(self, scope: str) -> list[DiaryEntry]:
        self.state(scope)
        return self._diary.entries(scope)

    def scopes(self, tenant: str | None = None) -> list[str]:
        # Scopes that hold (or held back) a generation: a mistyped scope given to `trigger` gets a
        # pointer from its no-op pass, and must not stay listed forever.
        return [s for s in self._memories.scopes_known(tenant) if self._memories.state(s).generations]

    def search(
        self, scope: str, query: str, k: int = 10, where: MemoryFilter = NO_FILTER
    ) -> list[tuple[MemoryRecord, float]]:
        parse_scope(scope)
        if not is_known(self._memories.state(scope)) and not self._memories.pending_records(scope):
            # A scope nobody has dreamed on yet may still hold memory-adds; one with neither is unknown.
            raise UnknownScope(f"scope {scope!r} is unknown: no pass has run for it and it holds no memory-adds")
        return self._memories.search(scope, query, k, where)

    def search_as_of(
        self, scope: str, query: str, k: int, at: datetime, where: MemoryFilter = NO_FILTER
    ) -> list[tuple[MemoryRecord, float]]:
        parse_scope(scope)
        state = self._memories.state(scope)
        pending = self._memories.pending_records(scope)
        if not is_known(state) and not pending:
            raise UnknownScope(f"scope {scope!r} is unknown: no pass has run for it and it holds no memory-adds")
        held = memories_as_of(self, scope, at) if is_known(state) else []
        known = {m.memory_id for m in held}
        fresh = [m for m in pending if held_from(m) <= at and m.memory_id not in known]
        return self._memories.rank([m for m in held + fresh if where.matches(m)], query, k)


def readable_generation(state: ScopeState, number: int) -> GenerationInfo:
    """The kept generation `number`, if its records still exist (a rejected one's were deleted)."""
    info = state.generation(number)
    if info is None:
        kept = ", ".join(str(g.generation) for g in state.generations) or "none"
        raise GenerationNotKept(f"scope {state.scope!r} keeps no generation {number} (kept: {kept})")
    if info.status == "rejected":
        raise GenerationNotKept(f"generation {number} of {state.scope!r} was rejected: its memories were deleted")
    return info


def readable_generations(state: ScopeState) -> list[GenerationInfo]:
    return sorted((g for g in state.generations if g.status != "rejected"), key=lambda g: g.generation)


def generations_json(state: ScopeState) -> dict[str, Any]:
    """The pointer as readers see it (without its internal record of applied jobs)."""
    return {
        "scope": state.scope,
        "active_generation": state.active_generation,
        "next_generation": state.next_generation,
        "generations": [g.model_dump(mode="json") for g in state.generations],
    }


def previous_generation(state: ScopeState) -> int:
    """The promoted generation before the active one (0, the empty one, when there is none)."""
    earlier = [
        g.generation
        for g in state.generations
        if g.status in ("active", "retired") and g.generation < state.active_generation
    ]
    return max(earlier, default=0)


# --- one memory across generations
@dataclass(frozen=True)
class RecordVersion:
    generation: GenerationInfo
    record: MemoryRecord | None
    """None: the memory is not in that generation."""
    held: Span | None = None
    """When the value this version stands for held, along the active generation's lineage (None
    off it: quarantined or rolled-back generations, or a version that holds nothing)."""

    def to_json(self) -> dict[str, Any]:
        held = self.held
        return {
            "generation": self.generation.generation,
            "generation_status": self.generation.status,
            "record": self.record.model_dump(mode="json") if self.record else None,
            "valid_from": held.since.isoformat() if held else None,
            "valid_to": held.until.isoformat() if held and held.until else None,
        }


def record_history(
    reader: ScopeReader, scope: str, memory_id: str, state: ScopeState | None = None
) -> list[RecordVersion]:
    """The memory in every readable kept generation, oldest first; LookupError when it is in none.
    One record read per kept generation, whatever the scope holds."""
    state = state or reader.state(scope)
    versions = [
        RecordVersion(info, reader.memory(scope, info.generation, memory_id)) for info in readable_generations(state)
    ]
    if not any(v.record for v in versions):
        raise LookupError(f"memory {memory_id!r} is in no kept generation of {scope!r}")
    held = when_each_value_held([(v.generation.generation, v.record) for v in versions], state)
    return [RecordVersion(v.generation, v.record, held.get(v.generation.generation)) for v in versions]


# --- the difference between two generations
@dataclass(frozen=True)
class RecordChange:
    memory_id: str
    before: MemoryRecord
    after: MemoryRecord
    fields: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "fields": list(self.fields),
            "before": self.before.model_dump(mode="json"),
            "after": self.after.model_dump(mode="json"),
        }


@dataclass(frozen=True)
class GenerationDiff:
    scope: str
    from_generation: int
    to_generation: int
    added: tuple[MemoryRecord, ...] = ()
    removed: tuple[MemoryRecord, ...] = ()
    changed: tuple[RecordChange, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "from": self.from_generation,
            "to": self.to_generation,
            "added": [m.model_dump(mode="json") for m in self.added],
            "removed": [m.model_dump(mode="json") for m in self.removed],
            "changed": [c.to_json() for c in self.changed],
        }


def diff_records(
    scope: str, from_generation: int, to_generation: int, before: Sequence[MemoryRecord], after: Sequence[MemoryRecord]
) -> GenerationDiff:
    """Records (of every status) matched by memory id: only in `after` is added, only in `before`
    removed, in both with a different field (other than updated_at) changed."""
    old = {m.memory_id: m for m in before}
    new = {m.memory_id: m for m in after}
    changed = []
    for memory_id in sorted(old.keys() & new.keys()):
        a, b = old[memory_id].model_dump(), new[memory_id].model_dump()
        fields = tuple(name for name in a if a[name] != b[name] and name not in _IGNORED_FIELDS)
        if fields:
            changed.append(RecordChange(memory_id, old[memory_id], new[memory_id], fields))
    return GenerationDiff(
        scope,
        from_generation,
        to_generation,
        added=tuple(new[i] for i in sorted(new.keys() - old.keys())),
        removed=tuple(old[i] for i in sorted(old.keys() - new.keys())),
        changed=tuple(changed),
    )


def diff_generations(
    reader: ScopeReader, scope: str, from_generation: int | None = None, to_generation: int | None = None
) -> GenerationDiff:
    """Default: the previous promoted generation against the active one."""
    state = reader.state(scope)
    to_number = state.active_generation if to_generation is None else to_generation
    from_number = previous_generation(state) if from_generation is None else from_generation

    def records(number: int) -> list[MemoryRecord]:
        return [] if number == 0 else reader.records(scope, number, include_inactive=True)

    return diff_records(scope, from_number, to_number, records(from_number), records(to_number))


# --- the memory-change trail
@dataclass(frozen=True)
class TrailEntry:
    entry: DiaryEntry
    changes: tuple[MemoryChangeEvent, ...]

    def to_json(self) -> dict[str, Any]:
        e = self.entry
        return {
            "job_id": e.job_id,
            "trigger": e.trigger,
            "status": e.status,
            "written_at": e.written_at.isoformat(),
            "generation": e.generation,
            "reason": e.reason,
            "changes": [c.model_dump(mode="json") for c in self.changes],
        }


def change_trail(entries: Sequence[DiaryEntry]) -> list[TrailEntry]:
    """The diary entries that changed memory (or an operator's view of it), with their changes."""
    trail = []
    for entry in entries:
        changes = tuple(e for e in entry.events if isinstance(e, MemoryChangeEvent))
        if changes or entry.trigger == OPERATOR_TRIGGER:
            trail.append(TrailEntry(entry, changes))
    return trail
