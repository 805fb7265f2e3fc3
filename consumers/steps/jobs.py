"""Job steps: queue dream jobs per partition until the index has caught up with their
watermarks, then run each (a dream pass or a forget), publish its events and commit it.

Order for one job: run the pass (Qdrant) → publish and flush its audit events → mark it
published → commit the job offset. A crash at any point redelivers the job, and the pass
recognises one it already ran.

No job stops the partition: an invalid job is logged and committed; a pass that raises anything
but an unreachable store (which is retried here, since the store is this step's resource) is
published as `failed` with the error and committed, so the next job runs.
"""

from __future__ import annotations

import logging
from collections import defaultdict, deque
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from confluent_kafka import OFFSET_INVALID, TopicPartition
from pydantic import ValidationError

from consumers.runtime import Runtime
from consumers.steps.commit import CommitStep
from consumers.steps.publish import PublishStep
from dreaming.dream_pass import PassResult
from dreaming.forget import forget_scope
from dreaming.pass_metrics import record_pass
from dreaming.store.transient import StoreUnavailable, is_transient_store
from plumbing.kafka_errors import is_transient_kafka_call
from plumbing.retry import GaveUp, Retrier, Stopping
from schemas import ControlEvent, DreamJob, JobLifecycleEvent, ScopeForgottenEvent, make_event_id
from schemas.errors import describe_validation_error
from schemas.settings import Settings

log = logging.getLogger(__name__)
T = TypeVar("T")
MAX_QUEUED_JOBS = 100


def _store_down(err: BaseException) -> bool:
    return isinstance(err, StoreUnavailable) or is_transient_store(err)


class Positions:
    """How far the index has read each (topic, partition): from this process's own commits, or
    on first use from the group's committed offset."""

    def __init__(self, consumer: Any, retrier: Retrier) -> None:
        self._consumer = consumer
        self._retrier = retrier
        self._known: dict[tuple[str, int], int] = {}

    def update(self, positions: dict[tuple[str, int], int]) -> None:
        self._known.update(positions)

    def forget(self, topic: str, partition: int) -> None:
        self._known.pop((topic, partition), None)

    def get(self, topic: str, partition: int) -> int:
        key = (topic, partition)
        if key not in self._known:
            committed = self._retrier.call(
                "read committed offset",
                lambda: self._consumer.committed([TopicPartition(topic, partition)], timeout=10)[0],
                is_transient_kafka_call,
            )
            self._known[key] = committed.offset if committed.offset != OFFSET_INVALID else 0
        return self._known[key]

    def known(self, topic: str, partition: int) -> int | None:
        return self._known.get((topic, partition))


