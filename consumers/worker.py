"""The consolidation worker: one consumer group over turns, memory-adds, control and jobs.

It indexes transcripts, memory-adds and corrections (control events) into Qdrant as they arrive,
and runs dream jobs for the partitions it owns. Because the range assignor co-partitions the
topics, the worker that
owns a scope's job partition also owns that scope's transcript partition, and a job waits until
the index has reached the job's watermarks: a pass never runs on less than what triggered it.

The work is done by small steps (`consumers/steps/`), each owning one resource and its retries:
index (Qdrant), jobs (the pass and its store), publish (the producer), commit (the consumer's
offsets). This class only moves messages between them. Consumer and producer are injected, so
the same worker runs on the in-memory broker in unit tests and on Kafka.

Commit order, per message: Qdrant write → audit events flushed → offset committed. A crash at
any point means redelivery, and the pass recognises a job it already ran. The worker exits only
on what retrying cannot fix (`WorkerExit`, which says why): a fatal or authorisation error from
Kafka, an undeliverable event, or a broker or store away for longer than the retry policy allows.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from confluent_kafka import KafkaError, TopicPartition

from consumers.runtime import Runtime
from consumers.steps.commit import CommitStep
from consumers.steps.index import IndexStep
from consumers.steps.jobs import JobStep, Positions
from consumers.steps.publish import PRODUCER_CONFIG, PublishStep
from dreaming.awaiting_review import REFRESH_S
from dreaming.pass_metrics import declare_series
from plumbing.broker_health import BrokerHealth, QuietKafkaLog
from plumbing.kafka_errors import is_unfixable_consumer_error
from plumbing.kafka_io import DeliveryFailed, make_consumer, make_producer
from plumbing.metrics import CONSUMER_LAG
from plumbing.retry import (
    TRANSIENT_ERRORS,
    GaveUp,
    Retrier,
    RetryPolicy,
    Stopping,
    declare_transient_series,
)
from plumbing.step import Forwarding, Offsets
from schemas.cloudevents import audit_record
from schemas.settings import Settings

log = logging.getLogger(__name__)


class IndexedOffsets(Forwarding):
    """The step between the index and the commit (a `Step[[Offsets]]`): the offsets the index has
    written are first what the job step's watermark check reads, then committed."""

    def __init__(self, positions: Positions, commit: CommitStep) -> None:
        self._positions, self._next = positions, commit

    def submit(self, offsets: Offsets) -> None:
        self._positions.update(offsets)
        self._next.submit(offsets)


class WorkerExit(RuntimeError):
    """The worker stopped on something retrying cannot fix; the message says what."""


