"""The stream worker under faults, on real Kafka: kill -9 and restart, two workers sharing the
partitions and handing over when one dies, bad placement, a storm of bad input, an unreachable
broker. Jobs are read straight from the jobs topic."""

from __future__ import annotations

import json
import signal
import socket
import time
from collections import Counter
from pathlib import Path

import pytest
from confluent_kafka import Consumer, ConsumerGroupState, TopicPartition
from confluent_kafka.admin import AdminClient

from plumbing.kafka_io import flush_or_raise, make_producer
from schemas import DeadLetter, DreamJob
from schemas.policy import TriggerPolicy
from schemas.validation import home_partition

pytestmark = pytest.mark.integration
POLICY = TriggerPolicy(threshold_messages=10, threshold_signals=1_000, idle_s=3_600, cooldown_s=0)


def turn_value(scope: str, i: int) -> bytes:
    return json.dumps(
        {
            "scope": scope,
            "session_id": "s1",
            "message_id": f"{scope}#{i}",
            "role": "user",
            "content": f"plain message {i}",
            "ts": "2026-04-12T11:00:00+00:00",
        }
    ).encode()


def produce_turns(settings, scope: str, start: int, count: int) -> None:
    producer, errors = make_producer(settings), []
    for i in range(start, start + count):
        producer.produce(
            settings.topics.turns,
            key=scope.encode(),
            value=turn_value(scope, i),
            on_delivery=lambda err, msg: err and errors.append(str(err)),
        )
    flush_or_raise(producer, errors)


class TopicReader:
    def __init__(self, settings, topic: str) -> None:
        self.consumer = Consumer(
            {**settings.kafka_client_config(), "group.id": f"reader-{time.time_ns()}", "enable.auto.commit": False}
        )
        self.consumer.assign([TopicPartition(topic, p, 0) for p in range(settings.partitions)])
        self.values: list[bytes] = []
        self.records: list[tuple[bytes | None, bytes | None]] = []

    def poll_until(self, done, timeout_s: float, workers=()) -> None:
        deadline = time.monotonic() + timeout_s
        while not done():
            for worker in workers:
                assert worker.poll() is None, f"stream worker exited with {worker.returncode}"
            assert time.monotonic() < deadline, f"timed out; saw {len(self.values)} records"
            self.read(0.5)

    def read(self, timeout_s: float = 0.5) -> None:
        for m in self.consumer.consume(500, timeout=timeout_s):
            if not m.error():
                self.values.append(m.value())
                self.records.append((m.key(), m.value()))

    def drain(self, quiet_s: float = 2.0) -> None:
        """Read until nothing new arrived for `quiet_s`."""
        seen, quiet_since = len(self.records), time.monotonic()
        while time.monotonic() - quiet_since < quiet_s:
            self.read(0.3)
            if len(self.records) != seen:
                seen, quiet_since = len(self.records), time.monotonic()

    def latest(self) -> dict[str, bytes | None]:
        """Changelog view: the last value per key (keys are JSON strings)."""
        return {json.loads(k): v for k, v in self.records if k is not None}

    def close(self) -> None:
        self.consumer.close()


def row_of(reader: TopicReader, scope: str) -> dict | None:
    value = reader.latest().get(scope)
    return json.loads(value) if value else None


def committed(settings, topic: str) -> dict[int, int]:
    consumer = Consumer({**settings.kafka_client_config(), "group.id": settings.app_id, "enable.auto.commit": False})
    try:
        parts = consumer.committed([TopicPartition(topic, p) for p in range(settings.partitions)], timeout=10)
        return {tp.partition: tp.offset for tp in parts}
    finally:
        consumer.close()


