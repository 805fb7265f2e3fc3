"""Publish step: audit events to the audit topic, keyed by scope, into the job's partition.

`join()` returns only when every submitted event is delivered: offsets must not move past an
event that never went out. A broker that is away is waited for (bounded backoff, one warning per
interval, counted); a delivery error retrying cannot fix (authorisation, a record too large)
raises DeliveryFailed naming it. The producer never expires a message itself
(`message.timeout.ms=0`), so an outage delays events and never drops one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from confluent_kafka import KafkaError

from plumbing.kafka_errors import is_transient_kafka
from plumbing.kafka_io import DeliveryFailed
from plumbing.retry import Retrier

log = logging.getLogger(__name__)
PRODUCER_CONFIG = {"message.timeout.ms": 0}
"""What the worker's producer needs on top of kafka_io.make_producer (0 = never expire)."""


Record = tuple[bytes, bytes, list[tuple[str, bytes]]]


class Undelivered(RuntimeError):
    """Events still waiting for the broker (transient by definition)."""


class PublishStep:
    def __init__(
        self,
        producer: Any,
        topic: str,
        retrier: Retrier,
        flush_slice_s: float = 1.0,
        record: Callable[[Any], Record] | None = None,
    ) -> None:
        """`record` turns an event into its Kafka record (key, value, headers): the CloudEvents
        headers and optional Schema Registry framing of `schemas.cloudevents.audit_record`."""
        self._producer = producer
        self._topic = topic
        self._retrier = retrier
        self._flush_slice_s = flush_slice_s
        self._record = record or (lambda event: (event.scope.encode(), event.model_dump_json().encode(), []))
        self._failed: list[tuple[KafkaError, bytes | None, bytes | None, int, list[tuple[str, bytes]]]] = []

    def submit(self, events: Iterable[Any], key: str, partition: int) -> None:
        for event in events:
            _, value, headers = self._record(event)
            self._produce(key.encode(), value, partition, headers)
        self._producer.poll(0)

    def poll(self) -> None:
        self._producer.poll(0)

    def join(self) -> None:
        self._retrier.call("deliver audit events", self._flush_once, lambda err: isinstance(err, Undelivered))

    def close(self, timeout_s: float = 10.0) -> None:
        remaining = self._producer.flush(timeout_s)
        if remaining:
            log.warning("%d audit events undelivered at close: their jobs were not committed and rerun", remaining)

    def _produce(
        self, key: bytes | None, value: bytes | None, partition: int, headers: list[tuple[str, bytes]] | None = None
    ) -> None:
        def on_delivery(err: KafkaError | None, msg: Any) -> None:
            if err is not None:
                self._failed.append((err, key, value, partition, headers or []))

        self._producer.produce(
            self._topic, key=key, value=value, partition=partition, headers=headers or None, on_delivery=on_delivery
        )

    def _flush_once(self) -> None:
        remaining = self._producer.flush(self._flush_slice_s)
        failed, self._failed = self._failed, []
        for err, key, value, partition, headers in failed:
            if not is_transient_kafka(err):
                raise DeliveryFailed(
                    f"audit event to {self._topic}[{partition}] cannot be delivered: {err.str()} "
                    f"({err.name()}); retrying will not help"
                )
            self._produce(key, value, partition, headers)  # same bytes, same event id: readers dedupe on it
        if remaining or failed:
            raise Undelivered(f"{remaining + len(failed)} audit events not yet delivered to {self._topic}")
