"""One dream pass over one scope: snapshot → propose → apply → prune → gate → promote or quarantine.

No Kafka here: the worker hands in a job and publishes the events that come back, which keeps
the pass testable on its own. Write order: candidate generation, then the diary (which holds the
audit events), then the pointer switch that also records the job; so a crash at any point either
leaves the old generation active (the job reruns) or lets a redelivery re-publish the same events.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Literal

from consumers.audit_events import change_events
from consumers.engine import Engine, EngineError, EngineResult
from consumers.passes.apply import PlanRejected, apply_plan
from consumers.passes.gate import gate
from consumers.passes.privacy import PrivacyFilter
from consumers.passes.prune import enforce_cap
from consumers.store import AppliedJob, Diary, DiaryEntry, GenerationInfo, MemoryStore, ScopeState, TranscriptStore
from consumers.take_snapshot import take_snapshot
from schemas import DreamJob, JobLifecycleEvent, MemoryChangeEvent
from schemas.settings import Settings

log = logging.getLogger(__name__)
Outcome = Literal["completed", "no-op", "failed", "quarantined", "duplicate"]
AuditEvent = JobLifecycleEvent | MemoryChangeEvent
MAX_TEXT_CHARS = 2_000


@dataclass(frozen=True)
class PassResult:
    job: DreamJob
    status: Outcome
    events: tuple[AuditEvent, ...] = ()
    """What to publish, terminal lifecycle event first. Empty for an already-published duplicate."""
    reason: str = ""
    generation: int | None = None
    memories_before: int = 0
    memories_after: int = 0
    engine: EngineResult | None = None
    phase_seconds: dict[str, float] = field(default_factory=dict)


class DreamPass:
    def __init__(self, settings: Settings, memories: MemoryStore, transcripts: TranscriptStore, diary: Diary,
                 engine: Engine) -> None:
        self._settings = settings
        self._memories = memories
        self._transcripts = transcripts
        self._diary = diary
        self._engine = engine
        self._privacy = PrivacyFilter.default()

    def run(self, job: DreamJob) -> PassResult:
        timings: dict[str, float] = {}
        started = time.perf_counter()

        def lap(phase: str) -> None:
            nonlocal started
            now = time.perf_counter()
            timings[phase] = now - started
            started = now

        state = self._memories.state(job.scope)
        previous = state.applied(job.job_id)
        if previous is not None:
            return self._duplicate(job, previous)

        snapshot = take_snapshot(job, state, self._memories, self._transcripts, self._settings.transcript_window,
                                 self._settings.topics.turns)
        before = len(snapshot.active_memories) - len(snapshot.pending_add_ids)
        lap("snapshot")
        try:
            result = self._engine.propose(snapshot)
        except EngineError as err:
            return self._unchanged(state, job, "failed", f"engine {self._engine.name} failed: {err}", before, None, timings)
        lap("propose")
        if not result.plan.actions and not snapshot.pending_add_ids:
            return self._unchanged(state, job, "no-op", "no signal: nothing to consolidate", before, result, timings)
        try:
            candidate = apply_plan(snapshot, result.plan)
        except PlanRejected as err:
            return self._unchanged(state, job, "failed", f"plan rejected: {err}", before, result, timings)
        enforce_cap(candidate, self._settings.memory_cap)
        lap("apply")
        verdict = gate(snapshot, candidate, memory_cap=self._settings.memory_cap,
                       max_text_chars=MAX_TEXT_CHARS, privacy=self._privacy)
        lap("gate")

        status: Outcome = "completed" if verdict.passed else "quarantined"
        generation = state.next_generation
        reason = "; ".join(verdict.reasons) or f"{len(candidate.changes)} changes"
        after = len(candidate.active)
        events = (
            JobLifecycleEvent.for_job(job, status, reason=reason, generation=generation, motives=result.motives, before=before, after=after),
            *change_events(job, generation, tuple(candidate.changes)),
        )
        records = sorted(candidate.records.values(), key=lambda m: (m.created_at, m.memory_id))
        self._memories.write_candidate(job.scope, generation, records)
        self._diary.write(self._entry(job, status, reason, generation, result, events))
        info = GenerationInfo(generation=generation, job_id=job.job_id, created_at=datetime.now(timezone.utc),
                              status="active" if verdict.passed else "quarantined", reason=reason, memories_active=after)
        applied = AppliedJob(job_id=job.job_id, outcome=status, generation=generation, watermarks=job.watermarks)
        if verdict.passed:
            self._memories.promote(state, info, applied)
            self._transcripts.absorb(job.scope, sorted(snapshot.pending_add_ids))
        else:
            self._memories.record_quarantine(state, info, applied)
        lap("promote")
        log.info("pass %s on %s: %s, generation %d, %d changes", job.job_id, job.scope, status, generation, len(candidate.changes))
        return PassResult(job, status, events, reason, generation, before, after, result, timings)

    def mark_published(self, job: DreamJob) -> None:
        """After the audit events are flushed: a redelivery of this job now publishes nothing."""
        state = self._memories.state(job.scope)
        applied = state.applied(job.job_id)
        if applied is not None and not applied.audit_emitted:
            self._memories.record_job(state, applied.model_copy(update={"audit_emitted": True}))

    def _duplicate(self, job: DreamJob, previous: AppliedJob) -> PassResult:
        """A job that already ran: publish its events if they never went out; otherwise only its
        outcome again (same event id), so whoever waits on it is released; never a second set
        of memory changes."""
        entry = self._diary.get(job.scope, job.job_id)
        events: tuple[AuditEvent, ...] = entry.events if entry else ()
        if previous.audit_emitted:
            events = events[:1]
        return PassResult(job, "duplicate", events, f"job already ran ({previous.outcome})", previous.generation)

    def _unchanged(self, state: ScopeState, job: DreamJob, status: Outcome, reason: str, before: int,
                   result: EngineResult | None, timings: dict[str, float]) -> PassResult:
        """A pass that leaves memory as it was (no-op or failure): diary, job record, one event."""
        motives = result.motives if result else ()
        events = (JobLifecycleEvent.for_job(job, status, reason=reason, motives=motives, before=before, after=before),)
        self._diary.write(self._entry(job, status, reason, None, result, events))
        self._memories.record_job(state, AppliedJob(job_id=job.job_id, outcome=status, watermarks=job.watermarks))
        log.info("pass %s on %s: %s (%s)", job.job_id, job.scope, status, reason)
        return PassResult(job, status, events, reason, None, before, before, result, timings)

    @staticmethod
    def _entry(job: DreamJob, status: str, reason: str, generation: int | None,
               result: EngineResult | None, events: tuple[AuditEvent, ...]) -> DiaryEntry:
        return DiaryEntry(
            scope=job.scope, job_id=job.job_id, trigger=job.trigger, status=status, written_at=datetime.now(timezone.utc),
            generation=generation, reason=reason, motives=result.motives if result else (),
            notes=result.notes if result else (), model_calls=result.model_calls if result else 0,
            prompt_tokens=result.prompt_tokens if result else 0,
            completion_tokens=result.completion_tokens if result else 0,
            cost_usd=result.cost_usd if result else 0.0, events=events,
        )
