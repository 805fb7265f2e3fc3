"""Publish audit events outside a pass (operator decisions) the way the worker publishes a pass's:
keyed by scope, CloudEvents headers, optional Schema Registry framing, flushed before returning."""

from __future__ import annotations

from confluent_kafka import KafkaError, Message, Producer

from plumbing.kafka_io import flush_or_raise, make_producer
from schemas.audit import AuditEvent
from schemas.cloudevents import audit_record
from schemas.settings import Settings


class AuditPublisher:
    def __init__(self, settings: Settings, producer_name: str) -> None:
        self._settings = settings
        self._name = producer_name
        self._producer: Producer | None = None
        self._errors: list[str] = []

    def __call__(self, event: AuditEvent) -> None:
        """Deliver one event; raises DeliveryFailed when Kafka did not take it."""
        if self._producer is None:  # only a process that decides something needs a producer
            self._producer = make_producer(self._settings)
        key, value, headers = audit_record(event, self._settings, self._name)

        def on_delivery(err: KafkaError | None, msg: Message) -> None:
            if err:
                self._errors.append(str(err))

        self._producer.produce(
            self._settings.topics.audit,
            key=key,
            value=value,
            headers=list(headers),  # a list of the wider header type the stubs ask for (lists are invariant)
            on_delivery=on_delivery,
        )
        flush_or_raise(self._producer, self._errors)
