"""The stream worker's logic, independent of Kafka so it can be tested directly.

`Processor.process_batch` takes a batch of records (anything with confluent-kafka's Message
accessors) and the rows of the partitions they come from, and returns what must be published:
dead letters, dream jobs, the lifecycle events that announce them, and each changed row once.
Records are validated by `schemas.validation` (the consolidation worker uses the same rules),
folded into their scope's signals, and the scope's policy is asked after each event, so a job's
watermarks are exactly the event that crossed the threshold.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

import msgspec

from schemas import DeadLetter, DreamJob, JobLifecycleEvent, Motive, Steering, make_job_id
from schemas.audit import TERMINAL_JOB_STATUSES
from schemas.cloudevents import unframe
from schemas.policy import TriggerPolicy
from schemas.settings import Settings
from schemas.validation import (
    FastControl,
    FastMemoryAdd,
    FastTurn,
    Kind,
    Rejected,
    json_too_deep,
    validator_for,
)
from streams.batch import Batch, Emits, PartitionSink, Record
from streams.extract import TurnSignals, extract, extract_batch
from streams.policy import decide
from streams.signals import ScopeSignals, tenant_row_key
from streams.storm import StormGuard

if TYPE_CHECKING:
    pass


class JobOutcome(msgspec.Struct):
    """The part of an audit event the stream worker acts on: a job's terminal status."""

    type: str
    scope: str = ""
    job_id: str = ""
    status: str = ""


_outcome = msgspec.json.Decoder(JobOutcome).decode


class _Missing(enum.Enum):
    MISSING = enum.auto()


_MISSING: Final = _Missing.MISSING
"""Not in the batch's rows yet (a one-member enum, so `is _MISSING` narrows the row's type)."""
_NO_ROWS: Final[Mapping[str, bytes]] = MappingProxyType({})

# --------------------------------------------------------------------------- the processor


