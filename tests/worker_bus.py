"""Drive a ConsolidationWorker on either broker: the in-memory one (unit tests) or Kafka (the
same contract tests, and the chaos suite). A bus sends input records, reads the audit topic and
makes the consumer and producer the worker is given."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from confluent_kafka import Consumer, KafkaError, TopicPartition

from consumers.runtime import Runtime
from consumers.steps.publish import PRODUCER_CONFIG
from consumers.worker import ConsolidationWorker
from plumbing.kafka_io import flush_or_raise, make_consumer, make_producer
from plumbing.retry import RetryPolicy
from schemas import ControlEvent, DreamJob, JobLifecycleEvent, audit_event_adapter
from schemas.settings import Settings
from schemas.validation import home_partition
from tests.memory_broker import MemoryBroker

FAST_RETRY = RetryPolicy(initial_s=0.02, max_s=0.2, log_every_s=5.0, give_up_after_s=60.0)


class MemoryBus:
    name = "memory"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.broker = MemoryBroker(settings.partitions)

    def send(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        partition: int | None = None,
        headers: list[tuple[str, bytes]] | None = None,
    ) -> tuple[int, int]:
        msg = self.broker.append(topic, key, value, partition, headers)
        return msg.partition(), msg.offset()

    def audit(self) -> list[Any]:
        return [audit_event_adapter.validate_json(m.value()) for m in self.broker.messages(self.settings.topics.audit)]

    def control(self) -> list[ControlEvent]:
        return [ControlEvent.model_validate_json(m.value()) for m in self.broker.messages(self.settings.topics.control)]

    def consumer(self) -> Any:
        return self.broker.consumer(self.settings.consumer_group)

    def producer(self) -> Any:
        return self.broker.producer()

    def close(self) -> None:
        pass


class KafkaBus:
    name = "kafka"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._producer = make_producer(settings)
        self._reader = Consumer(
            {
                **settings.kafka_client_config(),
                "group.id": "audit-reader-bus",
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
            }
        )
        self._reader.assign([TopicPartition(settings.topics.audit, p, 0) for p in range(settings.partitions)])
        self._events: list[Any] = []
        self._control_reader: Consumer | None = None
        self._control: list[ControlEvent] = []

    def send(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        partition: int | None = None,
        headers: list[tuple[str, bytes]] | None = None,
    ) -> tuple[int, int]:
        placed: list[tuple[int, int]] = []
        errors: list[str] = []

        def delivered(err: KafkaError | None, msg: Any) -> None:
            if err is not None:
                errors.append(str(err))
            else:
                placed.append((msg.partition(), msg.offset()))

        extra: dict[str, Any] = {} if partition is None else {"partition": partition}
        if headers:
            extra["headers"] = headers
        self._producer.produce(topic, key=key, value=value, on_delivery=delivered, **extra)
        flush_or_raise(self._producer, errors)
        return placed[0]

    def audit(self) -> list[Any]:
        for msg in self._reader.consume(num_messages=1000, timeout=0.2):
            if msg.error() is None:
                self._events.append(audit_event_adapter.validate_json(msg.value()))
        return list(self._events)

    def control(self) -> list[ControlEvent]:
        if self._control_reader is None:
            self._control_reader = Consumer(
                {
                    **self.settings.kafka_client_config(),
                    "group.id": "control-reader-bus",
                    "enable.auto.commit": False,
                    "auto.offset.reset": "earliest",
                }
            )
            topic = self.settings.topics.control
            self._control_reader.assign([TopicPartition(topic, p, 0) for p in range(self.settings.partitions)])
        for msg in self._control_reader.consume(num_messages=1000, timeout=0.5):
            if msg.error() is None:
                self._control.append(ControlEvent.model_validate_json(msg.value()))
        return list(self._control)

    def consumer(self) -> Any:
        return make_consumer(self.settings, self.settings.consumer_group)

    def producer(self) -> Any:
        return make_producer(self.settings, **PRODUCER_CONFIG)

    def close(self) -> None:
        self._reader.close()
        if self._control_reader is not None:
            self._control_reader.close()


class RunningWorker:
    """A worker on its own thread; `error` holds what it raised, if anything."""

    def __init__(self, bus: Any, runtime: Runtime, retry: RetryPolicy = FAST_RETRY) -> None:
        self.worker = ConsolidationWorker(
            bus.settings, runtime, consumer=bus.consumer(), producer=bus.producer(), retry=retry
        )
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="worker-under-test", daemon=True)

    def _run(self) -> None:
        try:
            self.worker.run()
        except BaseException as err:  # read by the test
            self.error = err

    def __enter__(self) -> RunningWorker:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self.worker.stop()
        self._thread.join(timeout=60)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()


class Feeder:
    """Sends a scope's turns and jobs; a job's watermark covers every turn sent so far."""

    def __init__(self, bus: Any) -> None:
        self.bus = bus
        self.topics = bus.settings.topics
        self.next_offset: dict[tuple[str, int], int] = {}
        self.jobs = 0

    def raw(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        partition: int | None = None,
        headers: list[tuple[str, bytes]] | None = None,
    ) -> None:
        p, offset = self.bus.send(topic, key, value, partition, headers)
        self.next_offset[(topic, p)] = max(self.next_offset.get((topic, p), 0), offset + 1)

    def event(self, topic: str, event: Any, headers: list[tuple[str, bytes]] | None = None) -> None:
        self.raw(topic, event.scope.encode(), event.model_dump_json().encode(), None, headers)

    def job(self, scope: str, job_id: str | None = None, trigger: str = "manual") -> DreamJob:
        self.jobs += 1
        partition = home_partition(scope.encode(), self.bus.settings.partitions)
        marks = {
            t: self.next_offset[(t, partition)]
            for t in (self.topics.turns, self.topics.memory_adds)
            if (t, partition) in self.next_offset
        }
        job = DreamJob(
            job_id=job_id or f"job-{self.jobs}",
            scope=scope,
            trigger=trigger,
            requested_at=datetime.now(UTC),
            watermarks=marks,
        )
        self.raw(self.topics.jobs, scope.encode(), job.model_dump_json().encode(), partition)
        return job


def wait_for_jobs(
    bus: Any, job_ids: list[str], running: RunningWorker | None = None, timeout_s: float = 60.0
) -> dict[str, JobLifecycleEvent]:
    """Terminal lifecycle events of `job_ids` (the last one seen per job)."""
    deadline = time.monotonic() + timeout_s
    while True:
        done = {
            e.job_id: e
            for e in bus.audit()
            if getattr(e, "type", "") == "job" and e.job_id in job_ids and e.status != "running"
        }
        if len(done) == len(set(job_ids)):
            return done
        if running is not None and running.error is not None:
            raise AssertionError(f"worker died: {running.error!r}") from running.error
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for jobs {sorted(set(job_ids) - set(done))}")
        time.sleep(0.05)


def wait_until(condition: Callable[[], bool], timeout_s: float = 30.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
