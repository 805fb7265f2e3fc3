"""The stream worker's input loop: a confluent-kafka consumer that owns its offsets.

One consumer (group = app id, range assignor) reads partition p of every input topic (turns,
memory-adds, control) and of the audit topic (job outcomes) together. Per assigned partition it
keeps the scopes' signal rows in a dict, restored from the compacted signals changelog before
the partition's first record is processed.

Per batch: validate, fold and decide (`Processor.process_batch`), then produce the dead letters,
jobs, lifecycle events, each changed row once and the storm guard's window, all with a delivery
callback bound to the batch. A batch's input offsets are committed only once everything it
produced, and everything every earlier batch produced, is acknowledged by the broker. On
revocation: flush, commit what is acknowledged, drop the partitions' rows. A crash therefore
redelivers at most what was not yet acknowledged, and the rows' per-(topic, partition) offsets
recognise what they already hold.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import TypeAlias, cast

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Message, TopicPartition
from prometheus_client import Counter

from plumbing.broker_health import BrokerHealth, QuietKafkaLog
from plumbing.kafka_io import DeliveryFailed, make_consumer, make_producer
from plumbing.metrics import CONSUMER_LAG
from schemas import ControlEvent
from schemas.cloudevents import audit_record
from schemas.settings import Settings
from streams.commits import CommitTracker
from streams.due_index import DueIndex
from streams.metrics import (
    DEAD_LETTERS,
    EVENTS,
    JOBS_EMITTED,
    RESTORED_ROWS,
    SCOPES_TRACKED,
    declare_series,
)
from streams.policy import decide
from streams.processor import BadInputStorm, Batch, Processor, Record
from streams.signals import ScopeSignals

log = logging.getLogger("streams.loop")

Headers: TypeAlias = list[tuple[str, bytes]]
Delivered: TypeAlias = Callable[[KafkaError | None, Message], None]


def changelog_key(scope: str) -> bytes:
    """Rows are keyed as Faust's json key codec wrote them: the scope as a JSON string (a valid
    scope needs no escaping: letters, digits and ._@:+-/ only)."""
    return b'"' + scope.encode() + b'"'


def _scope_of(key: bytes) -> str:
    if key[:1] == b'"' and key[-1:] == b'"' and b"\\" not in key:
        return key[1:-1].decode()
    scope: str = json.loads(key)
    return scope


class StreamLoop:
    """Not thread-safe: every method runs on the thread that calls `poll` (the worker's event loop)."""

    NUDGES_PER_TICK = 5_000

    def __init__(self, settings: Settings, processor: Processor | None = None) -> None:
        self.settings = settings
        self.topics = settings.topics
        declare_series(self.topics)
        self.processor = processor or Processor(settings)
        self.health = BrokerHealth(settings, log)
        quiet = QuietKafkaLog(settings.broker_retry_log_s)
        common = {
            "error_cb": self.health.error,
            "logger": quiet,
            "reconnect.backoff.ms": 250,
            "reconnect.backoff.max.ms": 10_000,
        }
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
                "enable.gapless.guarantee": True,  # see _publish: one delivery callback per partition and batch
                "linger.ms": settings.streams_linger_ms,
                "batch.num.messages": 10_000,
                "queue.buffering.max.messages": 20_000,
                "queue.buffering.max.kbytes": 4_096,
            },
        )
        self._quiet = quiet
        self.tables: dict[int, dict[str, bytes]] = {}
        self.due = DueIndex()
        self.tracker = CommitTracker()
        self.assigned: list[TopicPartition] = []
        self._to_commit: dict[tuple[str, int], int] = {}
        self._commit_at = 0.0
        self._lag_at = 0.0
        self._lag_series: set[tuple[str, int]] = set()
        self._counters: dict[tuple[str, str], Counter] = {}
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
            self._flush_and_commit()
        else:
            self.tracker.clear()
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
                batch = self.processor.process_batch(cast("list[Record]", records), self.tables, time.time())
            except BadInputStorm:
                # Nothing of this batch goes out. What earlier batches published is committed
                # first: a restart then reads the storm again, and nothing before it twice.
                self._flush_and_commit()
                self.stopped = True
                raise
            self._publish(batch)
        self.producer.poll(0)
        self._commit()
        now = time.monotonic()
        if now >= self._lag_at:
            self._lag_at = now + 10
            self._report_lag()
        return len(records)

    # --- publishing

    def _publish(self, batch: Batch) -> None:
        """Produce everything the batch made. Only the last message per (topic, partition) gets a
        delivery callback: the producer is idempotent with the gapless guarantee, so that one's
        acknowledgement means every earlier one in the partition was written (a gap would be a
        fatal producer error, which stops the worker uncommitted)."""
        pending = self.tracker.add(batch.offsets)
        last: dict[tuple[str, int], tuple[str, bytes | None, bytes | None, int, Headers | None]] = {}
        topics = self.topics

        def send(
            topic: str,
            key: bytes | None,
            value: bytes | None,
            partition: int,
            headers: Headers | None = None,
        ) -> None:
            previous = last.get((topic, partition))
            if previous is not None:
                self._produce(*previous[:4], headers=previous[4])
            last[(topic, partition)] = (topic, key, value, partition, headers)

        for letter, partition in zip(batch.dead_letters, batch.letter_partitions):
            DEAD_LETTERS.labels(letter.topic, letter.error_type).inc()
            log.warning("dead-lettered %s[%d]@%d: %s", letter.topic, letter.partition, letter.offset, letter.reason)
            key = letter.key.encode() if letter.key is not None else None
            send(topics.dead_letter, key, letter.model_dump_json().encode(), partition)
        for job, partition in zip(batch.jobs, batch.job_partitions):
            JOBS_EMITTED.labels(job.trigger, "emitted").inc()
            log.info("job %s for %s (%s)", job.job_id, job.scope, job.trigger)
            # exclude_none: a job without steering is byte for byte what workers before steering read
            send(topics.jobs, job.scope.encode(), job.model_dump_json(exclude_none=True).encode(), partition)
        value: bytes | None
        headers: Headers | None
        for event, partition in zip(batch.events, batch.event_partitions):
            if event.status == "skipped":
                JOBS_EMITTED.labels(event.trigger, "skipped").inc()
            key, value, headers = audit_record(event, self.settings, "streams")  # CloudEvents headers
            send(topics.audit, key, value, partition, headers)
        changelog, tables, due, policy = topics.signals_changelog, self.tables, self.due, self.processor.policy
        for (partition, scope), signals in batch.rows.items():
            table = tables.get(partition)
            if table is None:  # revoked meanwhile (cannot happen inside one poll; kept safe)
                continue
            key = changelog_key(scope)
            if signals is None:
                table.pop(scope, None)
                due.discard(scope)
                row = None
            else:
                row = table[scope] = signals.encode()
                due.track(scope, signals, policy(scope))
            previous = last.get((changelog, partition))
            if previous is not None:
                self._produce(*previous[:4], headers=previous[4])
            last[(changelog, partition)] = (changelog, key, row, partition, None)
        guard = self.processor.guard
        for partition in batch.guards:
            window = guard.partitions.get(partition)
            if window is not None:
                send(changelog, changelog_key(guard.key(partition)), window.encode(), partition)
        done = pending.delivered
        for topic, key, value, partition, headers in last.values():
            pending.remaining += 1
            self._produce(topic, key, value, partition, done, headers)
        for (topic, outcome), n in batch.counts.items():
            counter = self._counters.get((topic, outcome))
            if counter is None:
                counter = self._counters[(topic, outcome)] = EVENTS.labels(topic, outcome)
            counter.inc(n)

    def _produce(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        partition: int,
        on_delivery: Delivered | None = None,
        headers: Headers | None = None,
    ) -> None:
        produce = self.producer.produce
        while True:
            try:
                if headers:
                    # confluent-kafka types headers as an invariant List[Tuple[str, str | bytes | None]]
                    produce(topic, value, key, partition, on_delivery=on_delivery, headers=headers)  # type: ignore[arg-type]
                elif on_delivery is None:
                    produce(topic, value, key, partition)
                else:
                    produce(topic, value, key, partition, on_delivery=on_delivery)
                return
            except BufferError:  # the local queue is full: let deliveries drain it
                self.producer.poll(0.1)

    def send_control(self, event: ControlEvent, partition: int, on_delivery: Delivered | None = None) -> None:
        """A control event (timer nudge, HTTP trigger) to the scope's home partition."""
        self.producer.produce(
            self.topics.control,
            event.model_dump_json(exclude_none=True).encode(),
            event.scope.encode(),
            partition,
            on_delivery=on_delivery or _log_failure,
        )

    # --- commits

    def _commit(self, force: bool = False) -> None:
        self._to_commit.update(self.tracker.ready())
        if not self._to_commit:
            return
        now = time.monotonic()
        if not force and now < self._commit_at:
            return
        self._commit_at = now + 0.2
        offsets = [TopicPartition(t, p, o) for (t, p), o in self._to_commit.items()]
        self._to_commit = {}
        try:
            # confluent-kafka's stubs overload `asynchronous` on Literal[True] / Literal[False] only
            self.consumer.commit(offsets=offsets, asynchronous=not force)  # type: ignore[call-overload]
        except KafkaException as err:  # redelivered later; the rows recognise what they already hold
            log.warning("commit failed (%s); the events will be read again", err)

    def _flush_and_commit(self, timeout_s: float = 30.0) -> None:
        remaining = self.producer.flush(timeout_s)
        if remaining:
            log.warning(
                "%d outputs still undelivered after %.0fs: their input offsets stay uncommitted", remaining, timeout_s
            )
        try:
            self._commit(force=True)
        except DeliveryFailed as err:
            log.error("%s; the input offsets behind it stay uncommitted", err)
        self.tracker.clear()
        self._to_commit = {}

    # --- rebalancing

    def _on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.health.ok()
        numbers = sorted({tp.partition for tp in partitions} - set(self.tables))
        started = time.monotonic()
        restored = self.restore(numbers)
        self.assigned = list(partitions)
        self._lag_at = 0.0  # report the new partitions' lag at once
        SCOPES_TRACKED.set(sum(len(t) for t in self.tables.values()))
        log.info(
            "assigned partitions %s; restored %d rows in %.2fs",
            sorted({tp.partition for tp in partitions}),
            restored,
            time.monotonic() - started,
        )

    def _on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        if not self.stopped:
            self._flush_and_commit()
        self._drop(partitions)
        log.info("revoked partitions %s", sorted({tp.partition for tp in partitions}))

    def _on_lost(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        """Lost, not revoked (the session expired): another member may own them already, so
        nothing is committed; what was produced is harmless, the rows are idempotent."""
        self.tracker.clear()
        self._to_commit = {}
        self._drop(partitions)
        log.warning("lost partitions %s", sorted({tp.partition for tp in partitions}))

    def _drop(self, partitions: list[TopicPartition]) -> None:
        numbers = {tp.partition for tp in partitions}
        for number in numbers:
            table = self.tables.pop(number, None) or {}
            for scope in table:
                self.due.discard(scope)
            self.processor.guard.drop(number)
        for tp in partitions:
            if (tp.topic, tp.partition) in self._lag_series:
                self._lag_series.discard((tp.topic, tp.partition))
                CONSUMER_LAG.remove(tp.topic, str(tp.partition))
        gone = {(tp.topic, tp.partition) for tp in partitions}
        self.assigned = [tp for tp in self.assigned if (tp.topic, tp.partition) not in gone]
        SCOPES_TRACKED.set(sum(len(t) for t in self.tables.values()))

    def restore(self, partitions: list[int], timeout_s: float = 120.0) -> int:
        """Read the changelog partitions from the start to their current end into the tables:
        rows, tombstones, and the storm guard's window."""
        guard = self.processor.guard
        for number in partitions:
            self.tables[number] = {}
            guard.restore(number, None)
        if not partitions:
            return 0
        changelog = self.topics.signals_changelog
        reader = Consumer(
            {
                **self.settings.kafka_client_config(),
                "group.id": f"{self.settings.app_id}-restore",
                "enable.auto.commit": False,
                "enable.partition.eof": True,
                "logger": self._quiet,
                "error_cb": self.health.error,
            }
        )
        try:
            ends: dict[int, int] = {}
            starts = []
            for number in partitions:
                low, high = reader.get_watermark_offsets(TopicPartition(changelog, number), timeout=30)
                if high > low:
                    ends[number] = high
                    starts.append(TopicPartition(changelog, number, OFFSET_BEGINNING))
            if not ends:
                return 0
            reader.assign(starts)
            rows = 0
            deadline = time.monotonic() + timeout_s
            guard_prefix = b'"#guard/'
            while ends:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"restoring the signals changelog timed out; partitions left: {sorted(ends)}")
                for msg in cast("list[Record]", reader.consume(10_000, 1.0)):
                    number = msg.partition()
                    error = msg.error()
                    if error is not None:
                        if error.code() == KafkaError._PARTITION_EOF:
                            ends.pop(number, None)
                        continue
                    key, value = msg.key(), msg.value()
                    if key is not None:
                        if key.startswith(guard_prefix):
                            guard.restore(number, value)
                        else:
                            table = self.tables[number]
                            if value is None:
                                table.pop(_scope_of(key), None)
                            else:
                                table[_scope_of(key)] = value
                                rows += 1
                    if msg.offset() + 1 >= ends.get(number, 0):
                        ends.pop(number, None)
            RESTORED_ROWS.inc(rows)
            policy = self.processor.policy
            decode_row, track = ScopeSignals.decode, self.due.track
            for number in partitions:
                for scope, row in self.tables[number].items():
                    track(scope, decode_row(row), policy(scope))
            return sum(len(self.tables[n]) for n in partitions)
        finally:
            reader.close()

    # --- the timer

    def nudge_quiet_scopes(self, now: float) -> int:
        """Scopes whose idle or schedule trigger is due get an `evaluate` control event; the loop
        folds it like any other event, so the decision happens at a place in the stream."""
        import uuid

        sent = 0
        processor = self.processor
        for scope in self.due.pop_due(now, self.NUDGES_PER_TICK):
            partition = processor.validator.home(scope.encode())
            row = self.tables.get(partition, {}).get(scope)
            if row is None:
                continue
            signals = ScopeSignals.decode(row)
            verdict = decide(signals, processor.policy(scope), now)
            if verdict is None or verdict.trigger not in ("idle", "schedule"):
                self.due.track(scope, signals, processor.policy(scope))
                continue
            nudge = ControlEvent(scope=scope, action="evaluate", request_id=f"timer-{uuid.uuid4().hex[:12]}")
            self.send_control(nudge, partition)
            sent += 1
        SCOPES_TRACKED.set(sum(len(t) for t in self.tables.values()))
        return sent

    # --- lag

    def _report_lag(self) -> None:
        """Messages behind the end of each assigned partition (high watermarks as librdkafka
        last saw them; no request to the broker)."""
        if not self.assigned:
            return
        try:
            positions = self.consumer.position(self.assigned)
        except KafkaException:
            return
        for tp in positions:
            try:
                _, high = self.consumer.get_watermark_offsets(tp, cached=True)
            except KafkaException:
                continue
            if high is None or high < 0:
                continue
            position = tp.offset if tp.offset >= 0 else 0
            CONSUMER_LAG.labels(tp.topic, str(tp.partition)).set(max(high - position, 0))
            self._lag_series.add((tp.topic, tp.partition))


def _log_failure(err: KafkaError | None, msg: Message) -> None:
    if err is not None:
        log.warning("control event to %s not delivered: %s", msg.topic(), err)
