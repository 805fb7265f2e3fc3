"""The per-event logic of the stream worker, independent of Faust so it can be tested directly.

`Processor.handle` takes one raw record and the scope's current signals, and returns the new
signals plus what to publish (dead letters, jobs, pending-job audit events).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from pydantic import ValidationError

from schemas import ControlEvent, ConversationTurn, DeadLetter, DreamJob, JobLifecycleEvent, MemoryAdd, make_job_id
from schemas.audit import TERMINAL_JOB_STATUSES
from schemas.settings import Settings
from streams.decode import BadEvent, Decoder, InputEvent, describe
from streams.policy import TriggerPolicy
from streams.signals import ScopeSignals


@dataclass
class Outputs:
    dead_letters: list[DeadLetter] = field(default_factory=list)
    jobs: list[DreamJob] = field(default_factory=list)


class Processor:
    def __init__(self, settings: Settings) -> None:
        self.topics = settings.topics
        self.decoder = Decoder(self.topics, settings.max_event_bytes)
        self.policy = TriggerPolicy(settings.threshold_messages, settings.threshold_tokens, settings.inflight_timeout_s)

    def decode(self, topic: str, partition: int, offset: int, key: bytes | None, value: bytes | None,
               out: Outputs) -> InputEvent | None:
        try:
            return self.decoder.decode(topic, key, value)
        except BadEvent as err:
            reason, kind = str(err), "BadEvent"
        except ValidationError as err:
            reason, kind = describe(err), "ValidationError"
        out.dead_letters.append(self.decoder.dead_letter(reason, kind, topic, partition, offset, key, value))
        return None

    def apply(self, event: InputEvent, topic: str, offset: int, signals: ScopeSignals, now: float) -> None:
        """Fold one valid event into its scope's signals."""
        if isinstance(event, ConversationTurn):
            signals.saw_turn(topic, offset, event.content, event.ts.timestamp())
        elif isinstance(event, MemoryAdd):
            signals.saw_memory_add(topic, offset, event.ts.timestamp())
        elif isinstance(event, ControlEvent):
            if event.action == "trigger" and event.request_id not in signals.waiting_requests:
                signals.waiting_requests.append(event.request_id)
            elif event.action == "reset":
                signals.consecutive_failures = 0
        elif isinstance(event, JobLifecycleEvent) and event.status in TERMINAL_JOB_STATUSES:
            signals.job_finished(event.job_id, event.status, now)

    def maybe_job(self, scope: str, signals: ScopeSignals, now: float) -> DreamJob | None:
        trigger = self.policy.decide(signals, now)
        if trigger is None:
            return None
        requests = tuple(signals.waiting_requests) if trigger == "manual" else ()
        watermarks = dict(signals.offsets)
        job = DreamJob(
            job_id=make_job_id(scope, trigger, watermarks, requests), scope=scope, trigger=trigger,
            requested_at=datetime.fromtimestamp(now, timezone.utc), watermarks=watermarks, request_ids=requests,
            messages_since_last_pass=signals.messages, tokens_since_last_pass=signals.tokens,
        )
        signals.job_emitted(job.job_id, now)
        return job


def pending_event(job: DreamJob) -> JobLifecycleEvent:
    from consumers.audit_events import lifecycle  # one builder for lifecycle events, both sides

    return lifecycle(job, "pending", reason=f"triggered by {job.trigger}")
