"""The API's own Kafka producer: made once when the API starts, flushed when it stops.

Everything the API sends (memory-adds, corrections, steering, triggers) goes through `send`,
which waits for the broker's acknowledgement, so a 202 means the event is in Kafka; every record
carries the API's producer identity (`producer: dreamstream-api`), which the consolidation worker
trusts for a correction's operator role.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from consumers.api.params import BadRequest
from plumbing.kafka_io import API_PRODUCER, PRODUCER_HEADER, DeliveryFailed, make_producer
from schemas.settings import Settings
from schemas.validation import Kind, Rejected, validator_for

SEND_TIMEOUT_S = 30.0
_HEADERS: list[tuple[str, str | bytes | None]] = [(PRODUCER_HEADER, API_PRODUCER.encode())]


class Outbox:
    def __init__(self, settings: Settings, producer: Any = None) -> None:
        self._settings = settings
        self._producer = producer if producer is not None else make_producer(settings)
        topics = settings.topics
        self._topics: dict[Kind, str] = {
            "turns": topics.turns,
            "memory-adds": topics.memory_adds,
            "control": topics.control,
        }

    def publish(self, kind: Kind, events: Sequence[BaseModel]) -> None:
        """Check each event with the validator both workers use (a refusal is a BadRequest with
        its reason, before anything is sent), then send them all."""
        validator = validator_for(self._settings)
        records = []
        for event in events:
            scope = getattr(event, "scope", "")
            key, value = scope.encode(), event.model_dump_json(exclude_none=True).encode()
            verdict = validator.validate(kind, key, value, validator.home(key))
            if isinstance(verdict, Rejected):
                raise BadRequest(verdict.reason)
            records.append((key, value))
        self.send(self._topics[kind], records)

    def send(self, topic: str, records: Sequence[tuple[bytes, bytes]], timeout_s: float = SEND_TIMEOUT_S) -> None:
        """Produce (key, value) records to `topic`, each to its key's home partition, and return
        once the broker has acknowledged all of them; raises DeliveryFailed otherwise. Safe from
        several request threads at once (librdkafka serves each delivery to whoever polls)."""
        left = len(records)
        done = threading.Event()
        errors: list[str] = []
        guard = threading.Lock()

        def delivered(err: object, msg: object) -> None:
            nonlocal left
            with guard:
                if err is not None:
                    errors.append(str(err))
                left -= 1
                if left == 0:
                    done.set()

        for key, value in records:
            while True:
                try:
                    self._producer.produce(topic, value=value, key=key, headers=_HEADERS, on_delivery=delivered)
                    break
                except BufferError:  # the local queue is full: let deliveries drain it
                    self._producer.poll(0.1)
        deadline = time.monotonic() + timeout_s
        while not done.is_set():
            if time.monotonic() > deadline:
                raise DeliveryFailed(f"{topic}: not acknowledged by the broker within {timeout_s:.0f}s")
            self._producer.poll(0.05)
        if errors:
            raise DeliveryFailed(f"{topic}: delivery failed: {errors[0]}")

    def close(self, timeout_s: float = SEND_TIMEOUT_S) -> int:
        """Flush what is still queued; returns how many records were left undelivered."""
        return int(self._producer.flush(timeout_s))
