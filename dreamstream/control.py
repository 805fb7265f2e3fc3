"""Ask scopes to do something (trigger, reset, forget) and wait for the answer on the audit topic.

Shared by the CLI, the demo, the eval tool and the tests: a control event carries a request id,
and the job that answers it carries the same id in its lifecycle events.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

from plumbing.kafka_errors import is_coordinator_moving, kafka_error
from plumbing.kafka_io import send_control
from schemas import TERMINAL_JOB_STATUSES, AnyAuditEvent, JobLifecycleEvent
from schemas.audit import audit_event_adapter
from schemas.cloudevents import unframe
from schemas.settings import Settings

__all__ = ["AuditReader", "ControlError", "send_control", "wait_until_read"]


class ControlError(RuntimeError):
    pass


class AuditReader:
    """Reads the audit topic without a consumer group: from the beginning, or with `from_now`
    from the current end (resolved before the caller sends its request, so no answer is missed)."""

    def __init__(self, settings: Settings, from_now: bool = False) -> None:
        self._consumer = Consumer(
            {
                **settings.kafka_client_config(),
                "group.id": f"dreamstream-audit-reader-{uuid.uuid4().hex[:8]}",
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
            }
        )
        partitions = [TopicPartition(settings.topics.audit, p, 0) for p in range(settings.partitions)]
        if from_now:
            for tp in partitions:
                tp.offset = self._consumer.get_watermark_offsets(tp, timeout=10)[1]
        self._consumer.assign(partitions)
        self.events: list[AnyAuditEvent] = []

    def read(self, timeout_s: float) -> list[AnyAuditEvent]:
        new = []
        for msg in self._consumer.consume(num_messages=1000, timeout=timeout_s):
            error = msg.error()
            if error is not None:
                if error.code() != KafkaError._PARTITION_EOF:
                    raise ControlError(f"audit reader: {error}")
                continue
            new.append(audit_event_adapter.validate_json(unframe(msg.value() or b"")))
        self.events.extend(new)
        return new

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
