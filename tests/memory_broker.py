"""An in-memory stand-in for the part of confluent-kafka the consolidation worker uses, so its
steps run in unit tests (as arroyo's LocalBroker). The same contract tests also run on Kafka.

One consumer per group, owning every partition; keys map to partitions by murmur2, as on a real
broker, so co-partitioning and the validator's home-partition check hold. Faults are injected
by the test: `outage()` makes every call fail as an unreachable broker does, `fail_next()` makes
one named call raise a chosen error.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

from confluent_kafka import OFFSET_INVALID, KafkaError, KafkaException, TopicPartition

from schemas.validation import home_partition

Headers: TypeAlias = list[tuple[str, bytes]]


@dataclass
class MemoryMessage:
    _topic: str
    _partition: int
    _offset: int
    _key: bytes | None
    _value: bytes | None
    _error: KafkaError | None = None
    _headers: Headers | None = None

    def headers(self) -> Headers | None:
        return self._headers

    def topic(self) -> str:
        return self._topic

    def partition(self) -> int:
        return self._partition

    def offset(self) -> int:
        return self._offset

    def key(self) -> bytes | None:
        return self._key

    def value(self) -> bytes | None:
        return self._value

    def error(self) -> KafkaError | None:
        return self._error


RebalanceCallback: TypeAlias = Callable[["MemoryConsumer", list[TopicPartition]], None]
"""on_assign / on_revoke: (consumer, partitions), as confluent-kafka calls them."""
DeliveryCallback: TypeAlias = Callable[[KafkaError | None, MemoryMessage], None]
"""on_delivery: (error or None, message), as confluent-kafka calls it."""


class MemoryBroker:
    def __init__(self, partitions: int = 2) -> None:
        self.partitions = partitions
        self.logs: dict[str, list[list[MemoryMessage]]] = {}
        self.commits: dict[str, dict[tuple[str, int], int]] = defaultdict(dict)
        self._faults: dict[str, list[BaseException]] = defaultdict(list)
        self._down = threading.Event()
        self.lock = threading.RLock()

    # --- faults
    def outage(self, down: bool = True) -> None:
        if down:
            self._down.set()
        else:
            self._down.clear()

    @property
    def down(self) -> bool:
        return self._down.is_set()

    def fail_next(self, call: str, error: BaseException, times: int = 1) -> None:
        """Make the next `times` calls named `call` ("commit", "committed", "produce", "consume") raise."""
        self._faults[call].extend([error] * times)

    def check(self, call: str) -> None:
        if self._faults[call]:
            raise self._faults[call].pop(0)
        if self.down:
            raise KafkaException(KafkaError(KafkaError._TRANSPORT, "broker down (in-memory outage)"))

    # --- log
    def partition_for(self, key: bytes | None) -> int:
        return home_partition(key or b"", self.partitions)

    def append(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        partition: int | None = None,
        headers: Headers | None = None,
    ) -> MemoryMessage:
        with self.lock:
            parts = self.logs.setdefault(topic, [[] for _ in range(self.partitions)])
            p = self.partition_for(key) if partition is None or partition < 0 else partition
            msg = MemoryMessage(topic, p, len(parts[p]), key, value, None, headers)
            parts[p].append(msg)
            return msg

    def messages(self, topic: str) -> list[MemoryMessage]:
        with self.lock:
            return [m for part in self.logs.get(topic, []) for m in part]

    def consumer(self, group: str) -> MemoryConsumer:
        return MemoryConsumer(self, group)

    def producer(self) -> MemoryProducer:
        return MemoryProducer(self)


class MemoryConsumer:
    def __init__(self, broker: MemoryBroker, group: str) -> None:
        self._broker = broker
        self._group = group
        self._topics: list[str] = []
        self._positions: dict[tuple[str, int], int] = {}
        self._paused: set[tuple[str, int]] = set()
        self._on_assign: RebalanceCallback | None = None
        self._on_revoke: RebalanceCallback | None = None
        self._assigned = False
        self.closed = False

    def subscribe(
        self,
        topics: list[str],
        on_assign: RebalanceCallback | None = None,
        on_revoke: RebalanceCallback | None = None,
    ) -> None:
        self._topics = list(topics)
        self._on_assign, self._on_revoke = on_assign, on_revoke

    def assignment(self) -> list[TopicPartition]:
        return (
            [TopicPartition(t, p) for t in self._topics for p in range(self._broker.partitions)]
            if self._assigned
            else []
        )

    def _assign(self) -> None:
        self._assigned = True
        committed = self._broker.commits[self._group]
        for tp in self.assignment():
            self._positions[(tp.topic, tp.partition)] = committed.get((tp.topic, tp.partition), 0)
        if self._on_assign:
            self._on_assign(self, self.assignment())

    def revoke_all(self) -> None:
        """A rebalance that takes every partition away; the next consume() assigns them again."""
        if self._assigned and self._on_revoke:
            self._on_revoke(self, self.assignment())
        self._assigned = False

    def consume(self, num_messages: int = 1, timeout: float = -1) -> list[MemoryMessage]:
        if self._broker._faults["consume"]:
            err = self._broker._faults["consume"].pop(0)
            code = err.args[0] if isinstance(err, KafkaException) else KafkaError(KafkaError._FAIL, str(err))
            return [MemoryMessage("", -1, -1, None, None, code)]
        if self._broker.down:
            time.sleep(min(max(timeout, 0), 0.05))
            return [MemoryMessage("", -1, -1, None, None, KafkaError(KafkaError._TRANSPORT, "broker down"))]
        if not self._assigned:
            self._assign()
        out: list[MemoryMessage] = []
        with self._broker.lock:
            for (topic, partition), position in sorted(self._positions.items()):
                if (topic, partition) in self._paused:
                    continue
                log = self._broker.logs.get(topic, [[] for _ in range(self._broker.partitions)])[partition]
                batch = log[position : position + num_messages - len(out)]
                out.extend(batch)
                self._positions[(topic, partition)] = position + len(batch)
                if len(out) >= num_messages:
                    break
        if not out:
            time.sleep(min(max(timeout, 0), 0.02))
        return out

    def commit(self, offsets: list[TopicPartition] | None = None, asynchronous: bool = True) -> None:
        self._broker.check("commit")
        for tp in offsets or []:
            self._broker.commits[self._group][(tp.topic, tp.partition)] = tp.offset

    def committed(self, partitions: list[TopicPartition], timeout: float = -1) -> list[TopicPartition]:
        self._broker.check("committed")
        stored = self._broker.commits[self._group]
        return [
            TopicPartition(tp.topic, tp.partition, stored.get((tp.topic, tp.partition), OFFSET_INVALID))
            for tp in partitions
        ]

    def pause(self, partitions: list[TopicPartition]) -> None:
        self._paused.update((tp.topic, tp.partition) for tp in partitions)

    def resume(self, partitions: list[TopicPartition]) -> None:
        self._paused.difference_update((tp.topic, tp.partition) for tp in partitions)

    def get_watermark_offsets(
        self, tp: TopicPartition, timeout: float | None = None, cached: bool = False
    ) -> tuple[int, int]:
        with self._broker.lock:
            parts = self._broker.logs.get(tp.topic)
            return 0, (len(parts[tp.partition]) if parts else 0)

    def close(self) -> None:
        self.closed = True


class MemoryProducer:
    """Delivery happens in poll()/flush(), as with librdkafka; during an outage nothing is
    delivered and flush() returns how many messages are still waiting."""

    def __init__(self, broker: MemoryBroker) -> None:
        self._broker = broker
        self._pending: list[
            tuple[str, bytes | None, bytes | None, int | None, DeliveryCallback | None, Headers | None]
        ] = []

    def produce(
        self,
        topic: str,
        value: bytes | None = None,
        key: bytes | None = None,
        partition: int = -1,
        on_delivery: DeliveryCallback | None = None,
        headers: Headers | None = None,
    ) -> None:
        self._pending.append((topic, key, value, partition, on_delivery, headers))

    def poll(self, timeout: float = 0) -> int:
        return self._deliver()

    def flush(self, timeout: float = -1) -> int:
        self._deliver()
        if self._pending and timeout:
            time.sleep(min(max(timeout, 0), 0.05))
        return len(self._pending)

    def __len__(self) -> int:
        return len(self._pending)

    def _deliver(self) -> int:
        if self._broker.down:
            return 0
        delivered = 0
        while self._pending:
            topic, key, value, partition, on_delivery, headers = self._pending[0]
            try:
                self._broker.check("produce")
            except KafkaException as err:
                self._pending.pop(0)
                if on_delivery:
                    on_delivery(err.args[0], MemoryMessage(topic, partition or 0, -1, key, value))
                continue
            msg = self._broker.append(topic, key, value, partition, headers)
            self._pending.pop(0)
            delivered += 1
            if on_delivery:
                on_delivery(None, msg)
        return delivered
