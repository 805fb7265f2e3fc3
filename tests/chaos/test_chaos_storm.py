"""Chaos trial of the storm guard (issue 17): a producer turns bad gradually, so the stream worker
dead-letters a stretch of bad records in many small batches before the share of bad ones crosses
`max_bad_share`; the worker must stop (exit 2), and every restart must stop again at the same
place, with no dead letter published twice and nothing of the crossing batch published.

The stream worker commits what earlier batches published before it stops (`StreamLoop.poll`);
before that, the batches ahead of the crossing one were published and not committed, and every
restart published their dead letters again (15 duplicates after two restarts).

    CHAOS_STORM_RESTARTS=5 python -m pytest -m chaos tests/chaos/test_chaos_storm.py -p no:cacheprovider
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter

import pytest
from confluent_kafka import Consumer, TopicPartition

from plumbing.kafka_io import flush_or_raise, make_producer
from schemas import DeadLetter
from tests.chaos.harness import NOTES, Run
from tests.integration.kafka_env import unique_settings

pytestmark = [pytest.mark.chaos, pytest.mark.integration, pytest.mark.timeout(1200)]

RESTARTS = int(os.environ.get("CHAOS_STORM_RESTARTS", "3"))
SCOPE = "acme/support-bot/storm"
WORKER_EXIT_S = 120.0
"""A start, a restore and a few hundred records take ~10 s on a quiet machine; the rest is margin."""


def good(i: int) -> bytes:
    return json.dumps(
        {
            "scope": SCOPE,
            "session_id": "s",
            "message_id": f"m{i}",
            "role": "user",
            "content": f"message number {i}",
            "ts": "2026-04-12T11:00:00+00:00",
        }
    ).encode()


def dead_letters(settings) -> list[DeadLetter]:
    consumer = Consumer(
        {**settings.kafka_client_config(), "group.id": f"letters-{time.time_ns()}", "enable.auto.commit": False}
    )
    consumer.assign([TopicPartition(settings.topics.dead_letter, p, 0) for p in range(settings.partitions)])
    letters, quiet_since = [], time.monotonic()
    try:
        while time.monotonic() - quiet_since < 3.0:
            records = [m for m in consumer.consume(500, timeout=0.5) if not m.error()]
            if records:
                quiet_since = time.monotonic()
            letters.extend(DeadLetter.model_validate_json(m.value()) for m in records)
    finally:
        consumer.close()
    return letters


def committed_turns(settings) -> int:
    consumer = Consumer({**settings.kafka_client_config(), "group.id": settings.app_id, "enable.auto.commit": False})
    try:
        [tp] = consumer.committed([TopicPartition(settings.topics.turns, 0)], timeout=10)
        return tp.offset
    finally:
        consumer.close()


def test_a_storm_with_restarts_publishes_no_dead_letter_twice(kafka_bootstrap, tmp_path):
    settings = unique_settings(
        kafka_bootstrap,
        tmp_path,
        partitions=1,
        bad_share_window=100,
        bad_share_min_events=20,
        max_bad_share=0.5,
        streams_batch_size=7,  # many small batches, each publishing its dead letters
        metrics_port=0,
        streams_web_port=0,
    )
    producer, errors = make_producer(settings), []
    values = []
    for i in range(60):  # 40 % bad: dead-lettered, under the limit
        values.append(b"not json %d" % i if i % 5 in (1, 3) else good(i))
    values += [b"garbage %d" % i for i in range(60)]  # then only bad ones: the limit is crossed
    values += [good(1000 + i) for i in range(10)]  # good events behind the storm, never reached
    for value in values:
        producer.produce(
            settings.topics.turns,
            key=SCOPE.encode(),
            value=value,
            partition=0,
            on_delivery=lambda err, _msg: err and errors.append(str(err)),
        )
    flush_or_raise(producer, errors)

    exits, stopped_at = [], []
    for start in range(1 + RESTARTS):
        run = Run(settings, tmp_path / f"streams-{start}.log", role="streams")
        run.start()
        assert run.proc is not None
        try:
            exits.append(run.proc.wait(timeout=WORKER_EXIT_S))
        finally:
            run.stop()
        assert "were invalid" in run.tail(), run.tail()
        stopped_at.append(committed_turns(settings))

    letters = dead_letters(settings)
    per_offset = Counter((d.topic, d.partition, d.offset) for d in letters)
    twice = {where: n for where, n in per_offset.items() if n > 1}
    NOTES.append(
        f"storm: {len(values)} records, {1 + RESTARTS} starts, exits {exits}, committed turns offset after each "
        f"{stopped_at}, {len(letters)} dead letters, {len(twice)} published twice"
    )
    assert exits == [2] * (1 + RESTARTS), exits
    assert not twice, f"dead letters published more than once: {sorted(twice)[:10]}"
    assert letters, "the trial proved nothing: no batch before the crossing one was published"
    assert len(set(stopped_at)) == 1, "every restart stops at the same place"
    assert stopped_at[0] < 120, "nothing at or after the crossing batch is committed"
    assert all(d.offset < stopped_at[0] for d in letters), "nothing of the crossing batch was published"
