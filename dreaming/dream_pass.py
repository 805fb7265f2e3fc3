"""One dream pass over one scope, and a group of them (`DreamPass.run_many`): the snapshot is
taken, the in-memory phases run over it (`dream_phases.py`: orient → gather → the engine → apply →
verify → prune → gate), then the candidate is promoted or quarantined, the diary written and the
audit events returned.

No Kafka here: the worker hands in a job and publishes the events that come back, which keeps
the pass testable on its own. Write order: candidate generation, then the diary (which holds the
audit events), then the pointer switch that also records the job; so a crash at any point either
leaves the old generation active (the job reruns) or lets a redelivery re-publish the same events.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Literal, TypeVar

import numpy as np

from dreaming.audit_events import change_events
from dreaming.dream_phases import Begun, Dreamed, Stopped, begin, dream
from dreaming.engine import Engine, EngineResult, ReadsAhead, Search
from dreaming.laps import Laps
from dreaming.passes.apply import Candidate
from dreaming.passes.privacy import PrivacyFilter
from dreaming.signals import Signals
from dreaming.snapshot import Snapshot
from dreaming.statement_vectors import fill_message_vectors
from dreaming.store import AppliedJob, Diary, DiaryEntry, GenerationInfo, MemoryStore, ScopeState, TranscriptStore
from dreaming.store.corrections import CorrectionInbox
from dreaming.store.search import embedding_text
from dreaming.store.transient import StoreUnavailable, is_transient_store
from dreaming.take_snapshot import take_snapshot
from schemas import ConversationTurn, DreamJob, JobLifecycleEvent, MemoryChangeEvent, Motive
from schemas.settings import Settings

log = logging.getLogger(__name__)
Outcome = Literal["completed", "no-op", "failed", "quarantined", "duplicate"]
Written = Literal["completed", "quarantined"]
"""How a pass that writes a generation ends: promoted, or held back by the gate."""
AuditEvent = JobLifecycleEvent | MemoryChangeEvent
T = TypeVar("T")


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
    """None when the engine was not called (a no-op without signal, a duplicate)."""
    phase_seconds: dict[str, float] = field(default_factory=dict)
    """Wall seconds per phase: snapshot, orient, gather, propose, apply, verify, prune, gate, promote."""
    motives: tuple[Motive, ...] = ()
    notes: tuple[str, ...] = ()
    """The diary's notes: what each phase saw and did."""


READ_AHEAD_TEXTS = 2_048
"""At most this many texts embedded ahead for a group of passes: well inside the embedder's
16,384-text cache, so none is evicted before its pass asks for it."""


@dataclass
class _Opened:
    """One pass of a group, between `DreamPass._open` and `_finish`."""

    job: DreamJob
    lap: Laps
    phase: str = "snapshot"
    before: int = 0
    state: ScopeState | None = None
    snapshot: Snapshot | None = None
    stored: Mapping[str, np.ndarray] = field(default_factory=dict)
    leftovers: list[str] = field(default_factory=list)
    leftover_notes: list[str] = field(default_factory=list)
    begun: Begun | None = None
    result: PassResult | None = None
    """Set when the pass ended before its engine (a duplicate, a failure)."""


