"""The stream worker's consumer lag: messages behind the end of each assigned partition, from the
high watermarks librdkafka last saw (no request to the broker), every `interval_s`."""

from __future__ import annotations

import time
from typing import Any

from confluent_kafka import KafkaException, TopicPartition

from plumbing.metrics import CONSUMER_LAG


class LagReport:
    def __init__(self, consumer: Any, interval_s: float = 10.0) -> None:
        self._consumer = consumer
        self._interval_s = interval_s
        self._at = 0.0
        self._series: set[tuple[str, int]] = set()
        self.assigned: list[TopicPartition] = []

    def assign(self, partitions: list[TopicPartition]) -> None:
        self.assigned = list(partitions)
        self._at = 0.0  # report the new partitions' lag at once

    def drop(self, partitions: list[TopicPartition]) -> None:
        """Revoked or lost partitions are no longer this worker's to report."""
        gone = {(tp.topic, tp.partition) for tp in partitions}
        for key in gone & self._series:
            self._series.discard(key)
            CONSUMER_LAG.remove(key[0], str(key[1]))
        self.assigned = [tp for tp in self.assigned if (tp.topic, tp.partition) not in gone]

    def poll(self) -> None:
        now = time.monotonic()
        if now < self._at:
            return
        self._at = now + self._interval_s
        if not self.assigned:
            return
        try:
            positions = self._consumer.position(self.assigned)
        except KafkaException:
            return
        for tp in positions:
            try:
                _, high = self._consumer.get_watermark_offsets(tp, cached=True)
            except KafkaException:
                continue
            if high is None or high < 0:
                continue
            position = tp.offset if tp.offset >= 0 else 0
            CONSUMER_LAG.labels(tp.topic, str(tp.partition)).set(max(high - position, 0))
            self._series.add((tp.topic, tp.partition))
