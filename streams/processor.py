"""The per-event logic of the stream worker, independent of Faust so it can be tested directly.

The Faust agent decodes a record, folds it into its scope's signals, asks for a decision and
publishes what comes out: dead letters, dream jobs, and the lifecycle events that announce them.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone

from pydantic import ValidationError

from schemas import ControlEvent, ConversationTurn, DeadLetter, DreamJob, JobLifecycleEvent, MemoryAdd, Motive, make_job_id
from schemas.audit import TERMINAL_JOB_STATUSES
from schemas.settings import Settings
from schemas.errors import describe_validation_error
from streams.decode import BadEvent, Decoder, InputEvent
from streams.extract import extract
from streams.policy import decide
from streams.signals import ScopeSignals


class BadInputStorm(RuntimeError):
    """Most recent input is invalid: a broken producer, not bad luck. Stop instead of
    dead-lettering the whole stream."""


@dataclass
class Outputs:
    dead_letters: list[DeadLetter] = field(default_factory=list)
    jobs: list[DreamJob] = field(default_factory=list)
    events: list[JobLifecycleEvent] = field(default_factory=list)
    forgotten: bool = False
    """The scope asked to be forgotten: its signals row must be deleted, not written."""


class Processor:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.topics = settings.topics
        self.decoder = Decoder(self.topics, settings.max_event_bytes)
        self._recent_bad: deque[bool] = deque(maxlen=settings.bad_share_window)
        self._bad_in_window = 0

    def decode(self, topic: str, partition: int, offset: int, key: bytes | None, value: bytes | None,
               out: Outputs) -> InputEvent | None:
        try:
            event = self.decoder.decode(topic, key, value)
            self._count(bad=False)
            return event
        except BadEvent as err:
            reason, kind = str(err), "BadEvent"
        except ValidationError as err:
            reason, kind = describe_validation_error(err), "ValidationError"
        out.dead_letters.append(self.decoder.dead_letter(reason, kind, topic, partition, offset, key, value))
        self._count(bad=True)
        return None

    def _count(self, bad: bool) -> None:
        if len(self._recent_bad) == self._recent_bad.maxlen:
            self._bad_in_window -= self._recent_bad[0]
        self._recent_bad.append(bad)
        self._bad_in_window += bad
        window = self._recent_bad.maxlen
        if len(self._recent_bad) == window and self._bad_in_window > self.settings.max_bad_share * window:
            raise BadInputStorm(
                f"{self._bad_in_window} of the last {window} events were invalid "
                f"(limit {self.settings.max_bad_share:.0%}); stopping instead of dead-lettering everything"
            )

    def apply(self, event: InputEvent, topic: str, partition: int, offset: int, signals: ScopeSignals, now: float) -> bool:
        """Fold one valid event into its scope's signals; False when it was already folded in.

        After a crash the table (restored from its changelog) can be ahead of the committed
        offsets, so events are redelivered; the scope remembers how far into each topic it has
        read, which makes folding idempotent. Activity is stamped with processing time, so idle
        detection works the same for live traffic and for replays."""
        if offset < signals.offsets.get(topic, 0):
            return False
        signals.partition = partition
        if isinstance(event, ConversationTurn):
            signals.saw_turn(topic, offset, event.content, now, extract(event.role, event.content))
        elif isinstance(event, MemoryAdd):
            signals.saw_memory_add(topic, offset, now)
        elif isinstance(event, ControlEvent):
            signals.saw_control(topic, offset)
            if event.action == "trigger" and event.request_id not in signals.waiting_requests:
                signals.waiting_requests.append(event.request_id)
            elif event.action == "reset":
                signals.consecutive_failures = 0
        elif isinstance(event, JobLifecycleEvent) and event.status in TERMINAL_JOB_STATUSES:
            signals.job_finished(event.job_id, event.status, now)
        return True

    def forget(self, event: ControlEvent, signals: ScopeSignals, now: float, out: Outputs) -> None:
        """The right to be forgotten goes ahead of everything: no cooldown, no in-flight wait, no
        failure gate. The job goes to the worker that owns the scope, which deletes what it holds
        once its index has caught up with the scope's events."""
        watermarks = {t: o for t, o in signals.offsets.items() if t in self.topics.inputs()}
        requests = (event.request_id,)
        job = DreamJob(job_id=make_job_id(event.scope, "forget", watermarks, requests), scope=event.scope,
                       trigger="forget", requested_at=datetime.fromtimestamp(now, timezone.utc),
                       watermarks=watermarks, request_ids=requests)
        out.jobs.append(job)
        out.events.append(JobLifecycleEvent.for_job(job, "pending", reason="forget requested"))
        out.forgotten = True

    def decide(self, scope: str, signals: ScopeSignals, now: float, out: Outputs) -> None:
        """Emit a job (or a skipped outcome) when the scope's policy says so."""
        decision = decide(signals, self.settings.policy_for(scope.partition("/")[0]), now)  # scope is validated
        if decision is None:
            return
        requests = tuple(signals.waiting_requests) if decision.trigger == "manual" else ()
        watermarks = {t: o for t, o in signals.offsets.items() if t in self.topics.inputs()}
        job = DreamJob(
            job_id=make_job_id(scope, decision.trigger, watermarks, requests), scope=scope, trigger=decision.trigger,
            requested_at=datetime.fromtimestamp(now, timezone.utc), watermarks=watermarks, request_ids=requests,
            motives=motives_of(signals), messages_since_last_pass=signals.messages, tokens_since_last_pass=signals.tokens,
        )
        if decision.skipped:
            # The signal is consumed, so the gate is announced once, not on every later event.
            signals.consume_signal()
            signals.last_outcome = "skipped"
            reason = f"skipped after {signals.consecutive_failures} consecutive failures; send a reset to retry"
            out.events.append(JobLifecycleEvent.for_job(job, "skipped", reason=reason, motives=job.motives))
            return
        signals.job_emitted(job.job_id, now)
        out.jobs.append(job)
        out.events.append(JobLifecycleEvent.for_job(job, "pending", reason=f"triggered by {job.trigger}", motives=job.motives))


def motives_of(signals: ScopeSignals) -> tuple[Motive, ...]:
    """The stream side's view of why a scope should dream; the pass refines these from the text."""
    motives = []
    if signals.corrections:
        motives.append(Motive(kind="correction", summary=f"{signals.corrections} corrections since the last pass"))
    if signals.decisions:
        motives.append(Motive(kind="decision", summary=f"{signals.decisions} decisions since the last pass"))
    if signals.repeated_entities:
        motives.append(Motive(kind="repetition", summary="repeated: " + ", ".join(signals.repeated_entities)))
    if signals.memory_adds:
        motives.append(Motive(kind="memory_add", summary=f"{signals.memory_adds} memory-adds waiting"))
    return tuple(motives)
