"""Commit step: consumer offsets, committed synchronously after the work they cover is durable.

Transient refusals (NOT_COORDINATOR right after a broker restart, a coordinator still loading,
a timeout) are retried with backoff. A commit refused because the group has moved on (the
partition is someone else's now) is not an error: the new owner gets the uncommitted work again,
and the pass recognises a job it already ran.
"""

from __future__ import annotations

import logging
from typing import Any

from confluent_kafka import KafkaException, TopicPartition

from plumbing.kafka_errors import is_partition_lost, is_transient_kafka_call, kafka_error
from plumbing.retry import Retrier
from plumbing.step import Offsets

log = logging.getLogger(__name__)


class CommitStep:
    """A `plumbing.step.Step[[Offsets]]`: the last step, nothing follows it."""

    def __init__(self, consumer: Any, retrier: Retrier) -> None:
        self._consumer = consumer
        self._retrier = retrier
        self._staged: Offsets = {}
        self.lost_commits = 0

    def submit(self, offsets: Offsets) -> None:
        for key, offset in offsets.items():
            self._staged[key] = max(offset, self._staged.get(key, 0))

    def poll(self) -> None:
        if self._staged:
            self.join()

    def join(self) -> None:
        """Commit what was submitted (a refusal after a rebalance is left to the new owner)."""
        self._commit_staged()

    def commit_now(self, offsets: Offsets) -> bool:
        """Commit these offsets (and any staged) at once; False when the group took the partitions
        away first, so the caller stops working on them."""
        self.submit(offsets)
        return self._commit_staged()

    def _commit_staged(self) -> bool:
        staged, self._staged = self._staged, {}
        if not staged:
            return True
        offsets = [TopicPartition(t, p, o) for (t, p), o in staged.items()]
        try:
            self._retrier.call(
                "commit offsets",
                lambda: self._consumer.commit(offsets=offsets, asynchronous=False),
                is_transient_kafka_call,
            )
        except KafkaException as err:
            error = kafka_error(err)
            if error is None or not is_partition_lost(error):
                raise
            self.lost_commits += 1
            log.warning(
                "commit of %s refused (%s): the partitions moved to another member, which redelivers them",
                sorted(staged),
                error.name(),
            )
            return False
        return True

    def close(self) -> None:
        self.poll()
