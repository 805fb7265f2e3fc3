"""Output step of the stream worker: everything a folded batch produced goes out (dead letters,
jobs, lifecycle events, each changed signals row once, the storm guard's window), and the
batch's input offsets go on to the commit step once all of it is acknowledged.

This is where the commit order that makes the worker exact across kill -9 is enforced:

1. a batch's rows are written to the changelog together with its outputs, and the batch is
   registered with the `CommitTracker` before anything of it is produced;
2. its input offsets become committable only when every output of the batch and of every
   earlier batch is acknowledged (`CommitTracker.ready`, strictly in publication order);
3. only then are they handed to the next step (`poll`, `join`).

A crash therefore redelivers at most what was not yet acknowledged, and the rows, whose
per-(topic, partition) offsets were written before the commit, recognise what they already hold.
An output the broker refused raises `DeliveryFailed` from `poll`: the worker stops uncommitted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeAlias

from confluent_kafka import KafkaError, Message
from prometheus_client import Counter

from plumbing.kafka_io import DeliveryFailed
from schemas import ControlEvent
from schemas.cloudevents import audit_record
from schemas.settings import Settings
from streams.batch import Batch
from streams.commits import CommitTracker
from streams.metrics import DEAD_LETTERS, EVENTS, JOBS_EMITTED
from streams.rows import SignalTables, changelog_key
from streams.steps.commit import OffsetCommitStep
from streams.storm import StormGuard

log = logging.getLogger("streams.loop")

Headers: TypeAlias = list[tuple[str, bytes]]
Delivered: TypeAlias = Callable[[KafkaError | None, Message], None]
Output: TypeAlias = tuple[str, bytes | None, bytes | None, int, Headers | None]
"""(topic, key, value, partition, headers): one record to produce."""


class OutputStep:
    """A `plumbing.step.Step[[Batch]]`; its next step takes the offsets it may commit."""

    def __init__(
        self,
        settings: Settings,
        producer: Any,
        tables: SignalTables,
        guard: StormGuard,
        next_step: OffsetCommitStep,
        flush_timeout_s: float = 30.0,
    ) -> None:
        self._settings = settings
        self._topics = settings.topics
        self._producer = producer
        self._tables = tables
        self._guard = guard
        self._next = next_step
        self._flush_timeout_s = flush_timeout_s
        self._tracker = CommitTracker()
        self._counters: dict[tuple[str, str], Counter] = {}

    def submit(self, batch: Batch) -> None:
        """Produce everything the batch made. Only the last message per (topic, partition) gets a
        delivery callback: the producer is idempotent with the gapless guarantee, so that one's
        acknowledgement means every earlier one in the partition was written (a gap would be a
        fatal producer error, which stops the worker uncommitted)."""
        pending = self._tracker.add(batch.offsets)
        last: dict[tuple[str, int], Output] = {}
        topics, produce = self._topics, self._produce

        def send(
            topic: str, key: bytes | None, value: bytes | None, partition: int, headers: Headers | None = None
        ) -> None:
            previous = last.get((topic, partition))
            if previous is not None:
                produce(*previous[:4], headers=previous[4])
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
            key, value, headers = audit_record(event, self._settings, "streams")  # CloudEvents headers
            send(topics.audit, key, value, partition, headers)
        changelog = topics.signals_changelog
        for partition, scope, row in self._tables.write(batch.rows):  # send(), inlined: one row per scope
            previous = last.get((changelog, partition))
            if previous is not None:
                produce(*previous[:4], headers=previous[4])
            last[(changelog, partition)] = (changelog, changelog_key(scope), row, partition, None)
        guard = self._guard
        for partition in batch.guards:
            window = guard.partitions.get(partition)
            if window is not None:
                send(changelog, changelog_key(guard.key(partition)), window.encode(), partition)
        done = pending.delivered
        for topic, key, value, partition, headers in last.values():
            pending.remaining += 1
            produce(topic, key, value, partition, done, headers)
        counters = self._counters
        for (topic, outcome), n in batch.counts.items():
            counter = counters.get((topic, outcome))
            if counter is None:
                counter = counters[(topic, outcome)] = EVENTS.labels(topic, outcome)
            counter.inc(n)

    def poll(self) -> None:
        """Serve delivery callbacks; hand on the offsets of the acknowledged head batches
        (raises DeliveryFailed when an output was refused: nothing past it is committed)."""
        self._producer.poll(0)
        ready = self._tracker.ready()
        if ready:
            self._next.submit(ready)
        self._next.poll()

    def join(self) -> None:
        """Flush (up to `flush_timeout_s`), then commit at once what is acknowledged. Called on
        revocation, at close and before a storm stops the worker: a refused output is logged,
        not raised, and nothing past it is committed."""
        remaining = self._producer.flush(self._flush_timeout_s)
        if remaining:
            log.warning(
                "%d outputs still undelivered after %.0fs: their input offsets stay uncommitted",
                remaining,
                self._flush_timeout_s,
            )
        try:
            self._next.submit(self._tracker.ready())
        except DeliveryFailed as err:
            log.error("%s; the input offsets behind it stay uncommitted", err)
        else:
            self._next.join()
        self.discard()

    def discard(self) -> None:
        """Forget the batches not yet acknowledged, and what the next step holds: their offsets
        are never committed (redelivered to whoever owns the partitions next)."""
        self._tracker.clear()
        self._next.discard()

    def close(self) -> None:
        self.discard()
        self._next.close()

    def send_control(self, event: ControlEvent, partition: int, on_delivery: Delivered | None = None) -> None:
        """A control event (timer nudge, HTTP trigger) to the scope's home partition; outside any
        batch: it is folded when the loop reads it back."""
        self._producer.produce(
            self._topics.control,
            event.model_dump_json(exclude_none=True).encode(),
            event.scope.encode(),
            partition,
            on_delivery=on_delivery or _log_failure,
        )

    def _produce(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        partition: int,
        on_delivery: Delivered | None = None,
        headers: Headers | None = None,
    ) -> None:
        produce = self._producer.produce
        while True:
            try:
                if headers:
                    # confluent-kafka types headers as an invariant List[Tuple[str, str | bytes | None]]
                    produce(topic, value, key, partition, on_delivery=on_delivery, headers=headers)
                elif on_delivery is None:
                    produce(topic, value, key, partition)
                else:
                    produce(topic, value, key, partition, on_delivery=on_delivery)
                return
            except BufferError:  # the local queue is full: let deliveries drain it
                self._producer.poll(0.1)


def _log_failure(err: KafkaError | None, msg: Message) -> None:
    if err is not None:
        log.warning("control event to %s not delivered: %s", msg.topic(), err)
