"""Commit step of the stream worker: input offsets, once `OutputStep` has handed them on (every
output of their batch and of every earlier batch acknowledged by the broker).

`poll` commits asynchronously, at most every `interval_s` (a commit per batch would cost the
loop a request per few milliseconds); `join` commits synchronously (on revocation, at close,
before a storm stops the worker). A refused commit is not retried: the offsets are read again
by whoever owns the partitions next, and the rows recognise what they already hold.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from confluent_kafka import KafkaException, TopicPartition

from plumbing.kafka_errors import is_partition_lost, kafka_error
from plumbing.step import Offsets

log = logging.getLogger("streams.loop")


class OffsetCommitStep:
    """A `plumbing.step.Step[[Offsets]]`: the last step, nothing follows it."""

    def __init__(self, consumer: Any, interval_s: float = 0.2) -> None:
        self._consumer = consumer
        self._interval_s = interval_s
        self._staged: Offsets = {}
        self._at = 0.0

    def submit(self, offsets: Offsets) -> None:
        """Offsets arrive in publication order, so a later one replaces an earlier one."""
        self._staged.update(offsets)

    def poll(self) -> None:
        if self._staged and time.monotonic() >= self._at:
            self._commit(asynchronous=True)

    def join(self) -> None:
        if self._staged:
            self._commit(asynchronous=False)

    def discard(self) -> None:
        """Forget what is staged: the partitions were lost, another member may own them already."""
        self._staged = {}

    def close(self) -> None:
        self.discard()

    def _commit(self, asynchronous: bool) -> None:
        self._at = time.monotonic() + self._interval_s
        offsets = [TopicPartition(t, p, o) for (t, p), o in self._staged.items()]
        self._staged = {}
        try:
            self._consumer.commit(offsets=offsets, asynchronous=asynchronous)
        except KafkaException as err:
            error = kafka_error(err)
            if error is not None and is_partition_lost(error):
                log.info("commit refused (%s): the partitions moved to another member, which reads them again", error)
            else:
                log.warning("commit failed (%s); the events will be read again", err)
