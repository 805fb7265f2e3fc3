"""confluent-kafka clients configured the one way this project needs them."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable

from confluent_kafka import Consumer, KafkaException, Producer

from schemas import ControlEvent
from schemas.settings import Settings

# librdkafka's own log lines go through Python logging (not straight to stderr), so each process
# decides what to show; transient ones like "Coordinator load in progress: retrying" are warnings.
KAFKA_LOG = logging.getLogger("dreamstream.kafka")

PRODUCER_HEADER = "producer"
"""Kafka header naming who produced a record; `trusted_producers` lists the memory-add producers
whose `protected: true` is honoured. It is only as trustworthy as the ACLs on the topic."""
API_PRODUCER = "dreamstream-api"
"""The consolidation worker's HTTP API stamps this on what it produces (memory-adds, corrections,
steering). The consolidation worker trusts it for a correction's `operator` role, which the API
gives only to holders of the operator token."""


def make_producer(settings: Settings, **extra: object) -> Producer:
    """Idempotent, acks=all, and murmur2 partitioning so a scope key lands in the same partition
    as it does from Java and aiokafka (Faust) producers."""
    config = {
        **settings.kafka_client_config(),
        "enable.idempotence": True,
        "acks": "all",
        "linger.ms": 5,
        "partitioner": "murmur2_random",
        "logger": KAFKA_LOG,
        **extra,
    }
    return Producer(config)


def make_consumer(settings: Settings, group_id: str, **extra: object) -> Consumer:
    """Manual commits only, and the range assignor: with every topic at the same partition count
    it gives one member partition p of every subscribed topic (co-partitioning)."""
    config = {
        **settings.kafka_client_config(),
        "group.id": group_id,
        "enable.auto.commit": False,
        "enable.auto.offset.store": False,
        "auto.offset.reset": "earliest",
        "partition.assignment.strategy": "range",
        "session.timeout.ms": settings.session_timeout_ms,
        "heartbeat.interval.ms": max(settings.session_timeout_ms // 3, 500),
        "max.poll.interval.ms": 900_000,  # an LLM-backed pass may take minutes
        "logger": KAFKA_LOG,
        **extra,
    }
    return Consumer(config)


class DeliveryFailed(KafkaException):
    """The broker refused or lost an output: the input offsets behind it must never be committed."""


def flush_or_raise(producer: Producer, errors: list[str], timeout_s: float = 30.0) -> None:
    """Flush and fail loudly if anything was not delivered: offsets must not move past a loss."""
    remaining = producer.flush(timeout_s)
    if remaining:
        raise DeliveryFailed(f"{remaining} messages still undelivered after {timeout_s}s")
    if errors:
        failed = "; ".join(errors[:3])
        errors.clear()
        raise DeliveryFailed(f"delivery failed: {failed}")


def send_control(
    settings: Settings, scopes: Iterable[str], action: str = "trigger", reason: str = ""
) -> dict[str, str]:
    """One control event per scope; returns request id → scope."""
    producer = make_producer(settings)
    errors: list[str] = []
    requests: dict[str, str] = {}
    for scope in scopes:
        request_id = f"req-{uuid.uuid4().hex[:12]}"
        event = ControlEvent(scope=scope, action=action, request_id=request_id, reason=reason)
        producer.produce(
            settings.topics.control,
            key=scope.encode(),
            value=event.model_dump_json(exclude_none=True).encode(),  # plain events read as before
            on_delivery=lambda err, msg: None if err is None else errors.append(str(err)),
        )
        requests[request_id] = scope
    flush_or_raise(producer, errors)
    return requests