def test_kill_9_and_restart_loses_no_signal_and_duplicates_no_job(make_settings, workers):
    settings = make_settings(trigger=POLICY)
    scope = "acme/support-bot/crash-test"
    jobs = TopicReader(settings, settings.topics.jobs)
    changelog = TopicReader(settings, settings.topics.signals_changelog)
    worker = workers(settings, "first")
    produce_turns(settings, scope, 0, 6)
    changelog.poll_until(lambda: (row_of(changelog, scope) or {}).get("messages") == 6, 90, [worker])
    worker.send_signal(signal.SIGKILL)
    worker.wait(timeout=30)

    produce_turns(settings, scope, 6, 4)  # crosses the threshold only if the first 6 were remembered
    restarted = workers(settings, "second")
    jobs.poll_until(lambda: len(jobs.values) >= 1, 120, [restarted])
    time.sleep(3)  # a duplicate would show up now
    jobs.poll_until(lambda: True, 1)
    emitted = [DreamJob.model_validate_json(v) for v in jobs.values]
    assert len({j.job_id for j in emitted}) == 1, [j.job_id for j in emitted]
    job = emitted[0]
    assert job.scope == scope and job.trigger == "threshold" and job.messages_since_last_pass == 10
    assert job.watermarks == {settings.topics.turns: 10}
    jobs.close()
    changelog.close()


def wait_for_members(settings, count: int, timeout_s: float = 90.0) -> None:
    """Until the stream workers' group is stable with `count` members, each holding partitions."""
    admin = AdminClient(settings.kafka_client_config())
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        group = admin.describe_consumer_groups([settings.app_id])[settings.app_id].result(timeout=10)
        members = [m for m in group.members if m.assignment.topic_partitions]
        if group.state == ConsumerGroupState.STABLE and len(members) == count:
            return
        time.sleep(0.5)
    raise AssertionError(f"group {settings.app_id} never became stable with {count} members")


def test_two_workers_split_partitions_and_hand_over(make_settings, workers):
    # Events are produced while the second worker joins (the group is forming): nothing may be skipped.
    settings = make_settings(trigger=POLICY.model_copy(update={"threshold_messages": 5}), partitions=4)
    scopes = [f"acme/bot/user-{n}" for n in range(12)]
    jobs = TopicReader(settings, settings.topics.jobs)
    first = workers(settings, "w1")
    wait_for_members(settings, 1)
    second = workers(settings, "w2")
    for scope in scopes:
        produce_turns(settings, scope, 0, 5)
    wait_for_members(settings, 2)
    jobs.poll_until(lambda: len(jobs.values) >= len(scopes), 120, [first, second])
    assert Counter(DreamJob.model_validate_json(v).scope for v in jobs.values) == Counter(scopes)

    second.send_signal(signal.SIGKILL)
    second.wait(timeout=30)
    later = [f"acme/bot/late-{n}" for n in range(8)]
    for scope in later:
        produce_turns(settings, scope, 0, 5)
    jobs.poll_until(lambda: len(jobs.values) >= len(scopes) + len(later), 120, [first])
    by_scope = Counter(DreamJob.model_validate_json(v).scope for v in jobs.values)
    assert all(by_scope[s] == 1 for s in scopes + later), by_scope
    jobs.close()


def test_keyless_misplaced_and_mismatched_events_are_dead_lettered_and_nothing_stalls(make_settings, workers):
    from dreamstream.control import wait_until_read

    settings = make_settings(trigger=POLICY.model_copy(update={"threshold_messages": 3}), partitions=2)
    scope = "acme/support-bot/placed"
    home = home_partition(scope.encode(), 2)
    producer, errors = make_producer(settings), []
    sent = lambda err, msg: err and errors.append(str(err))  # noqa: E731
    turns = settings.topics.turns
    producer.produce(turns, value=turn_value(scope, 0), partition=home, on_delivery=sent)  # keyless
    producer.produce(turns, key=scope.encode(), value=turn_value(scope, 1), partition=1 - home, on_delivery=sent)
    producer.produce(turns, key=b"globex/support-bot/x", value=turn_value(scope, 2), partition=home, on_delivery=sent)
    flush_or_raise(producer, errors)
    worker = workers(settings, "placement")
    produce_turns(settings, scope, 3, 3)  # the scope's own events, behind the bad ones in its partition
    letters = TopicReader(settings, settings.topics.dead_letter)
    letters.poll_until(lambda: len(letters.values) >= 3, 90, [worker])
    reasons = sorted(DeadLetter.model_validate_json(v).error_type for v in letters.values)
    assert reasons == ["key_mismatch", "no_key", "wrong_partition"], reasons
    jobs = TopicReader(settings, settings.topics.jobs)
    jobs.poll_until(lambda: jobs.values, 60, [worker])
    job = DreamJob.model_validate_json(jobs.values[0])
    assert job.scope == scope and job.messages_since_last_pass == 3
    assert job.watermarks == {turns: 5}, "its partition's offset after its third turn (two bad records before)"
    wait_until_read(settings, timeout_s=60)  # every partition committed to its end: none stalls
    letters.close()
    jobs.close()