class ConsolidationWorker:
    def __init__(
        self,
        settings: Settings,
        runtime: Runtime,
        *,
        consumer: Any = None,
        producer: Any = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self._settings = settings
        self._topics = settings.topics
        self._runtime = runtime
        self.stop_event = threading.Event()
        policy = retry or RetryPolicy(log_every_s=settings.broker_retry_log_s)
        # While Kafka is away: one line per broker_retry_log_s with the failed attempts, as the
        # stream worker logs it (librdkafka's own lines at most once per interval too).
        self.health = BrokerHealth(settings, log)
        kafka_logging = {"error_cb": self.health.error, "logger": QuietKafkaLog(settings.broker_retry_log_s)}
        self._consumer = (
            consumer if consumer is not None else make_consumer(settings, settings.consumer_group, **kafka_logging)
        )
        self._producer = (
            producer if producer is not None else make_producer(settings, **PRODUCER_CONFIG, **kafka_logging)
        )
        kafka = Retrier("kafka", policy, self.stop_event)
        store = Retrier("qdrant", policy, self.stop_event)
        self._positions = Positions(self._consumer, kafka)
        self._commit = CommitStep(self._consumer, kafka)
        self._index = IndexStep(settings, runtime, store, next_step=IndexedOffsets(self._positions, self._commit))
        self._publish = PublishStep(
            self._producer,
            self._topics.audit,
            kafka,
            record=lambda event: audit_record(event, settings, "consolidation"),
        )
        # A pass the LLM engine's call budget cut short asks for the next one on the control topic.
        self._control = PublishStep(self._producer, self._topics.control, kafka)
        self._jobs = JobStep(
            settings, runtime, self._consumer, self._positions, self._publish, self._commit, store, self._control
        )
        self._log_every_s = policy.log_every_s
        self._error_logged_at: dict[int, float] = {}
        self.assigned = False
        self._lag_checked_at = 0.0
        self._lag_series: set[tuple[str, int]] = set()
        declare_series(settings.engine)
        declare_transient_series()
        self._report_review()  # derived from the store before the first message

    @property
    def passes_run(self) -> int:
        return self._jobs.passes_run

    def run(self) -> None:
        topics = [self._topics.turns, self._topics.memory_adds, self._topics.control, self._topics.jobs]
        self._consumer.subscribe(topics, on_assign=self._on_assign, on_revoke=self._on_revoke)
        log.info("consolidation worker subscribed to %s as %s", topics, self._settings.consumer_group)
        try:
            while not self.stop_event.is_set():
                if self.health.fatal is not None:
                    raise WorkerExit(f"consolidation worker exits: fatal Kafka client error: {self.health.fatal.str()}")
                messages = self._consumer.consume(num_messages=500, timeout=0.5)
                if messages:
                    self.health.ok()
                self._handle_batch(messages)
                self._jobs.poll()
                self._report_lag()
                self._report_review()
        except Stopping as err:
            log.info("stopped while waiting: %s", err)
        except (GaveUp, DeliveryFailed) as err:
            raise WorkerExit(f"consolidation worker exits: {err}") from err
        finally:
            self._jobs.close()
            self._index.close()
            self._consumer.close()
            self._publish.close()

    def stop(self) -> None:
        self.stop_event.set()

    # --- partitions
    def _on_assign(self, consumer: Any, partitions: list[TopicPartition]) -> None:
        self.health.ok()
        self.assigned = True
        log.info("assigned %s", [(p.topic, p.partition) for p in partitions])

    def _on_revoke(self, consumer: Any, partitions: list[TopicPartition]) -> None:
        for p in partitions:
            self._positions.forget(p.topic, p.partition)
            if (p.topic, p.partition) in self._lag_series:  # a revoked partition is no longer ours to report
                self._lag_series.discard((p.topic, p.partition))
                CONSUMER_LAG.remove(p.topic, str(p.partition))
            if p.topic == self._topics.jobs:
                self._jobs.revoke(p.partition)

    # --- input
    def _handle_batch(self, messages: list[Any]) -> None:
        for msg in messages:
            error = msg.error()
            if error is not None:
                self._consumer_error(error)
            elif msg.topic() == self._topics.jobs:
                self._jobs.submit(msg)
            else:
                self._index.submit(msg)
        self._index.join()  # writes the batch, then its offsets go on to positions and the commit

    def _consumer_error(self, error: KafkaError) -> None:
        code = error.code()
        if code == KafkaError._PARTITION_EOF:
            return
        if is_unfixable_consumer_error(error):
            raise WorkerExit(
                f"consolidation worker exits: consumer error retrying cannot fix: {error.str()} ({error.name()})"
            )
        # librdkafka reconnects by itself; the error is only worth a line per interval and a count.
        TRANSIENT_ERRORS.labels("kafka", "consume").inc()
        now = time.monotonic()
        if now - self._error_logged_at.get(code, float("-inf")) >= self._log_every_s:
            self._error_logged_at[code] = now
            log.warning(
                "consumer: %s (%s); librdkafka retries, next line in %.0fs if it persists",
                error.str(),
                error.name(),
                self._log_every_s,
            )

    def _report_review(self) -> None:
        """The awaiting-review gauge from the store, every `REFRESH_S` (this process's own pointer
        writes reach it at once; this read brings in other processes' decisions)."""
        review = self._runtime.awaiting_review
        if not review.due():
            return
        try:
            with self._runtime.lock:
                review.update(self._runtime.memories)
        except Exception as err:  # noqa: BLE001 - a gauge read must not stop the worker; retried next interval
            review.postpone()
            log.warning("awaiting-review gauge: store read failed, next try in %.0fs: %s", REFRESH_S, err)

    def _report_lag(self) -> None:
        """Lag per assigned partition, every few seconds, from the high watermarks librdkafka
        already has from its fetches (a live query per partition would stall this loop)."""
        now = time.monotonic()
        if now - self._lag_checked_at < self._settings.timer_interval_s or not self.assigned:
            return
        self._lag_checked_at = now
        for tp in self._consumer.assignment():
            _, high = self._consumer.get_watermark_offsets(tp, cached=True)
            position = self._positions.known(tp.topic, tp.partition)
            if position is not None and high >= 0:
                CONSUMER_LAG.labels(tp.topic, str(tp.partition)).set(max(high - position, 0))
                self._lag_series.add((tp.topic, tp.partition))
