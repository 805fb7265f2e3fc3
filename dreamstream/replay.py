"""Produce events from JSONL files onto the input topics, the way agent runtimes would.

Lines are routed by shape: `role` → turns, `memory_id` → memory-adds, `action` → control. Lines
are sent as they are (not re-serialised). `dreamstream replay` checks every line first
(`invalid_lines`) and refuses a file with bad lines, naming them, unless told to skip them;
the library path (`read_events` + `produce`) sends what it is given, so tests can still put
malformed events on the topics and watch the stream worker dead-letter them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka import KafkaError, Message
from pydantic import BaseModel, ValidationError

from plumbing.kafka_io import PRODUCER_HEADER, flush_or_raise, make_producer
from schemas import ControlEvent, ConversationTurn, MemoryAdd
from schemas.errors import describe_validation_error
from schemas.settings import Settings
from schemas.topics import TopicCatalog
from schemas.validation import json_too_deep


@dataclass(frozen=True)
class RawEvent:
    topic: str
    key: bytes | None
    value: bytes
    ts: str
    """Sort key: the event's own timestamp, so files of turns and memory-adds interleave in time."""
    source: str = ""
    """`file:line` it was read from."""


def route(line: bytes, topics: TopicCatalog) -> RawEvent:
    if json_too_deep(line):  # json.loads would raise RecursionError; the check below names it
        return RawEvent(topics.turns, None, line, "")
    try:
        data = json.loads(line)
    except (ValueError, UnicodeDecodeError):  # not JSON, or an integer of over 4,300 digits
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
            for number, line in enumerate(handle, 1):
                if line.strip():
                    event = route(line.rstrip(b"\r\n"), topics)
                    events.append(RawEvent(event.topic, event.key, event.value, event.ts, f"{path}:{number}"))
    # Stable: events without a timestamp keep their file order at the front.
    return sorted(events, key=lambda e: e.ts)


def invalid_lines(events: Iterable[RawEvent], topics: TopicCatalog, max_bytes: int) -> list[tuple[str, str]]:
    """(`file:line`, reason) for every event the stream worker would dead-letter, in file order."""
    models: dict[str, type[BaseModel]] = {
        topics.turns: ConversationTurn,
        topics.memory_adds: MemoryAdd,
        topics.control: ControlEvent,
    }
    bad = []
    for event in events:
        reason = _problem(event, models[event.topic], max_bytes)
        if reason:
            bad.append((event.source, reason))
    return sorted(bad, key=lambda b: _line_order(b[0]))


def _problem(event: RawEvent, model: type[BaseModel], max_bytes: int) -> str | None:
    if len(event.value) > max_bytes:
        return f"{len(event.value)} bytes, over the limit of {max_bytes}"
    try:
        model.model_validate_json(event.value)
    except ValidationError as err:
        return f"not a valid {model.__name__}: {describe_validation_error(err, limit=2)}"
    return None


def _line_order(source: str) -> tuple[str, int]:
    path, _, number = source.rpartition(":")
    return path, int(number) if number.isdigit() else 0


REPLAY_PRODUCER = "dreamstream-replay"
"""The `producer` header replayed records carry: list it in `trusted_producers` to let replayed
memory-adds keep their `protected` flag (the demo and the tests do)."""
REPLAY_HEADERS: list[tuple[str, str | bytes | None]] = [(PRODUCER_HEADER, REPLAY_PRODUCER.encode())]


def produce(
    settings: Settings, events: list[RawEvent], on_progress: Callable[[int], None] | None = None
) -> dict[str, int]:
    producer = make_producer(settings)
    errors: list[str] = []

    def delivered(err: KafkaError | None, _msg: Message) -> None:
        if err is not None:
            errors.append(str(err))

    counts: dict[str, int] = {}
    for i, event in enumerate(events, 1):
        while True:
            try:
                producer.produce(
                    event.topic, key=event.key, value=event.value, on_delivery=delivered, headers=REPLAY_HEADERS
                )
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
