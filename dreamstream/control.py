"""Ask scopes to do something (trigger, reset, forget) and wait for the answer on the audit topic.

Shared by the CLI, the demo, the eval tool and the tests: a control event carries a request id,
and the job that answers it carries the same id in its lifecycle events.
"""

from __future__ import annotations

import heapq
import time
import uuid
from collections.abc import Callable, Iterable, Mapping

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition
from pydantic import ValidationError

from plumbing.kafka_errors import is_coordinator_moving, kafka_error
from plumbing.kafka_io import send_control
from schemas import TERMINAL_JOB_STATUSES, AnyAuditEvent, JobLifecycleEvent
from schemas.audit import audit_event_adapter
from schemas.cloudevents import unframe
from schemas.errors import describe_validation_error
from schemas.settings import Settings
from schemas.validation import home_partition

__all__ = ["AuditReader", "ControlError", "send_control", "wait_until_read"]


class ControlError(RuntimeError):
    pass


class AuditReader:
    """The one reader of the audit topic, by assignment (no consumer group, nothing committed).

    Where it starts: by default at the beginning; `from_now` at the current end (resolved before
    the caller sends its request, so no answer is missed); `tail=N` N events before the end of
    each partition (`audit tail`). `scope` narrows it to that scope's partition and events. An
    event that does not parse raises, unless `on_unreadable` is given: it is then told the line to
    show and the event is skipped. `events` keeps everything read."""

    def __init__(
        self,
        settings: Settings,
        from_now: bool = False,
        *,
        tail: int | None = None,
        scope: str | None = None,
        timeout_s: float = 10.0,
        on_unreadable: Callable[[str], None] | None = None,
        client_config: Mapping[str, object] | None = None,
    ) -> None:
        self.topic = settings.topics.audit
        self._scope = scope
        self._on_unreadable = on_unreadable
        self._consumer = Consumer(
            {
                **settings.kafka_client_config(),
                "group.id": f"dreamstream-audit-reader-{uuid.uuid4().hex[:8]}",
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                **(client_config or {}),
            }
        )
        self._ends: dict[int, int] = {}
        """Per partition with a backlog to read: the offset after its last event at start."""
        self._positions: dict[int, int] = {}
        self.events: list[AnyAuditEvent] = []
        try:
            self._assign(settings, from_now, tail, timeout_s)
        except BaseException:
            self._consumer.close()
            raise

    def _assign(self, settings: Settings, from_now: bool, tail: int | None, timeout_s: float) -> None:
        partitions = self._partitions(settings, timeout_s) if tail is not None or self._scope else None
        if partitions is None:
            partitions = list(range(settings.partitions))
        if self._scope:
            partitions = [home_partition(self._scope.encode(), len(partitions))]
        assignment = []
        for p in partitions:
            start = 0
            if from_now or tail is not None:
                low, high = self._consumer.get_watermark_offsets(TopicPartition(self.topic, p), timeout=timeout_s)
                start = high if tail is None else max(low, high - tail)
                if start < high:
                    self._ends[p], self._positions[p] = high, start - 1
            assignment.append(TopicPartition(self.topic, p, start))
        self._consumer.assign(assignment)

    def _partitions(self, settings: Settings, timeout_s: float) -> list[int]:
        """The topic's partitions as the broker lists them; a clear error when it cannot."""
        bootstrap = settings.kafka_bootstrap_servers
        try:
            meta = self._consumer.list_topics(self.topic, timeout=timeout_s).topics.get(self.topic)
        except KafkaException as err:
            error = kafka_error(err)
            raise ControlError(f"cannot reach Kafka at {bootstrap}: {error.str() if error else err}") from err
        if meta is None or meta.error is not None or not meta.partitions:
            raise ControlError(f"topic {self.topic} missing on {bootstrap}: run `dreamstream kafka topics`")
        return sorted(meta.partitions)

    def read(self, timeout_s: float) -> list[AnyAuditEvent]:
        """What arrived within `timeout_s` (of this scope, when one was given)."""
        return [event for _, event in self._read(timeout_s)]

    def _read(self, timeout_s: float) -> list[tuple[int, AnyAuditEvent]]:
        new = []
        for msg in self._consumer.consume(num_messages=1000, timeout=timeout_s):
            error = msg.error()
            if error is not None:
                if error.code() != KafkaError._PARTITION_EOF:
                    raise ControlError(f"audit reader: {error}")
                continue
            partition, offset = msg.partition() or 0, msg.offset() or 0  # set on every consumed message
            self._positions[partition] = max(offset, self._positions.get(partition, -1))
            try:
                event = audit_event_adapter.validate_json(unframe(msg.value() or b""))
            except ValidationError as err:
                if self._on_unreadable is None:
                    raise
                reason = " ".join(describe_validation_error(err, limit=1).split())
                self._on_unreadable(f"skipping unreadable audit event at {partition}@{offset}: {reason}")
                continue
            if self._scope is None or event.scope == self._scope:
                new.append((partition, event))
        self.events.extend(event for _, event in new)
        return new

    def backlog(self, timeout_s: float = 30.0) -> list[AnyAuditEvent]:
        """With `tail` or `from_now`: everything up to the end the topic had when this reader
        started, each partition in its own order (a scope's events keep the order they were
        published in), merged by time."""
        by_partition: dict[int, list[AnyAuditEvent]] = {}
        deadline = time.monotonic() + timeout_s
        while any(self._positions[p] < end - 1 for p, end in self._ends.items()):
            if time.monotonic() > deadline:
                raise ControlError(f"timed out after {timeout_s:.0f}s reading {self.topic}")
            for partition, event in self._read(0.5):
                by_partition.setdefault(partition, []).append(event)
        return list(heapq.merge(*by_partition.values(), key=lambda e: e.ts))

    def wait_for(
        self, request_ids: Iterable[str], timeout_s: float, check: Callable[[], None] = lambda: None
    ) -> list[JobLifecycleEvent]:
        """Block until every request has a finished job; returns those terminal events.
        `check` runs between reads, so a caller can fail fast when a worker died."""
        waiting = set(request_ids)
        done: dict[str, JobLifecycleEvent] = {}
        deadline = time.monotonic() + timeout_s
        while waiting:
            check()
            if time.monotonic() > deadline:
                raise ControlError(
                    f"timed out after {timeout_s}s waiting for {len(waiting)} requests: {sorted(waiting)[:5]}"
                )
            for event in self.read(0.5):
                if isinstance(event, JobLifecycleEvent) and event.status in TERMINAL_JOB_STATUSES:
                    for request_id in set(event.request_ids) & waiting:
                        waiting.discard(request_id)
                        done[request_id] = event
        return list(done.values())

    def close(self) -> None:
        self._consumer.close()

    def __enter__(self) -> AuditReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def wait_until_read(
    settings: Settings,
    timeout_s: float = 180.0,
    say: Callable[[str], None] = lambda _msg: None,
    check: Callable[[], None] = lambda: None,
) -> None:
    """Block until the stream worker's group has committed the end of the input topics.

    Call it between a replay and a trigger: a trigger travels on another topic and could overtake
    events not yet read, and its job would then cover less than what was replayed."""
    consumer = Consumer({**settings.kafka_client_config(), "group.id": settings.app_id, "enable.auto.commit": False})
    partitions = [TopicPartition(t, p) for t in settings.topics.inputs() for p in range(settings.partitions)]
    deadline = time.monotonic() + timeout_s
    try:
        ends = {(tp.topic, tp.partition): consumer.get_watermark_offsets(tp, timeout=10)[1] for tp in partitions}
        total, reported = sum(ends.values()), -1
        while True:
            check()
            try:
                committed = consumer.committed(partitions, timeout=10)
            except KafkaException as err:
                error = kafka_error(err)
                if error is None or not is_coordinator_moving(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.5)  # a fresh broker loads its group coordinator, or it just moved
                continue
            done = sum(min(max(tp.offset, 0), ends[(tp.topic, tp.partition)]) for tp in committed)
            if done >= total:
                return
            if done // 1000 != reported // 1000:
                say(f"stream worker has read {done}/{total} events")
                reported = done
            if time.monotonic() > deadline:
                raise ControlError(f"timed out after {timeout_s:.0f}s: the stream worker read {done} of {total} events")
            time.sleep(0.5)
    finally:
        consumer.close()
