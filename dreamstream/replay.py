"""Produce events from JSONL files onto the input topics, the way agent runtimes would.

Lines are routed by shape: `role` → turns, `memory_id` → memory-adds, `action` → control. Lines
are sent as they are (not re-serialised), so a malformed line reaches the stream worker and is
dead-lettered there with its reason, exactly as it would be in production.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from consumers.kafka_io import PRODUCER_HEADER, flush_or_raise, make_producer
from schemas.settings import Settings
from schemas.topics import TopicCatalog


@dataclass(frozen=True)
class RawEvent:
    topic: str
    key: bytes | None
    value: bytes
    ts: str
    """Sort key: the event's own timestamp, so files of turns and memory-adds interleave in time."""


def route(line: bytes, topics: TopicCatalog) -> RawEvent:
    try:
        data = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return RawEvent(topics.turns, None, line, "")
    if not isinstance(data, dict):
        return RawEvent(topics.turns, None, line, "")
    scope = data.get("scope")
    key = scope.encode() if isinstance(scope, str) else None
    topic = topics.memory_adds if "memory_id" in data else topics.control if "action" in data else topics.turns
    return RawEvent(topic, key, line, str(data.get("ts", "")))


def read_events(paths: Iterable[Path], topics: TopicCatalog) -> list[RawEvent]:
    events: list[RawEvent] = []
    for path in paths:
        with open(path, "rb") as handle:
            events.extend(route(line.rstrip(b"\r\n"), topics) for line in handle if line.strip())
    # Stable: events without a timestamp keep their file order at the front.
    return sorted(events, key=lambda e: e.ts)


REPLAY_PRODUCER = "dreamstream-replay"
"""The `producer` header replayed records carry: list it in `trusted_producers` to let replayed
memory-adds keep their `protected` flag (the demo and the tests do)."""
REPLAY_HEADERS = [(PRODUCER_HEADER, REPLAY_PRODUCER.encode())]


def produce(settings: Settings, events: list[RawEvent], on_progress: Callable[[int], None] | None = None) -> dict[str, int]:
    producer = make_producer(settings)
    errors: list[str] = []

    def delivered(err, msg) -> None:
        if err is not None:
            errors.append(str(err))

    counts: dict[str, int] = {}
    for i, event in enumerate(events, 1):
        while True:
            try:
                producer.produce(event.topic, key=event.key, value=event.value, on_delivery=delivered,
                                 headers=REPLAY_HEADERS)
                break
            except BufferError:  # local queue full: let deliveries drain, then retry
                producer.poll(0.5)
        counts[event.topic] = counts.get(event.topic, 0) + 1
        if on_progress and i % 1000 == 0:
            on_progress(1000)
        producer.poll(0)
    flush_or_raise(producer, errors)
    if on_progress:
        on_progress(len(events) % 1000)
    return counts