def test_a_storm_publishes_and_commits_nothing_and_a_restart_stops_again(make_settings, workers, tmp_path):
    from dreamstream.control import wait_until_read

    settings = make_settings(bad_share_window=20, max_bad_share=0.5, partitions=1)
    scope = "acme/support-bot/storm"
    worker = workers(settings, "calm")
    produce_turns(settings, scope, 0, 10)
    wait_until_read(settings, timeout_s=60)
    before = committed(settings, settings.topics.turns)
    assert before == {0: 10}

    producer, errors = make_producer(settings), []
    for _ in range(40):
        producer.produce(
            settings.topics.turns,
            key=scope.encode(),
            value=b"garbage",
            on_delivery=lambda err, msg: err and errors.append(str(err)),
        )
    flush_or_raise(producer, errors)
    produce_turns(settings, scope, 10, 5)  # good events behind the storm
    worker.wait(timeout=90)
    assert worker.returncode != 0
    assert "of the last 20 events on partition 0 were invalid" in (tmp_path / "calm.log").read_text()

    restarted = workers(settings, "again")
    restarted.wait(timeout=90)
    assert restarted.returncode != 0, "a restart reads the storm again and stops again"
    assert "were invalid" in (tmp_path / "again.log").read_text()

    assert committed(settings, settings.topics.turns) == before, "nothing of the storm was committed"
    letters = TopicReader(settings, settings.topics.dead_letter)
    letters.drain(2.0)
    assert letters.values == [], "nothing of the storm was published"
    letters.close()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_broker_is_logged_once_per_interval_with_the_attempts(make_settings, workers, tmp_path):
    settings = make_settings().model_copy(
        update={"kafka_bootstrap_servers": f"127.0.0.1:{_closed_port()}", "broker_retry_log_s": 3.0}
    )
    worker = workers(settings, "down")
    time.sleep(10)
    assert worker.poll() is None, "the worker keeps retrying"
    worker.terminate()
    worker.wait(timeout=60)
    log = (tmp_path / "down.log").read_text()
    lines = [line for line in log.splitlines() if not line.startswith("|")]
    unreachable = [line for line in lines if "unreachable for" in line]
    assert unreachable and "failed attempts so far" in unreachable[0], "\n".join(lines[-30:])
    assert 1 <= len(unreachable) <= 5, unreachable
    kafka_lines = [line for line in lines if "rdkafka" in line]
    assert len(kafka_lines) <= 30, f"{len(kafka_lines)} librdkafka lines in 10 s: {kafka_lines[:5]}"


CHAOS_T = 25