class JobStep:
    def __init__(
        self,
        settings: Settings,
        runtime: Runtime,
        consumer: Any,
        positions: Positions,
        publish: PublishStep,
        commit: CommitStep,
        store_retrier: Retrier,
        control: PublishStep | None = None,
    ) -> None:
        """`control` publishes the follow-up trigger of a pass that left new messages unread."""
        self._settings = settings
        self._runtime = runtime
        self._consumer = consumer
        self._positions = positions
        self._publish = publish
        self._commit = commit
        self._store = store_retrier
        self._control = control
        self._topic = settings.topics.jobs
        self._queued: dict[int, deque[Any]] = defaultdict(deque)
        self._paused: set[int] = set()
        self._ran: dict[int, dict[str, PassResult]] = defaultdict(dict)
        """Per partition: passes run as a group (`_run_group`) whose jobs are not published yet."""
        self.passes_run = 0

    # --- lifecycle
    def submit(self, msg: Any) -> None:
        queue = self._queued[msg.partition()]
        queue.append(msg)
        if len(queue) >= MAX_QUEUED_JOBS and msg.partition() not in self._paused:
            self._consumer.pause([TopicPartition(self._topic, msg.partition())])
            self._paused.add(msg.partition())

    def poll(self) -> None:
        """Run every queued job whose watermarks the index has reached, in partition order."""
        for partition, queue in list(self._queued.items()):
            while queue:
                msg = queue[0]
                job = self._decode(msg)
                if job is not None:
                    if not self._caught_up(job, partition):
                        break
                    if job.trigger != "forget" and job.job_id not in self._ran[partition]:
                        self._run_group(job, queue, partition)
                    self._execute(job, partition)
                done = {(msg.topic(), partition): msg.offset() + 1}
                if not self._commit.commit_now(done):
                    # The group gave the partition to another member, which redelivers these jobs:
                    # running more of them here would make two writers of one scope.
                    self.revoke(partition)
                    break
                self._positions.update(done)  # the jobs topic's lag is measured from here
                queue.popleft()
            if not queue and partition in self._paused:
                self._consumer.resume([TopicPartition(self._topic, partition)])
                self._paused.discard(partition)

    def join(self) -> None:
        self.poll()

    def close(self) -> None:
        self._queued.clear()
        self._paused.clear()
        self._ran.clear()

    def revoke(self, partition: int) -> None:
        """Queued jobs of a revoked partition were never committed: the next owner gets them (a
        pass already run is recognised there as a duplicate and its events published again)."""
        self._queued.pop(partition, None)
        self._paused.discard(partition)
        self._ran.pop(partition, None)

    @property
    def waiting(self) -> int:
        return sum(len(q) for q in self._queued.values())

    # --- one job
    def _decode(self, msg: Any) -> DreamJob | None:
        try:
            return DreamJob.model_validate_json(msg.value() or b"")
        except ValidationError as err:
            log.error(
                "invalid job at %s[%d]@%d skipped: %s",
                msg.topic(),
                msg.partition(),
                msg.offset(),
                describe_validation_error(err),
            )
            return None

    def _caught_up(self, job: DreamJob, partition: int) -> bool:
        return all(self._positions.get(topic, partition) >= mark for topic, mark in job.watermarks.items())

    def _group(self, head: DreamJob, queue: deque[Any], partition: int) -> list[DreamJob]:
        """`head` and the ready dream jobs right behind it, of distinct scopes, up to `pass_group`."""
        group, scopes = [head], {head.scope}
        for msg in list(queue)[1 : self._settings.pass_group]:
            try:
                job = DreamJob.model_validate_json(msg.value() or b"")
            except ValidationError:
                break  # logged and skipped when its turn comes
            if job.trigger == "forget" or job.scope in scopes or not self._caught_up(job, partition):
                break
            group.append(job)
            scopes.add(job.scope)
        return group

    def _run_group(self, head: DreamJob, queue: deque[Any], partition: int) -> None:
        """Run the passes of `head` and the ready jobs behind it as one group (`DreamPass.run_many`:
        their first embeddings in one model call); each is then published and committed in order
        as if it had run alone. A lone job runs alone."""
        group = self._group(head, queue, partition)
        if len(group) < 2:
            return
        for job in group:
            self._publish.submit([JobLifecycleEvent.for_job(job, "running")], job.scope, partition)
        try:
            results = self._locked(lambda: self._runtime.dream_pass.run_many(group), "dream passes")
        except (GaveUp, Stopping):
            raise
        except Exception:
            # Each pass records its own failures; this is one the group could not: the jobs run alone.
            log.exception("passes of %d jobs on partition %d raised; each runs alone", len(group), partition)
            return
        self._ran[partition].update((job.job_id, result) for job, result in zip(group, results))

    def _execute(self, job: DreamJob, partition: int) -> None:
        if job.trigger == "forget":
            self._forget(job, partition)
            return
        result: PassResult | None = self._ran[partition].pop(job.job_id, None)
        if result is None:
            self._publish.submit([JobLifecycleEvent.for_job(job, "running")], job.scope, partition)
            result = self._run_pass(job, partition)
        if result is None:  # the pass raised: published as failed, nothing recorded
            return
        if result.status == "duplicate":
            log.info("job %s on %s already ran; republishing %d events", job.job_id, job.scope, len(result.events))
        self._publish.submit(result.events, job.scope, partition)
        self._publish.join()
        self._ask_for_the_rest(job, result, partition)
        self._locked(lambda: self._runtime.dream_pass.mark_published(job), "mark job published")
        self.passes_run += 1
        record_pass(result, self._settings.engine)

    def _ask_for_the_rest(self, job: DreamJob, result: PassResult, partition: int) -> None:
        """A pass that read only part of its new messages (the model's call budget) asks for the
        next pass at once: a manual trigger on the control topic, which the stream worker turns into
        a job after this one's outcome. Its request id derives from the job, so a rerun asks once."""
        unread = result.engine.unread_message_ids if result.engine else frozenset()
        if self._control is None or not unread or result.status not in ("completed", "no-op"):
            return
        request = ControlEvent(
            scope=job.scope,
            action="trigger",
            request_id=make_event_id(job.job_id, "continue"),
            reason=f"continue after {job.job_id}: {len(unread)} new messages left for the next pass",
        )
        self._control.submit([request], job.scope, partition)
        self._control.join()
        log.info("pass %s on %s left %d new messages: next pass requested", job.job_id, job.scope, len(unread))

    def _run_pass(self, job: DreamJob, partition: int) -> PassResult | None:
        try:
            return self._locked(lambda: self._runtime.dream_pass.run(job), "dream pass")
        except (GaveUp, Stopping):
            raise
        except Exception as err:
            # The pass records its own failures; this is one it could not record (its store
            # refused the diary write, say). Say so, and let the partition go on.
            log.exception("pass %s on %s raised; published as failed", job.job_id, job.scope)
            failed = JobLifecycleEvent.for_job(job, "failed", reason=f"pass raised {type(err).__name__}: {err}"[:1000])
            self._publish.submit([failed], job.scope, partition)
            self._publish.join()
            return None

    def _forget(self, job: DreamJob, partition: int) -> None:
        runtime = self._runtime
        extra = {"corrections": runtime.corrections.collection, "steering": runtime.steering.collection}
        deleted = self._locked(
            lambda: forget_scope(
                runtime.client, runtime.memories, runtime.transcripts, runtime.diary, job.scope, extra
            ),
            "forget",
        )
        tombstone = ScopeForgottenEvent(
            event_id=make_event_id(job.job_id, "forgotten"),
            scope=job.scope,
            job_id=job.job_id,
            ts=datetime.now(UTC),
            request_ids=job.request_ids,
            deleted=deleted,
        )
        done = JobLifecycleEvent.for_job(job, "completed", reason=f"scope forgotten: {deleted}")
        self._publish.submit([tombstone, done], job.scope, partition)
        self._publish.join()
        log.info("forgot %s: %s", job.scope, deleted)

    def _locked(self, fn: Callable[[], T], operation: str) -> T:
        def call() -> T:
            with self._runtime.lock:
                return fn()

        return self._store.call(operation, call, _store_down)
