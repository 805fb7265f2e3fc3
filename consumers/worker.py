"""The consolidation worker: one consumer group over turns, memory-adds and jobs.

It indexes transcripts and memory-adds into Qdrant as they arrive, and runs dream jobs for the
partitions it owns. Because the range assignor co-partitions the three topics, the worker that
owns a scope's job partition also owns that scope's transcript partition, and a job waits until
the index has reached the job's watermarks: a pass never runs on less than what triggered it.

Commit order, per message: Qdrant write → audit events flushed → offset committed. A crash at
any point means redelivery, and the pass recognises a job it already ran.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timezone
from collections import defaultdict, deque

from confluent_kafka import OFFSET_INVALID, Consumer, KafkaError, Message, TopicPartition
from pydantic import ValidationError

from consumers.forget import forget_scope
from consumers.kafka_io import flush_or_raise, make_consumer, make_producer
from consumers.metrics import CONSUMER_LAG, INDEXED, declare_series, record_pass
from consumers.runtime import Runtime
from schemas import ConversationTurn, DreamJob, JobLifecycleEvent, MemoryAdd, ScopeForgottenEvent, make_event_id
from schemas.cloudevents import audit_record
from schemas.errors import describe_validation_error
from schemas.settings import Settings

log = logging.getLogger(__name__)
_MAX_QUEUED_JOBS = 100


class ConsolidationWorker:
    def __init__(self, settings: Settings, runtime: Runtime) -> None:
        self._settings = settings
        self._topics = settings.topics
        self._runtime = runtime
        self._pass = runtime.dream_pass
        self._transcripts = runtime.transcripts
        self._consumer: Consumer = make_consumer(settings, settings.consumer_group)
        self._producer = make_producer(settings)
        self._delivery_errors: list[str] = []
        self._positions: dict[tuple[str, int], int] = {}
        self._queued: dict[int, deque[Message]] = defaultdict(deque)
        self._paused: set[int] = set()
        self.stop_event = threading.Event()
        self.passes_run = 0
        self.assigned = False
        self._lag_checked_at = 0.0
        self._lag_series: set[tuple[str, int]] = set()
        declare_series(settings.engine)

    def run(self) -> None:
        topics = [self._topics.turns, self._topics.memory_adds, self._topics.jobs]
        self._consumer.subscribe(topics, on_assign=self._on_assign, on_revoke=self._on_revoke)
        log.info("consolidation worker subscribed to %s as %s", topics, self._settings.consumer_group)
        try:
            while not self.stop_event.is_set():
                messages = self._consumer.consume(num_messages=500, timeout=0.5)
                self._handle_batch(messages)
                self._run_ready_jobs()
                self._report_lag()
        finally:
            self._consumer.close()
            self._producer.flush(10)

    def stop(self) -> None:
        self.stop_event.set()

    # --- partitions
    def _on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.assigned = True
        log.info("assigned %s", [(p.topic, p.partition) for p in partitions])

    def _on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        # Queued jobs of a revoked partition were never committed: the next owner gets them.
        for p in partitions:
            self._positions.pop((p.topic, p.partition), None)
            if (p.topic, p.partition) in self._lag_series:  # a revoked partition is no longer ours to report
                self._lag_series.discard((p.topic, p.partition))
                CONSUMER_LAG.remove(p.topic, str(p.partition))
            if p.topic == self._topics.jobs:
                self._queued.pop(p.partition, None)
                self._paused.discard(p.partition)

    # --- input
    def _handle_batch(self, messages: list[Message]) -> None:
        turns: list[tuple[ConversationTurn, int]] = []
        adds: list[MemoryAdd] = []
        last: dict[tuple[str, int], int] = {}
        for msg in messages:
            if msg.error():
                if msg.error().code() != KafkaError._PARTITION_EOF:
                    raise RuntimeError(f"consumer error: {msg.error()}")
                continue
            topic, partition = msg.topic(), msg.partition()
            if topic == self._topics.jobs:
                self._queue_job(msg)
                continue
            event = self._decode_input(msg)
            if isinstance(event, ConversationTurn):
                turns.append((event, msg.offset()))
            elif isinstance(event, MemoryAdd):
                adds.append(event)
            last[(topic, partition)] = msg.offset() + 1
        if not last:
            return
        with self._runtime.lock:
            self._transcripts.index_turns(turns)
            self._transcripts.add_pending(adds)
        INDEXED.labels("turn").inc(len(turns))
        INDEXED.labels("memory_add").inc(len(adds))
        self._positions.update(last)
        self._consumer.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in last.items()], asynchronous=False)

    def _decode_input(self, msg: Message) -> ConversationTurn | MemoryAdd | None:
        model = ConversationTurn if msg.topic() == self._topics.turns else MemoryAdd
        try:
            return model.model_validate_json(msg.value() or b"")
        except ValidationError as err:
            # The stream worker dead-letters invalid input; here it is only skipped, not indexed.
            log.debug("skipping invalid %s@%d: %s", msg.topic(), msg.offset(), describe_validation_error(err))
            return None

    def _queue_job(self, msg: Message) -> None:
        queue = self._queued[msg.partition()]
        queue.append(msg)
        if len(queue) >= _MAX_QUEUED_JOBS and msg.partition() not in self._paused:
            self._consumer.pause([TopicPartition(self._topics.jobs, msg.partition())])
            self._paused.add(msg.partition())

    # --- jobs
    def _run_ready_jobs(self) -> None:
        for partition, queue in list(self._queued.items()):
            while queue:
                msg = queue[0]
                try:
                    job = DreamJob.model_validate_json(msg.value() or b"")
                except ValidationError as err:
                    log.error("invalid job at %s[%d]@%d skipped: %s", msg.topic(), partition, msg.offset(), describe_validation_error(err))
                    self._commit_job(msg)
                    queue.popleft()
                    continue
                if not self._caught_up(job, partition):
                    break
                self._execute(job, partition)
                self._commit_job(msg)
                queue.popleft()
            if not queue and partition in self._paused:
                self._consumer.resume([TopicPartition(self._topics.jobs, partition)])
                self._paused.discard(partition)

    def _caught_up(self, job: DreamJob, partition: int) -> bool:
        for topic, mark in job.watermarks.items():
            if self._position(topic, partition) < mark:
                return False
        return True

    def _position(self, topic: str, partition: int) -> int:
        key = (topic, partition)
        if key not in self._positions:
            committed = self._consumer.committed([TopicPartition(topic, partition)], timeout=10)[0]
            self._positions[key] = committed.offset if committed.offset != OFFSET_INVALID else 0
        return self._positions[key]

    def _execute(self, job: DreamJob, partition: int) -> None:
        if job.trigger == "forget":
            self._forget(job, partition)
            return
        self._publish([JobLifecycleEvent.for_job(job, "running")], job, partition)
        with self._runtime.lock:
            result = self._pass.run(job)
        events = result.events
        if result.status == "duplicate":
            log.info("job %s on %s already ran; republishing %d events", job.job_id, job.scope, len(events))
        self._publish(events, job, partition)
        flush_or_raise(self._producer, self._delivery_errors)
        with self._runtime.lock:
            self._pass.mark_published(job)
        self.passes_run += 1
        record_pass(result, self._settings.engine)

    def _forget(self, job: DreamJob, partition: int) -> None:
        runtime = self._runtime
        with runtime.lock:
            deleted = forget_scope(runtime.client, runtime.memories, runtime.transcripts, runtime.diary, job.scope)
        tombstone = ScopeForgottenEvent(event_id=make_event_id(job.job_id, "forgotten"), scope=job.scope,
                                        job_id=job.job_id, ts=datetime.now(timezone.utc),
                                        request_ids=job.request_ids, deleted=deleted)
        done = JobLifecycleEvent.for_job(job, "completed", reason=f"scope forgotten: {deleted}")
        self._publish([tombstone, done], job, partition)
        flush_or_raise(self._producer, self._delivery_errors)
        log.info("forgot %s: %s", job.scope, deleted)

    def _report_lag(self) -> None:
        """Lag per assigned partition, every few seconds, from the high watermarks librdkafka
        already has from its fetches (a live query per partition would stall this loop)."""
        now = time.monotonic()
        if now - self._lag_checked_at < self._settings.timer_interval_s or not self.assigned:
            return
        self._lag_checked_at = now
        for tp in self._consumer.assignment():
            _, high = self._consumer.get_watermark_offsets(tp, cached=True)
            position = self._position(tp.topic, tp.partition)  # the jobs topic too: its committed offset
            if position is not None and high >= 0:
                CONSUMER_LAG.labels(tp.topic, str(tp.partition)).set(max(high - position, 0))
                self._lag_series.add((tp.topic, tp.partition))

    def _publish(self, events, job: DreamJob, partition: int) -> None:
        for event in events:
            key, value, headers = audit_record(event, self._settings, "consolidation")  # CloudEvents headers
            self._producer.produce(
                self._topics.audit, key=key, value=value, headers=headers,
                partition=partition, on_delivery=self._on_delivery,
            )
        self._producer.poll(0)

    def _on_delivery(self, err: KafkaError | None, msg: Message) -> None:
        if err is not None:
            self._delivery_errors.append(f"{msg.topic()}: {err}")

    def _commit_job(self, msg: Message) -> None:
        self._positions[(msg.topic(), msg.partition())] = msg.offset() + 1
        self._consumer.commit(offsets=[TopicPartition(msg.topic(), msg.partition(), msg.offset() + 1)], asynchronous=False)
