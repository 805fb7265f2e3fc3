"""The stream worker's input loop: a confluent-kafka consumer that owns its offsets, and three
steps on the one step contract (`plumbing.step.Step`):

    consume ─► FoldStep (validate, fold, decide) ─► OutputStep (publish; offsets once acknowledged)
            ─► OffsetCommitStep (commit)

One consumer (group = app id, range assignor) reads partition p of every input topic (turns,
memory-adds, control) and of the audit topic (job outcomes) together. Per assigned partition the
scopes' signal rows (`streams.rows.SignalTables`) are restored from the compacted changelog
(`streams.restore`) before the partition's first record is folded.

The commit order that makes the worker exact across kill -9 is enforced in `OutputStep` (a
batch's offsets go to the commit step only once everything it and every earlier batch produced
is acknowledged). This loop keeps the order at its edges: on revocation it joins the steps
(flush, commit what is acknowledged) before dropping the partitions' rows; on a lost assignment
it commits nothing; on a storm it joins what earlier batches published, publishes nothing of
the storm's batch, and stops. Failures: the broker's health and fatal errors through
`plumbing.broker_health`, Kafka errors judged by `plumbing.kafka_errors`.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from confluent_kafka import Consumer, KafkaException, TopicPartition

from plumbing.broker_health import BrokerHealth, QuietKafkaLog
from plumbing.kafka_io import DeliveryFailed, make_consumer, make_producer
from schemas import ControlEvent
from schemas.settings import Settings
from streams.lag import LagReport
from streams.metrics import declare_series
from streams.processor import Processor
from streams.restore import restore
from streams.rows import SignalTables
from streams.steps.commit import OffsetCommitStep
from streams.steps.fold import FoldStep
from streams.steps.output import Delivered, OutputStep
from streams.storm import BadInputStorm
from streams.timer import nudge_quiet_scopes

log = logging.getLogger("streams.loop")


class StreamLoop:
    """Not thread-safe: every method runs on the thread that calls `poll` (the worker's event loop)."""

    def __init__(self, settings: Settings, processor: Processor | None = None) -> None:
        self.settings = settings
        self.topics = settings.topics
        declare_series(self.topics)
        self.processor = processor or Processor(settings)
        self.health = BrokerHealth(settings, log)
        quiet = QuietKafkaLog(settings.broker_retry_log_s)
        self._client: dict[str, Any] = {"error_cb": self.health.error, "logger": quiet}
        common = {**self._client, "reconnect.backoff.ms": 250, "reconnect.backoff.max.ms": 10_000}
        self.consumer = make_consumer(
            settings,
            settings.app_id,
            **common,
            **{
                "max.poll.interval.ms": 300_000,
                # prefetch a few batches, not 64 MB: memory per scope stays small with a backlog
                "queued.min.messages": 4 * settings.streams_batch_size,
                "queued.max.messages.kbytes": 4_096,
                # once the prefetch queue is full, librdkafka waits this long before fetching again
                # (default 1 s): a worker draining 8,000 records in 0.2 s would sit idle for 0.8 s
                "fetch.queue.backoff.ms": 5,
            },
        )
        self.producer = make_producer(
            settings,
            **common,
            **{
                "enable.gapless.guarantee": True,  # OutputStep: one delivery callback per partition and batch
                "linger.ms": settings.streams_linger_ms,
                "batch.num.messages": 10_000,
                "queue.buffering.max.messages": 20_000,
                "queue.buffering.max.kbytes": 4_096,
            },
        )
        self.tables = SignalTables(self.processor.policy)
        self.output = OutputStep(
            settings, self.producer, self.tables, self.processor.guard, OffsetCommitStep(self.consumer)
        )
        self.steps = FoldStep(self.processor, self.tables, self.output)
        self.lag = LagReport(self.consumer)
        self.stopped = False

    # --- lifecycle

    def start(self) -> None:
        topics = [*self.topics.inputs(), self.topics.control, self.topics.audit]
        self.consumer.subscribe(topics, on_assign=self._on_assign, on_revoke=self._on_revoke, on_lost=self._on_lost)

    def close(self, commit: bool = True) -> None:
        """Flush, commit what is delivered, leave the group (its partitions go to the others now)."""
        if self.stopped:
            return
        self.stopped = True
        if commit:
            self.steps.join()
        self.steps.close()
        try:
            self.consumer.close()
        except (KafkaException, RuntimeError) as err:
            log.warning("closing the consumer: %s", err)

    # --- one iteration

    def poll(self, timeout: float = 0.0) -> int:
        """Read a batch, publish what it produces, commit what is delivered. Returns the count read."""
        if self.health.fatal is not None:
            raise DeliveryFailed(f"fatal Kafka client error: {self.health.fatal.str()}")
        records = self.consumer.consume(self.settings.streams_batch_size, timeout)
        if records:
            self.health.ok()
            try:
                self.steps.submit(records)
            except BadInputStorm:
                # Nothing of this batch goes out. What earlier batches published is committed
                # first: a restart then reads the storm again, and nothing before it twice.
                self.steps.join()
                self.stopped = True
                raise
        self.steps.poll()
        self.lag.poll()
        return len(records)

    def send_control(self, event: ControlEvent, partition: int, on_delivery: Delivered | None = None) -> None:
        """A control event (timer nudge, HTTP trigger) to the scope's home partition."""
        self.output.send_control(event, partition, on_delivery)

    def nudge_quiet_scopes(self, now: float) -> int:
        """The timer's tick (`streams.timer`): due scopes get an `evaluate` control event."""
        return nudge_quiet_scopes(self.processor, self.tables, self.send_control, now)

    # --- rebalancing

    def _on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.health.ok()
        numbers = sorted({tp.partition for tp in partitions} - set(self.tables.rows))
        started = time.monotonic()
        restored = restore(self.settings, self.tables, self.processor.guard, numbers, self._client)
        self.lag.assign(partitions)
        self.tables.report()
        log.info(
            "assigned partitions %s; restored %d rows in %.2fs",
            sorted({tp.partition for tp in partitions}),
            restored,
            time.monotonic() - started,
        )

    def _on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        if not self.stopped:
            self.steps.join()
        self._drop(partitions)
        log.info("revoked partitions %s", sorted({tp.partition for tp in partitions}))

    def _on_lost(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        """Lost, not revoked (the session expired): another member may own them already, so
        nothing is committed; what was produced is harmless, the rows are idempotent."""
        self.output.discard()
        self._drop(partitions)
        log.warning("lost partitions %s", sorted({tp.partition for tp in partitions}))

    def _drop(self, partitions: list[TopicPartition]) -> None:
        numbers = {tp.partition for tp in partitions}
        self.tables.drop(numbers)
        for number in numbers:
            self.processor.guard.drop(number)
        self.lag.drop(partitions)
        self.tables.report()