class Processor:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.topics = settings.topics
        self.inputs = self.topics.inputs()
        self.correction_inputs = (*self.inputs, self.topics.control)
        """What a job answering a correction must cover: the control topic too (where corrections travel)."""
        self.validator = validator_for(settings)
        self.guard = StormGuard(settings)
        self.kinds: dict[str, Kind] = {
            self.topics.turns: "turns",
            self.topics.memory_adds: "memory-adds",
            self.topics.control: "control",
        }
        self._policies: dict[str, TriggerPolicy] = {}
        self._uniform = None if settings.tenant_policies else settings.trigger
        """Every tenant's policy, when no tenant has its own (then no per-event tenant lookup)."""
        self._where: dict[tuple[str, int], str] = {}
        self._live: dict[tuple[int, str], ScopeSignals | None] = {}
        self._tables: dict[int, dict[str, bytes]] = {}
        """The rows of the batch being processed (for a tenant's steering when a job is emitted)."""

    def policy(self, scope: str) -> TriggerPolicy:
        if self._uniform is not None:
            return self._uniform
        tenant = scope.partition("/")[0]
        policy = self._policies.get(tenant)
        if policy is None:
            if len(self._policies) > 100_000:
                self._policies.clear()
            policy = self._policies[tenant] = self.settings.policy_for(tenant)
        return policy

    def where(self, topic: str, partition: int) -> str:
        """`topic:partition`, the key of a scope's offsets (cached: built once per pair)."""
        key = self._where.get((topic, partition))
        if key is None:
            key = self._where[(topic, partition)] = f"{topic}:{partition}"
        return key

    @staticmethod
    def outcome(value: bytes | None) -> JobOutcome | None:
        """A terminal job status from the audit topic, else None (cheap test first)."""
        if not value or b'"job"' not in value or json_too_deep(value):
            return None
        try:
            found = _outcome(unframe(value))  # Schema Registry framing (audit_schema_id), when on
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
        return found if found.type == "job" and found.status in TERMINAL_JOB_STATUSES else None

    @staticmethod
    def dead_letter(
        rejected: Rejected, topic: str, partition: int, offset: int, key: bytes | None, value: bytes | None
    ) -> DeadLetter:
        preview = (value or b"")[:200].decode("utf-8", "replace")
        return DeadLetter(
            reason=rejected.reason,
            error_type=rejected.error_type,
            topic=topic,
            partition=partition,
            offset=offset,
            key=key.decode("utf-8", "replace") if key is not None else None,
            value_b64=DeadLetter.encode(value),
            value_preview=preview,
            ts=datetime.now(UTC),
        )

    def apply(
        self,
        event: Any,
        topic: str,
        partition: int,
        offset: int,
        signals: ScopeSignals,
        now: float,
        found: TurnSignals | None = None,
    ) -> bool | Rejected:
        """Fold one valid event into its scope's signals; False when it was already folded in;
        Rejected (not folded, to be dead-lettered) when the consolidation worker would refuse it
        too: a message id reused with other content, or a memory-add citing a message its scope
        never carried (both judged on the row's bounded memory of the scope, see ScopeSignals).

        After a crash the rows (restored from the changelog) can be ahead of the committed
        offsets, so events are redelivered; the scope remembers how far into each (topic,
        partition) it has read, which makes folding idempotent. Activity is stamped with
        processing time, so idle detection works the same for live traffic and for replays.

        `event`: a FastTurn, FastMemoryAdd or FastControl, or a JobOutcome or JobLifecycleEvent;
        dispatched on its exact class, which mypy does not narrow by (typed Any: no per-event check)."""
        cls = type(event)
        if cls is JobOutcome or cls is JobLifecycleEvent:
            if event.status in TERMINAL_JOB_STATUSES:
                signals.job_finished(event.job_id, event.status, now)
            return True
        where = self._where.get((topic, partition)) or self.where(topic, partition)
        offsets = signals.offsets
        if offset < offsets.get(where, 0):
            return False
        signals.partition = partition
        if cls is FastTurn:
            if signals.seen is None and where in offsets:
                signals.filter_partial = True  # turns came before the filter existed: it cannot say "never"
            if not signals.remember_turn(event.message_id, event.content, event.ts):
                offsets[where] = offset + 1  # judged: a redelivery is not judged again
                return Rejected(
                    f"message id {event.message_id!r} of {event.scope} was already read with other content "
                    "(the first version stays)",
                    "duplicate_message_id",
                )
            signals.saw_turn(where, offset, event.content, now, found or extract(event.role, event.content))
        elif cls is FastMemoryAdd:
            if event.source_message_ids:
                foreign = signals.foreign_evidence(event.source_message_ids, event.ts)
                if foreign is not None:
                    offsets[where] = offset + 1
                    return Rejected(
                        f"source_message_ids cites {foreign!r}, which is not a message of {event.scope} "
                        "(every turn of the scope up to this memory-add's ts has been read)",
                        "foreign_evidence",
                    )
            signals.saw_memory_add(where, offset, now)
        elif cls is FastControl:
            signals.saw_control(where, offset)
            action = event.action
            if action == "trigger" and event.request_id not in signals.waiting_requests:
                signals.waiting_requests.append(event.request_id)
            elif action == "reset":
                signals.consecutive_failures = 0
            elif action == "correct":
                signals.saw_correction(event.request_id)
            elif action == "steer":
                change = event.steering
                signals.steer(change["text"], change["by"], event.ts.timestamp() if event.ts else now)
        return True

    def tenant_steering(self, scope: str, partition: int) -> Steering | None:
        """The scope's tenant's steering, as this partition's tenant row holds it."""
        key = tenant_row_key(scope)
        row = self._live.get((partition, key), _MISSING)
        if row is _MISSING:
            raw = self._tables.get(partition, _NO_ROWS).get(key)
            row = ScopeSignals.decode(raw) if raw is not None else None
        return steering_of(row) if row is not None else None

    def forget(self, event: FastControl, signals: ScopeSignals, now: float, out: Emits) -> None:
        """The right to be forgotten goes ahead of everything: no cooldown, no in-flight wait, no
        failure gate. The job goes to the worker that owns the scope, which deletes what it holds
        once its index has caught up with the scope's events."""
        watermarks = signals.watermarks(self.inputs)
        requests = (event.request_id,)
        job = DreamJob(
            job_id=make_job_id(event.scope, "forget", watermarks, requests),
            scope=event.scope,
            trigger="forget",
            requested_at=datetime.fromtimestamp(now, UTC),
            watermarks=watermarks,
            request_ids=requests,
        )
        out.jobs.append(job)
        out.events.append(JobLifecycleEvent.for_job(job, "pending", reason="forget requested"))
        out.forgotten = True

    def decide(self, scope: str, signals: ScopeSignals, now: float, out: Emits) -> None:
        """Emit a job (or a skipped outcome) when the scope's policy says so."""
        decision = decide(signals, self.policy(scope), now)
        if decision is None:
            return
        requests = tuple(signals.waiting_requests) if decision.trigger == "manual" else ()
        watermarks = signals.watermarks(self.correction_inputs if signals.memory_corrections else self.inputs)
        job = DreamJob(
            job_id=make_job_id(scope, decision.trigger, watermarks, requests),
            scope=scope,
            trigger=decision.trigger,
            requested_at=datetime.fromtimestamp(now, UTC),
            watermarks=watermarks,
            request_ids=requests,
            motives=motives_of(signals),
            messages_since_last_pass=signals.messages,
            tokens_since_last_pass=signals.tokens,
            tenant_steering=self.tenant_steering(scope, signals.partition),
            scope_steering=steering_of(signals),
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
        out.events.append(
            JobLifecycleEvent.for_job(job, "pending", reason=f"triggered by {job.trigger}", motives=job.motives)
        )

    # --- a batch

    def process_batch(self, records: Iterable[Record], tables: dict[int, dict[str, bytes]], now: float) -> Batch:
        """Validate, fold and decide over a batch. `tables` (partition → scope → row bytes) is
        only read; the caller writes `batch.rows` back once they are published. Raises
        BadInputStorm before anything is returned, so nothing of the crossing batch goes out."""
        batch = Batch()
        live: dict[tuple[int, str], ScopeSignals | None] = batch.rows
        self._live, self._tables = live, tables
        kinds, validate, count = self.kinds, self.validator.validate, self.guard.count
        offsets, counts, guards = batch.offsets, batch.counts, batch.guards
        decode_row = ScopeSignals.decode
        sinks: dict[int, PartitionSink] = {}

        def sink(partition: int) -> PartitionSink:
            found = sinks.get(partition)
            if found is None:
                found = sinks[partition] = PartitionSink(batch, partition)
            return found

        decide_for = self.decide
        # Pass 1: validate and judge every record (a storm raises here, before anything is folded).
        # (kind, topic, partition, offset, event): a fast struct, or a JobOutcome when kind is None
        accepted: list[tuple[Kind | None, str, int, int, Any, Record]] = []
        for msg in records:
            if msg.error() is not None:
                continue  # partition EOF and the like; the loop reports real errors
            topic, partition, offset = msg.topic(), msg.partition(), msg.offset()
            offsets[(topic, partition)] = offset + 1
            kind = kinds.get(topic)
            value = msg.value()
            if kind is None:  # the audit topic: job outcomes
                outcome = self.outcome(value)
                if outcome is not None:
                    accepted.append((None, topic, partition, offset, outcome, msg))
                continue
            key = msg.key()
            result = validate(kind, key, value, partition)
            if result.valid is False:  # narrows result to Rejected
                if count(topic, partition, offset, True):
                    guards.add(partition)
                counts[(topic, "dead_lettered")] = counts.get((topic, "dead_lettered"), 0) + 1
                batch.dead_letters.append(self.dead_letter(result, topic, partition, offset, key, value))
                batch.letter_partitions.append(partition)
                continue
            if count(topic, partition, offset, False):
                guards.add(partition)
            accepted.append((kind, topic, partition, offset, result.record, msg))
        # Pass 2: the batch's turns through the extraction regexes at once.
        turns = [item[4] for item in accepted if item[0] == "turns"]
        found = iter(extract_batch([t.role for t in turns], [t.content for t in turns]))
        # Pass 3: fold in order, asking the policy after each event.
        for kind, topic, partition, offset, event, msg in accepted:
            if kind is None:
                slot = (partition, event.scope)
                signals = live.get(slot, _MISSING)
                if signals is _MISSING:
                    raw = tables.get(partition, _NO_ROWS).get(event.scope)
                    if raw is None:
                        continue  # a forgotten or unknown scope is not resurrected by an outcome
                    signals = live[slot] = decode_row(raw)
                if signals is not None and signals.job_finished(event.job_id, event.status, now):
                    decide_for(event.scope, signals, now, sink(partition))
                continue
            signals_found = next(found) if kind == "turns" else None
            scope = event.scope
            tenant_row = kind == "control" and event.action == "steer" and event.steering["applies_to"] == "tenant"
            if tenant_row:
                scope = tenant_row_key(scope)  # one copy of a tenant's steering per partition, not the carrier's row
            slot = (partition, scope)
            signals = live.get(slot, _MISSING)
            if signals is _MISSING:
                signals = live[slot] = decode_row(tables.get(partition, _NO_ROWS).get(scope))
            elif signals is None:  # forgotten earlier in this batch: a fresh row
                signals = live[slot] = ScopeSignals()
            if kind == "control" and event.action == "forget":
                self.forget(event, signals, now, sink(partition))
                live[slot] = None
                counts[(topic, "accepted")] = counts.get((topic, "accepted"), 0) + 1
                continue
            fresh = self.apply(event, topic, partition, offset, signals, now, signals_found)
            if fresh is True:
                counts[(topic, "accepted")] = counts.get((topic, "accepted"), 0) + 1
                if not tenant_row:
                    decide_for(scope, signals, now, sinks.get(partition) or sink(partition))
            elif fresh is False:
                counts[(topic, "duplicate")] = counts.get((topic, "duplicate"), 0) + 1
            else:  # refused on the scope's row: dead-lettered like any bad record (not a storm's sign)
                counts[(topic, "dead_lettered")] = counts.get((topic, "dead_lettered"), 0) + 1
                batch.dead_letters.append(self.dead_letter(fresh, topic, partition, offset, msg.key(), msg.value()))
                batch.letter_partitions.append(partition)
        return batch


def steering_of(signals: ScopeSignals) -> Steering | None:
    """A row's steering as a job carries it (None when none is set, or it was cleared)."""
    if not signals.steering:
        return None
    return Steering(
        text=signals.steering, by=signals.steering_by or "?", set_at=datetime.fromtimestamp(signals.steering_at, UTC)
    )


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
    if signals.memory_corrections:
        motives.append(
            Motive(kind="memory_correction", summary=f"{signals.memory_corrections} corrections of stored memories")
        )
    return tuple(motives)