class DreamPass:
    def __init__(
        self,
        settings: Settings,
        memories: MemoryStore,
        transcripts: TranscriptStore,
        diary: Diary,
        engine: Engine,
        corrections: CorrectionInbox | None = None,
    ) -> None:
        self._settings = settings
        self._memories = memories
        self._transcripts = transcripts
        self._diary = diary
        self._engine = engine
        self._corrections = corrections
        self._privacy = PrivacyFilter.with_extra(settings.privacy_patterns)

    def run(self, job: DreamJob) -> PassResult:
        """One pass. Any error inside it (engine, dates, store data, model) ends it as `failed`
        with the error as the reason and memory as it was; only a store that cannot be reached
        is raised (`StoreUnavailable`), since recording the failure needs the store too."""
        return self.run_many([job])[0]

    def run_many(self, jobs: Sequence[DreamJob]) -> list[PassResult]:
        """Passes over distinct scopes, each as `run` runs it alone, but with their engine's first
        embeddings made in one batch: every pass is read up to the engine, the engine reads ahead
        (`ReadsAhead`) and embeds what all of them will ask for in one model call, then each pass
        goes on alone. A model call costs less per token the more rows it holds (a fleet pass asks
        for ~12 statements: one call per pass ran at ~0.77 of the rate of one call per group).
        One pass's failure is its own: the others go on."""
        scopes = [job.scope for job in jobs]
        if len(set(scopes)) != len(scopes):
            raise ValueError(f"one pass per scope at a time, got {scopes}")
        opened = [self._open(job) for job in jobs]
        self._read_ahead(opened)
        return [self._finish(o) for o in opened]

    def _open(self, job: DreamJob) -> _Opened:
        """The pass up to its engine: state, snapshot, orient, gather, the inputs applied."""
        opened = _Opened(job, Laps())
        state = self._store_call(lambda: self._memories.state(job.scope))
        previous = state.applied(job.job_id)
        if previous is not None:
            opened.result = self._duplicate(job, previous)
            return opened
        opened.state = state
        settings = self._settings
        try:
            snapshot = take_snapshot(
                job,
                state,
                self._memories,
                self._transcripts,
                settings.transcript_window,
                settings.topics.turns,
                settings.inactive_generations,
                corrections=self._corrections,
            )
            opened.stored = self._memories.active_vectors(job.scope)
            if settings.memory_vectors == "embed":  # a stored vector is then its text's own
                snapshot = replace(snapshot, stored_vectors=opened.stored)
            opened.snapshot = snapshot
            opened.before = sum(
                1 for m in snapshot.memories if m.is_active and m.memory_id not in snapshot.pending_add_ids
            )
            opened.leftovers, opened.leftover_notes = self._inbox_leftovers(snapshot)
            opened.lap("snapshot")
            opened.phase = "dream"
            opened.begun = begin(snapshot, opened.lap)
        except Exception as err:
            opened.result = self._failed(opened, err)
        opened.lap.pause()
        return opened

    def _read_ahead(self, opened: Sequence[_Opened]) -> None:
        """The engine reads each pass ahead and embeds all their texts in one call (at most
        `READ_AHEAD_TEXTS`: a larger pass makes its own batch, which is large enough already)."""
        engine = self._engine
        if not isinstance(engine, ReadsAhead):
            return
        texts: list[str] = []
        shares: list[tuple[_Opened, int]] = []
        for o in opened:
            begun = o.begun
            if o.result is not None or begun is None or begun.view is None or not begun.out.signals.has_signal:
                continue
            o.lap.resume()
            try:
                begun.ahead = engine.read_ahead(begun.view, begun.out.signals)
            except Exception as err:
                o.result = self._failed(o, err)
                continue
            finally:
                o.lap.pause()
            if len(texts) + len(begun.ahead.texts) <= READ_AHEAD_TEXTS:
                texts.extend(begun.ahead.texts)
                shares.append((o, len(begun.ahead.texts)))
        if not texts:
            return
        started = time.perf_counter()
        try:
            engine.embed_ahead(texts)
        except Exception as err:
            # Nothing is lost: each pass then embeds its own texts, and fails alone if the model does.
            log.warning("read-ahead embedding of %d texts failed, each pass embeds its own: %s", len(texts), err)
        seconds = time.perf_counter() - started
        for o, count in shares:
            o.lap.add(seconds * count / len(texts))

    def _finish(self, opened: _Opened) -> PassResult:
        """The pass from its engine on: propose, verify, gate, write or record."""
        if opened.result is not None:
            return opened.result
        job, lap, state, snapshot = opened.job, opened.lap, opened.state, opened.snapshot
        assert state is not None and snapshot is not None and opened.begun is not None
        lap.resume()
        settings = self._settings
        try:
            out = dream(
                snapshot,
                self._engine,
                self._claim_search(job.scope, opened.stored),
                settings,
                self._privacy,
                lap,
                self._memories.embed,
                lambda candidate: fill_message_vectors(self._memories, self._transcripts, job.scope, candidate),
                opened.begun,
            )
            out.notes.extend(opened.leftover_notes)
            cleared = opened.leftovers + sorted(out.candidate.dropped_adds if out.candidate else ())
            marks = read_watermarks(job, snapshot, out.result, settings.topics.turns, out.notes)
            if out.status is not None:
                opened.phase = "record"
                result = self._unchanged(
                    state,
                    job,
                    out.status,
                    out.reason,
                    out.before,
                    out.result,
                    out.signals,
                    out.notes,
                    lap.seconds,
                    marks,
                )
            else:
                opened.phase = "write"
                result = self._write(state, snapshot, job, out, lap, marks)
            self._flush_vectors(job)
            self._absorb(job, cleared)  # after the diary names them: they can never be absorbed otherwise
            self._clear_corrections(job, out.candidate, result.status)
            return result
        except Exception as err:
            return self._failed(opened, err)

    def _failed(self, opened: _Opened, err: Exception) -> PassResult:
        """A pass that raised ends as `failed`, memory as it was; an unreachable store is raised."""
        job, phase = opened.job, opened.phase
        self._transcripts.forget_unflushed(job.scope)
        if is_transient_store(err):
            unreachable = f"pass {job.job_id} on {job.scope}: store unreachable during {phase}: {err}"
            raise StoreUnavailable(unreachable) from err
        log.exception("pass %s on %s failed during %s", job.job_id, job.scope, phase)
        reason = f"pass failed during {phase}: {type(err).__name__}: {_first_line(err)}"
        return self._store_call(
            lambda: self._unchanged(
                self._memories.state(job.scope),
                job,
                "failed",
                reason,
                opened.before,
                None,
                Signals(),
                [reason],
                opened.lap.seconds,
            )
        )

    def _claim_search(self, scope: str, stored: Mapping[str, np.ndarray]) -> Search:
        """The transcript search the verify step asks with each claim's text. A claim is a memory
        of the active generation, whose statement (the text without its said-on stamp, what every
        memory vector is made from) is embedded and stored already (`stored`:
        `MemoryStore.active_vectors`): its search reuses that vector instead of embedding the
        stamped text once more each pass."""

        def search(asked: str, query: str, k: int) -> list[tuple[ConversationTurn, float]]:
            text = embedding_text(query)
            vector = stored.get(text) if asked == scope else None
            if vector is None:  # a pending memory-add, or another text
                return self._transcripts.search(asked, text, k)
            return self._transcripts.nearest(asked, vector, k)

        return search

    def _store_call(self, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except Exception as err:
            if is_transient_store(err):
                raise StoreUnavailable(f"store unreachable: {err}") from err
            raise

    def _write(
        self, state: ScopeState, snapshot: Snapshot, job: DreamJob, out: Dreamed, lap: Laps, marks: dict[str, int]
    ) -> PassResult:
        """Write the candidate as a new generation, then promote it, or quarantine it with the gate's reasons."""
        candidate = out.candidate
        assert candidate is not None, "only a pass that reached the gate writes"
        passed = out.passed
        status: Written = "completed" if passed else "quarantined"
        generation = state.next_generation
        reason = "; ".join(out.gate_reasons) or f"{len(candidate.changes)} changes"
        reason += _unread_suffix(out.result)
        if not passed:
            out.notes.append(f"gate: generation {generation} quarantined, active memory unchanged: {reason}")
        after = len(candidate.active)
        events: tuple[AuditEvent, ...] = (
            JobLifecycleEvent.for_job(
                job,
                status,
                reason=reason,
                generation=generation,
                motives=out.signals.motives,
                before=out.before,
                after=after,
            ),
            *change_events(job, generation, tuple(candidate.changes)),
        )
        records = sorted(candidate.records.values(), key=lambda m: (m.created_at, m.memory_id))
        self._memories.write_candidate(job.scope, generation, records)
        self._diary.write(
            self._entry(job, status, reason, generation, out.result, out.signals, out.notes, events, lap.seconds)
        )
        info = GenerationInfo(
            generation=generation,
            job_id=job.job_id,
            created_at=datetime.now(UTC),
            status="active" if passed else "quarantined",
            reason=reason,
            memories_active=after,
            based_on=snapshot.generation,
        )
        applied = AppliedJob(job_id=job.job_id, outcome=status, generation=generation, watermarks=marks)
        if passed:
            self._memories.promote(state, info, applied)
            self._absorb(job, sorted(snapshot.pending_add_ids - candidate.dropped_adds))
        else:
            self._memories.record_quarantine(state, info, applied)
        lap("promote")
        log.info(
            "pass %s on %s: %s, generation %d, %d changes",
            job.job_id,
            job.scope,
            status,
            generation,
            len(candidate.changes),
        )
        return PassResult(
            job,
            status,
            events,
            reason,
            generation,
            out.before,
            after,
            out.result,
            lap.seconds,
            out.signals.motives,
            tuple(out.notes),
        )

    def _inbox_leftovers(self, snapshot: Snapshot) -> tuple[list[str], list[str]]:
        """Inbox entries the snapshot left out because their id is already a memory: absorbed
        before a crash (same text), or an add reusing an existing id (other text). Neither can
        ever be absorbed, so the pass names them in the diary and clears them."""
        ids, notes = [], []
        for add in self._transcripts.pending(snapshot.scope):
            if add.memory_id in snapshot.pending_add_ids or add.memory_id in snapshot.deferred_add_ids:
                continue
            existing = snapshot.memory(add.memory_id)
            ids.append(add.memory_id)
            if existing is not None and existing.text == add.text:
                notes.append(
                    f"inbox: memory-add {add.memory_id} was already absorbed (left behind by an "
                    f"interrupted pass); cleared"
                )
            elif existing is not None and existing.protected:
                notes.append(
                    f"inbox: memory-add {add.memory_id} reuses the id of a protected memory and cannot "
                    f"replace it; dropped: {add.text[:80]!r}"
                )
            else:
                notes.append(
                    f"inbox: memory-add {add.memory_id} reuses the id of an existing memory with other "
                    f"text (a new fact needs a new id); dropped: {add.text[:80]!r}"
                )
        return ids, notes

    def _flush_vectors(self, job: DreamJob) -> None:
        """Write the message vectors the pass made (from its statements, or embedded for a
        search). After the outcome is recorded, like `_absorb`: a vector left unwritten is only
        made again by a later search, so failing here must not fail the pass."""
        try:
            self._transcripts.flush_vectors(job.scope)
        except Exception as err:
            if is_transient_store(err):
                raise StoreUnavailable(f"writing the message vectors of {job.job_id}: {err}") from err
            log.exception("pass %s on %s: message vectors not written, made again when needed", job.job_id, job.scope)
            self._transcripts.forget_unflushed(job.scope)

    def _absorb(self, job: DreamJob, add_ids: list[str]) -> None:
        """After promotion the pass has succeeded: failing to clear the inbox must not turn it into
        a failure. What is left is found (already in the generation) and dropped by the next pass."""
        try:
            self._transcripts.absorb(job.scope, add_ids)
        except Exception as err:
            if is_transient_store(err):
                raise StoreUnavailable(f"absorbing memory-adds of {job.job_id}: {err}") from err
            log.exception(
                "pass %s on %s: promoted, but %d memory-adds stay in the inbox until the next pass",
                job.job_id,
                job.scope,
                len(add_ids),
            )

    def _clear_corrections(self, job: DreamJob, candidate: Candidate | None, status: str) -> None:
        """Corrections leave their inbox once they are in effect (the generation was promoted, or
        nothing needed to change) or can never apply (refused, noted in the diary); a quarantined or
        failed pass leaves the others for the next pass."""
        if self._corrections is None or candidate is None:
            return
        done = candidate.refused_corrections + (
            candidate.applied_corrections if status in ("completed", "no-op") else []
        )
        try:
            self._corrections.absorb(job.scope, done)
        except Exception as err:
            if is_transient_store(err):
                raise StoreUnavailable(f"clearing the corrections of {job.job_id}: {err}") from err
            # Left behind, a correction is applied again by the next pass and found in effect.
            log.exception("pass %s on %s: %d corrections stay in their inbox", job.job_id, job.scope, len(done))

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

    def _unchanged(
        self,
        state: ScopeState,
        job: DreamJob,
        status: Stopped,
        reason: str,
        before: int,
        result: EngineResult | None,
        signals: Signals,
        notes: list[str],
        timings: dict[str, float],
        marks: dict[str, int] | None = None,
    ) -> PassResult:
        """A pass that leaves memory as it was (no-op or failure): diary, job record, one event."""
        if status == "no-op":
            reason += _unread_suffix(result)
        events = (
            JobLifecycleEvent.for_job(job, status, reason=reason, motives=signals.motives, before=before, after=before),
        )
        self._diary.write(self._entry(job, status, reason, None, result, signals, notes, events, timings))
        applied = AppliedJob(job_id=job.job_id, outcome=status, watermarks=job.watermarks if marks is None else marks)
        self._memories.record_job(state, applied)
        log.info("pass %s on %s: %s (%s)", job.job_id, job.scope, status, reason)
        return PassResult(
            job, status, events, reason, None, before, before, result, timings, signals.motives, tuple(notes)
        )

    @staticmethod
    def _entry(
        job: DreamJob,
        status: str,
        reason: str,
        generation: int | None,
        result: EngineResult | None,
        signals: Signals,
        notes: list[str],
        events: tuple[AuditEvent, ...],
        timings: dict[str, float],
    ) -> DiaryEntry:
        return DiaryEntry(
            scope=job.scope,
            job_id=job.job_id,
            trigger=job.trigger,
            status=status,
            written_at=datetime.now(UTC),
            generation=generation,
            reason=reason,
            motives=signals.motives,
            notes=tuple(notes),
            model_calls=result.model_calls if result else 0,
            prompt_tokens=result.prompt_tokens if result else 0,
            completion_tokens=result.completion_tokens if result else 0,
            cost_usd=result.cost_usd if result else 0.0,
            model_seconds=result.model_seconds if result else 0.0,
            pass_seconds=sum(timings.values()),
            unread_messages=len(result.unread_message_ids) if result else 0,
            events=events,
        )


def read_watermarks(
    job: DreamJob, snapshot: Snapshot, result: EngineResult | None, turns_topic: str, notes: list[str]
) -> dict[str, int]:
    """How far the pass read: on the turns topic, past every message its snapshot held — a job
    usually runs after the worker indexed turns beyond its watermarks, and the pass reads those too,
    so the next pass must not take them for new (it would judge their memories again: merges and
    rivals that one pass over the same messages never makes) — stopped before the first new
    message the engine left unread, so the next pass finds that one new again."""
    marks = dict(job.watermarks)
    if snapshot.offsets:
        marks[turns_topic] = max(marks.get(turns_topic, 0), max(snapshot.offsets.values()) + 1)
    unread = result.unread_message_ids if result else frozenset()
    if not unread:
        return marks
    offsets = [snapshot.offsets[i] for i in unread if i in snapshot.offsets]
    if len(offsets) < len(unread):
        notes.append(f"{len(unread) - len(offsets)} unread messages have no offset in the snapshot: not re-read later")
    if offsets:
        marks[turns_topic] = min(marks[turns_topic], min(offsets))
    return marks


def _unread_suffix(result: EngineResult | None) -> str:
    if result is None or not result.unread_message_ids:
        return ""
    return f"; {len(result.unread_message_ids)} new messages left for the next pass"


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0][:300] if text else type(err).__name__