def test_kill_9_at_random_points_while_producing_folds_every_event_exactly_once(make_settings, workers, tmp_path):
    """≥ 10 kill -9s at random points (during start-up, restore and processing) while a producer
    keeps writing, and a second worker joining and leaving: at the end every scope's row counts
    exactly what was produced, and each scope has exactly the one job its threshold implies, at
    the offset of its T-th turn. DREAMSTREAM_CHAOS_KILLS sets the number of kills."""
    import os
    import random
    import threading

    from dreamstream.control import wait_until_read

    kills = int(os.environ.get("DREAMSTREAM_CHAOS_KILLS", "10"))
    rng = random.Random(int(os.environ.get("DREAMSTREAM_CHAOS_SEED", str(time.time_ns()))))
    policy = TriggerPolicy(
        threshold_messages=CHAOS_T,
        threshold_signals=1_000_000,
        threshold_tokens=10_000_000,
        idle_s=86_400,
        schedule_s=0,
        cooldown_s=0,
    )
    settings = make_settings(trigger=policy, partitions=4)
    scopes = [f"chaos/bot/user-{n}" for n in range(30)]
    produced: Counter = Counter()
    offsets: dict[str, list[int]] = {s: [] for s in scopes}
    stop = threading.Event()
    failures: list[str] = []

    def produce() -> None:
        producer = make_producer(settings)
        n = 0

        def delivered(err, msg) -> None:
            if err:
                failures.append(str(err))
            else:
                scope = msg.key().decode()
                produced[scope] += 1
                offsets[scope].append(msg.offset())

        while not stop.is_set():
            scope = scopes[n % len(scopes)] if n % 7 else rng.choice(scopes)
            producer.produce(
                settings.topics.turns, key=scope.encode(), value=turn_value(scope, n), on_delivery=delivered
            )
            n += 1
            if n % 20 == 0:
                producer.poll(0)
                time.sleep(0.02)
        producer.flush(30)

    writer = threading.Thread(target=produce, daemon=True)
    writer.start()
    second = None
    try:
        for round_ in range(kills):
            worker = workers(settings, f"chaos-{round_}")
            if round_ == 2:
                second = workers(settings, "chaos-second")
            if round_ == 6 and second is not None:
                second.terminate()  # a graceful leave: it flushes, commits and hands over
            log = tmp_path / f"chaos-{round_}.log"
            if round_ % 3:  # most kills hit a worker that holds partitions: mid-batch, mid-commit
                deadline = time.monotonic() + 30
                while "assigned partitions" not in log.read_text() and time.monotonic() < deadline:
                    time.sleep(0.1)
                time.sleep(rng.uniform(0.0, 3.0))
            else:  # the others: during start-up, joining or restoring
                time.sleep(rng.uniform(0.3, 4.0))
            assert worker.poll() is None, log.read_text()[-3000:]
            worker.send_signal(signal.SIGKILL)
            worker.wait(timeout=30)
        if second is not None and second.poll() is None:
            second.send_signal(signal.SIGKILL)
    finally:
        stop.set()
        writer.join(timeout=60)
    assert not failures, failures[:3]

    final = workers(settings, "chaos-final")
    wait_until_read(settings, timeout_s=120, check=lambda: final.poll() is None or pytest.fail("final worker died"))
    changelog = TopicReader(settings, settings.topics.signals_changelog)
    jobs = TopicReader(settings, settings.topics.jobs)
    changelog.drain(2.0)
    jobs.drain(2.0)
    by_scope: dict[str, set[tuple]] = {s: set() for s in scopes}
    for value in jobs.values:
        job = DreamJob.model_validate_json(value)
        by_scope[job.scope].add((job.job_id, job.messages_since_last_pass, json.dumps(job.watermarks)))
    rows = changelog.latest()
    assert sum(produced.values()) > 500
    for scope in scopes:
        row = json.loads(rows[scope])
        total = produced[scope]
        if total >= CHAOS_T:
            expected_mark = {settings.topics.turns: sorted(offsets[scope])[CHAOS_T - 1] + 1}
            assert len(by_scope[scope]) == 1, (scope, by_scope[scope])
            ((_, messages, marks),) = by_scope[scope]
            assert messages == CHAOS_T and json.loads(marks) == expected_mark, (scope, messages, marks)
            assert row.get("messages", 0) == total - CHAOS_T, (scope, row, total)
        else:
            assert not by_scope[scope] and row.get("messages", 0) == total, (scope, row, total)
    changelog.close()
    jobs.close()
    worked = [r for r in range(kills) if "assigned partitions" in (tmp_path / f"chaos-{r}.log").read_text()]
    Path(tmp_path / "chaos-summary.txt").write_text(
        f"{sum(produced.values())} events, {len(jobs.values)} job records, {kills} kills, "
        f"{len(worked)} of them after the worker held partitions: {worked}\n"
    )
    assert len(worked) >= kills // 2, f"too few kills hit a working worker: {worked}"
