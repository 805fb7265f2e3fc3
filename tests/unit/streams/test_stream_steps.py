"""The stream worker's steps (fold → output → commit) on the one step contract, and the commit
order they enforce, run on the in-memory broker and (the `[kafka]` variants) on real Kafka: a
batch's offsets are committed only once everything it produced is acknowledged, a refused
output is never committed past, a storm's batch publishes nothing while what came before it is
committed."""

from __future__ import annotations

import inspect
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import OFFSET_INVALID, Consumer, KafkaError, KafkaException, TopicPartition

from plumbing.kafka_io import DeliveryFailed
from plumbing.step import Step
from schemas import ConversationTurn, DeadLetter, DreamJob
from schemas.policy import TriggerPolicy
from schemas.settings import Settings
from schemas.validation import home_partition
from streams.processor import Processor
from streams.rows import SignalTables, changelog_key
from streams.signals import ScopeSignals
from streams.steps.commit import OffsetCommitStep
from streams.steps.fold import FoldStep
from streams.steps.output import OutputStep
from streams.storm import BadInputStorm
from tests.kafka_record import Record
from tests.worker_bus import KafkaBus, MemoryBus

STEPS = [FoldStep, OutputStep, OffsetCommitStep]
POLICY = TriggerPolicy(threshold_messages=3, threshold_signals=1_000, idle_s=3_600, cooldown_s=0)
SCOPE = "harbour/tide-bot/k1"
T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.__name__)
def test_each_stream_step_has_the_four_methods_none_returning_a_value(step: type) -> None:
    assert {"submit", "poll", "join", "close"} <= set(dir(Step))
    for name in ("submit", "poll", "join", "close"):
        method = getattr(step, name)
        assert inspect.signature(method).return_annotation in (None, "None"), f"{step.__name__}.{name} returns"
        if name != "submit":
            required = [
                p
                for p in list(inspect.signature(method).parameters.values())[1:]
                if p.default is inspect.Parameter.empty
            ]
            assert required == [], f"{step.__name__}.{name} requires {[p.name for p in required]}"


@pytest.fixture(params=["memory", pytest.param("kafka", marks=pytest.mark.integration)])
def bus(request, tmp_path: Path):
    if request.param == "memory":
        made: Any = MemoryBus(Settings(home=tmp_path, partitions=2, trigger=POLICY))
    else:
        from tests.integration.kafka_env import unique_settings

        made = KafkaBus(unique_settings(request.getfixturevalue("kafka_bootstrap"), tmp_path, trigger=POLICY))
    yield made
    made.close()


class Chain:
    """The three steps as `streams.loop.StreamLoop` composes them, on the bus's clients."""

    def __init__(self, bus: Any) -> None:
        self.settings: Settings = bus.settings
        self.consumer, self.producer = bus.consumer(), bus.producer()
        self.processor = Processor(self.settings)
        self.tables = SignalTables(self.processor.policy)
        self.tables.open(range(self.settings.partitions))
        self.output = OutputStep(
            self.settings, self.producer, self.tables, self.processor.guard, OffsetCommitStep(self.consumer)
        )
        self.fold = FoldStep(self.processor, self.tables, self.output)
        self.home = home_partition(SCOPE.encode(), self.settings.partitions)

    def turns(self, start: int, count: int) -> list[Record]:
        topic = self.settings.topics.turns
        return [Record(topic, self.home, i, SCOPE.encode(), turn(i)) for i in range(start, start + count)]

    def bad(self, start: int, count: int) -> list[Record]:
        topic = self.settings.topics.turns
        return [Record(topic, self.home, i, SCOPE.encode(), b"{not json") for i in range(start, start + count)]

    def committed(self) -> int:
        tp = TopicPartition(self.settings.topics.turns, self.home)
        offset: int = self.consumer.committed([tp], timeout=30)[0].offset
        return offset

    def close(self) -> None:
        self.fold.close()
        self.consumer.close()


def turn(i: int) -> bytes:
    made = ConversationTurn(
        scope=SCOPE, session_id="s1", message_id=f"m{i}", role="user", content=f"the ferry left the pier at {i}", ts=T0
    )
    return made.model_dump_json().encode()


