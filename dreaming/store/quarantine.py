"""Operator decisions about generations: approve or reject a quarantined candidate, roll back to
an earlier generation.

Each decision is one pointer write (atomic, like a promotion) that also records on the
generation who decided and why, followed by a diary entry with trigger `operator`, so the
scope's history shows it between the passes, and an `operator` audit event (who, why, which
generation, the memories that became active or inactive) handed to `publish`, so subscribers
that mirror memories stay in step. The decision is counted here, where it happens: run by the
worker's HTTP API, the counters are the worker's. These run outside the worker: against a Qdrant
server while a worker runs, a decision that lands during a pass over the same scope can be
overwritten by that pass's promotion; take them when the scope is quiet.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from dreaming.metrics import QUARANTINE_DECISIONS, ROLLBACKS
from dreaming.store.diary_entry import DiaryEntry
from dreaming.store.history import OPERATOR_TRIGGER, UnknownScope, is_known, readable_generation
from dreaming.store.pointer import GenerationInfo, OperatorDecision, ScopeState
from schemas import MemoryRecord, OperatorDecisionEvent, make_event_id
from schemas.scope import parse_scope

if TYPE_CHECKING:  # readers of `quarantined` (the CLI over the HTTP API) do not load the stores
    from dreaming.store.diary import Diary
    from dreaming.store.memories import MemoryStore
    from dreaming.store.transcripts import TranscriptStore

Publish = Callable[[OperatorDecisionEvent], None]


class DecisionRefused(ValueError):
    """The decision does not apply to that generation as it stands (wrong status, stale)."""


def quarantined(state: ScopeState) -> list[GenerationInfo]:
    return sorted((g for g in state.generations if g.status == "quarantined"), key=lambda g: g.generation)


def approve(
    memories: MemoryStore,
    transcripts: TranscriptStore,
    diary: Diary,
    scope: str,
    generation: int,
    by: str,
    reason: str,
    *,
    force: bool = False,
    publish: Publish | None = None,
) -> ScopeState:
    """Promote a quarantined generation: readers see it from the pointer write on.

    A candidate is built on the generation that was active when its pass ran; if a later
    generation has been promoted since, approving the older candidate would silently undo it, so
    that needs `force`."""
    decision = _decision("approved", by, reason)
    state = _known_state(memories, scope)
    info = _quarantined(state, generation)
    if state.active_generation > generation and not force:
        raise DecisionRefused(
            f"generation {generation} of {scope!r} predates the active generation {state.active_generation}: "
            f"approving it would undo the changes made since (force it to approve anyway)"
        )
    generations = tuple(
        g.model_copy(update={"status": "active", "decisions": g.decisions + (decision,)})
        if g.generation == generation
        else g.model_copy(update={"status": "retired"})
        if g.status == "active"
        else g
        for g in state.generations
    )
    # The job's messages are in the active generation now: the next pass must not read them as new.
    applied = tuple(
        j.model_copy(update={"outcome": "completed"}) if j.job_id == info.job_id and j.outcome == "quarantined" else j
        for j in state.applied_jobs
    )
    new_state = state.model_copy(
        update={"active_generation": generation, "generations": generations, "applied_jobs": applied}
    )
    before = memories.generation_records(scope, state.active_generation)
    memories.save_state(new_state)
    after = memories.generation_records(scope, generation)
    # Memory-adds the candidate took in now live in the active generation, as after a promotion.
    transcripts.absorb(scope, sorted({m.memory_id for m in after}))
    entry = _write_entry(diary, scope, info, decision)
    QUARANTINE_DECISIONS.labels("approved").inc()
    _announce(publish, entry, decision, state.active_generation, new_state.active_generation, before, after)
    return new_state


def reject(
    memories: MemoryStore,
    diary: Diary,
    scope: str,
    generation: int,
    by: str,
    reason: str,
    *,
    publish: Publish | None = None,
) -> ScopeState:
    """Mark a quarantined generation rejected and delete its records. The pointer goes first: a
    crash before the delete leaves orphan points no reader can reach (dropped with old generations),
    never a quarantined entry whose records are gone."""
    decision = _decision("rejected", by, reason)
    state = _known_state(memories, scope)
    info = _quarantined(state, generation)
    generations = tuple(
        g.model_copy(update={"status": "rejected", "decisions": g.decisions + (decision,)})
        if g.generation == generation
        else g
        for g in state.generations
    )
    new_state = state.model_copy(update={"generations": generations})
    memories.save_state(new_state)
    memories.delete_generation(scope, generation)
    entry = _write_entry(diary, scope, info, decision)
    QUARANTINE_DECISIONS.labels("rejected").inc()
    _announce(publish, entry, decision, state.active_generation, state.active_generation, [], [])
    return new_state


def rollback(
    memories: MemoryStore,
    diary: Diary,
    scope: str,
    generation: int | None,
    by: str,
    reason: str,
    *,
    publish: Publish | None = None,
) -> ScopeState:
    """Make an earlier kept generation active again (default: the one before the active one)."""
    decision = _decision("rolled-back", by, reason)
    previous = _known_state(memories, scope).active_generation
    before = memories.generation_records(scope, previous)
    state = memories.rollback(scope, generation)
    ROLLBACKS.inc()
    target = state.generation(state.active_generation)
    assert target is not None  # rollback made a kept generation active
    state = state.model_copy(
        update={
            "generations": tuple(
                g.model_copy(update={"decisions": g.decisions + (decision,)})
                if g.generation == target.generation
                else g
                for g in state.generations
            )
        }
    )
    memories.save_state(state)
    entry = _write_entry(diary, scope, target, decision)
    _announce(
        publish,
        entry,
        decision,
        previous,
        state.active_generation,
        before,
        memories.generation_records(scope, state.active_generation),
    )
    return state


def _known_state(memories: MemoryStore, scope: str) -> ScopeState:
    parse_scope(scope)
    state = memories.state(scope)
    if not is_known(state):
        raise UnknownScope(f"scope {scope!r} is unknown: no pass has run for it")
    return state


def _quarantined(state: ScopeState, generation: int) -> GenerationInfo:
    info = readable_generation(state, generation)
    if info.status != "quarantined":
        raise DecisionRefused(f"generation {generation} of {state.scope!r} is {info.status}, not quarantined")
    return info


def _decision(action: str, by: str, reason: str) -> OperatorDecision:
    if not by.strip():
        raise DecisionRefused("an operator decision needs who made it")
    return OperatorDecision(action=action, by=by, reason=reason, at=datetime.now(UTC))


def _write_entry(diary: Diary, scope: str, info: GenerationInfo, decision: OperatorDecision) -> DiaryEntry:
    entry = DiaryEntry(
        scope=scope,
        job_id=f"operator-{decision.action}-{info.generation}-{uuid.uuid4().hex[:8]}",
        trigger=OPERATOR_TRIGGER,
        status=decision.action,
        written_at=decision.at,
        generation=info.generation,
        reason=f"{decision.action} by {decision.by}" + (f": {decision.reason}" if decision.reason else ""),
        notes=(f"generation {info.generation} came from job {info.job_id}: {info.reason or '-'}",),
    )
    diary.write(entry)
    return entry


def _announce(
    publish: Publish | None,
    entry: DiaryEntry,
    decision: OperatorDecision,
    previous: int,
    active: int,
    before: list[MemoryRecord],
    after: list[MemoryRecord],
) -> OperatorDecisionEvent:
    """The decision's audit event, handed to `publish` (if any): what readers see differently now."""
    seen = {m.memory_id: m for m in before if m.is_active}
    now = {m.memory_id: m for m in after if m.is_active}
    event = OperatorDecisionEvent(
        event_id=make_event_id(entry.job_id, "operator"),
        scope=entry.scope,
        action=decision.action,
        by=decision.by,
        reason=decision.reason,
        generation=entry.generation,
        previous_generation=previous,
        active_generation=active,
        activated=tuple(m for i, m in sorted(now.items()) if seen.get(i) != m),
        deactivated=tuple(sorted(seen.keys() - now.keys())),
        ts=decision.at,
    )
    if publish is not None:
        publish(event)
    return event