def read(bus: Any, topic: str, expected: int, timeout_s: float = 20.0) -> list[tuple[bytes | None, bytes | None]]:
    """(key, value) of every record on the topic, waiting (on Kafka) until `expected` are there."""
    if isinstance(bus, MemoryBus):
        return [(m.key(), m.value()) for m in bus.broker.messages(topic)]
    reader = Consumer({**bus.settings.kafka_client_config(), "group.id": "steps-reader", "enable.auto.commit": False})
    reader.assign([TopicPartition(topic, p, 0) for p in range(bus.settings.partitions)])
    out: list[tuple[bytes | None, bytes | None]] = []
    deadline = time.monotonic() + timeout_s
    try:
        while len(out) < expected and time.monotonic() < deadline:
            out += [(m.key(), m.value()) for m in reader.consume(100, 0.5) if m.error() is None]
        return out
    finally:
        reader.close()


def count(bus: Any, topic: str) -> int:
    """Records on the topic now (on Kafka: its high watermarks, after the steps' flush)."""
    if isinstance(bus, MemoryBus):
        return len(bus.broker.messages(topic))
    reader = Consumer({**bus.settings.kafka_client_config(), "group.id": "steps-reader"})
    try:
        parts = range(bus.settings.partitions)
        return sum(reader.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1] for p in parts)
    finally:
        reader.close()


def test_a_batch_goes_out_whole_and_its_offsets_are_committed_only_once_acknowledged(bus):
    chain = Chain(bus)
    try:
        chain.fold.submit([*chain.turns(0, 3), *chain.bad(3, 1)])
        assert chain.committed() == OFFSET_INVALID, "nothing is committed before the outputs are acknowledged"
        chain.fold.join()
        assert chain.committed() == 4
        topics = chain.settings.topics
        (job,) = [DreamJob.model_validate_json(v or b"") for _, v in read(bus, topics.jobs, 1)]
        assert job.scope == SCOPE and job.watermarks[topics.turns] == 3
        (letter,) = [DeadLetter.model_validate_json(v or b"") for _, v in read(bus, topics.dead_letter, 1)]
        assert letter.offset == 3 and letter.topic == topics.turns
        rows = dict(read(bus, topics.signals_changelog, 2))
        row = rows[changelog_key(SCOPE)]
        assert row is not None and ScopeSignals.decode(row).offsets == {f"{topics.turns}:{chain.home}": 3}
        assert chain.tables.row(chain.home, SCOPE) == row, "the table holds what the changelog holds"
    finally:
        chain.close()


def test_a_storm_publishes_nothing_of_its_batch_and_commits_what_came_before(bus):
    chain = Chain(bus)
    try:
        chain.fold.submit(chain.turns(0, 2))
        chain.fold.poll()
        window = chain.processor.guard.min_events
        with pytest.raises(BadInputStorm):
            chain.fold.submit(chain.bad(2, window))
        chain.fold.join()  # what StreamLoop.poll does before it stops
        assert chain.committed() == 2
        assert count(bus, chain.settings.topics.dead_letter) == 0
        assert count(bus, chain.settings.topics.signals_changelog) == 2, "the first batch's row and guard window"
    finally:
        chain.close()


def test_a_refused_output_is_never_committed_past():
    """On the in-memory broker only: a delivery a retry cannot fix is injected there."""
    bus = MemoryBus(Settings(partitions=2, trigger=POLICY))
    chain = Chain(bus)
    chain.fold.submit(chain.turns(0, 1))
    refused = KafkaException(KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED))
    bus.broker.fail_next("produce", refused, times=2)  # the row and the guard window
    with pytest.raises(DeliveryFailed):
        chain.fold.poll()
    chain.fold.submit(chain.turns(1, 1))
    chain.fold.join()  # logs the refusal, commits nothing past it
    assert chain.committed() == OFFSET_INVALID
    chain.close()


def test_lost_partitions_commit_nothing_of_what_is_pending():
    bus = MemoryBus(Settings(partitions=2, trigger=POLICY))
    chain = Chain(bus)
    chain.fold.submit(chain.turns(0, 2))
    chain.output.discard()  # what StreamLoop._on_lost does
    chain.fold.join()
    assert chain.committed() == OFFSET_INVALID
    chain.close()
