"""Chaos trials for the consolidation worker: one scenario (input events, poison records and dream
jobs on a topic set), run once uninterrupted for reference, then in trials that kill -9 the worker
process at random points, stop the broker, or answer model calls with errors; each trial's final
memories are compared with the reference.

A run is a worker *process* (`dreamstream worker consumers`) with its own consumer group and its
own embedded Qdrant; it is done when its group has committed every input and job offset. The
worker is then stopped and its Qdrant opened here to read the memories.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, KafkaException, TopicPartition

from consumers.runtime import open_runtime
from dreamstream_tools.fixtures import FIXTURES_DIR as FIXTURES
from dreamstream_tools.pipeline import settings_env
from plumbing.kafka_io import flush_or_raise, make_producer
from schemas import DreamJob
from schemas.settings import Settings
from schemas.validation import home_partition
from tests.poison import poison_records

REPO = Path(__file__).resolve().parents[2]
RUN_TIMEOUT_S = float(os.environ.get("CHAOS_RUN_TIMEOUT_S", "240"))
RESULTS: list[tuple[str, int, int, Comparison]] = []
"""(kind, trial, faults injected, comparison) of every trial this session, for the summary."""
NOTES: list[str] = []
"""Further figures of this session's trials, printed after the summary."""
KAFKA_HOME = Path(os.environ.get("CHAOS_KAFKA_HOME", str(REPO / ".dreamstream" / "chaos-kafka")))
KAFKA_PORT = int(os.environ.get("CHAOS_KAFKA_PORT", "29517"))
"""The private broker the broker trials stop and start (the shared one is never stopped)."""


# --- the scenario -----------------------------------------------------------------------------


@dataclass
class Scenario:
    settings: Settings
    scopes: list[str]
    jobs: list[DreamJob]
    poison: int = 0


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / name).read_text().splitlines() if line.strip()]


def build_scenario(settings: Settings, copies: int = 3, batches: int = 2) -> Scenario:
    """The shared fixtures, `copies` times under renamed tenants, each scope's turns in `batches`
    with a dream job after each batch; the poison corpus among them. Everything is produced
    before any worker starts, so every run reads the same offsets."""
    events, adds = _rows("events.jsonl"), _rows("memory_adds.jsonl")
    producer = make_producer(settings)
    errors: list[str] = []
    topics = settings.topics
    next_offset: dict[tuple[str, int], int] = {}

    def send(topic: str, key: bytes | None, value: bytes | None) -> None:
        def delivered(err, msg) -> None:
            if err is not None:
                errors.append(str(err))
            else:
                spot = (msg.topic(), msg.partition())
                next_offset[spot] = max(next_offset.get(spot, 0), msg.offset() + 1)

        producer.produce(topic, key=key, value=value, on_delivery=delivered)

    def renamed(row: dict, copy: int) -> dict:
        tenant, rest = row["scope"].split("/", 1)
        return {**row, "scope": f"{tenant}{copy}/{rest}"}

    scopes: list[str] = []
    jobs: list[DreamJob] = []
    started = datetime(2026, 3, 10, tzinfo=UTC)
    for copy in range(copies):
        by_scope: dict[str, list[dict]] = {}
        for row in events:
            by_scope.setdefault(renamed(row, copy)["scope"], []).append(renamed(row, copy))
        for add in adds:
            row = renamed(add, copy)
            send(topics.memory_adds, row["scope"].encode(), json.dumps(row).encode())
        for scope, rows in sorted(by_scope.items()):
            scopes.append(scope)
            size = max(1, -(-len(rows) // batches))
            for b in range(0, len(rows), size):
                for row in rows[b : b + size]:
                    send(topics.turns, scope.encode(), json.dumps(row).encode())
                flush_or_raise(producer, errors)
                partition = home_partition(scope.encode(), settings.partitions)
                marks = {t: next_offset.get((t, partition), 0) for t in (topics.turns, topics.memory_adds)}
                job = DreamJob(
                    job_id=f"chaos-{scope}-{b}",
                    scope=scope,
                    trigger="manual",
                    requested_at=started + timedelta(minutes=len(jobs)),
                    watermarks=marks,
                )
                jobs.append(job)
                send(topics.jobs, scope.encode(), job.model_dump_json().encode())
    poison = poison_records(settings.max_event_bytes)
    for _name, kind, key, value in poison:
        send(topics.turns if kind == "turns" else topics.memory_adds, key, value)
    flush_or_raise(producer, errors)
    return Scenario(settings, scopes, jobs, len(poison))


# --- one run of the worker process --------------------------------------------------------------


@dataclass
class Run:
    settings: Settings
    log: Path
    proc: subprocess.Popen | None = None
    kills: int = 0
    kills_mid_run: int = 0
    """Kills that hit the worker while its group still had work uncommitted."""
    starts: int = 0
    role: str = "consumers"
    """`dreamstream worker <role>`: the consolidation worker, or "streams" for the stream worker."""

    def start(self) -> None:
        env = {**os.environ, **settings_env(self.settings), "PYTHONPATH": str(REPO)}
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "dreamstream.cli", "worker", self.role],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self.starts += 1

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        self.kills += 1

    def stop(self) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(timeout=30)

    @property
    def exited(self) -> int | None:
        return None if self.proc is None else self.proc.poll()

    def tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""


def run_settings(base: Settings, home: Path, **extra: Any) -> Settings:
    """The scenario's topics, a consumer group and a Qdrant home of the run's own."""
    return base.model_copy(
        update={
            "home": home,
            "consumer_group": f"chaos-{uuid.uuid4().hex[:10]}",
            "metrics_port": 0,
            "api_port": 0,
            **extra,
        }
    )


def remaining(settings: Settings) -> int:
    """Input and job records the run's group has not committed yet (-1 while the broker is away)."""
    topics = settings.topics
    consumer = Consumer(
        {**settings.kafka_client_config(), "group.id": settings.consumer_group, "enable.auto.commit": False}
    )
    try:
        left = 0
        parts = [
            TopicPartition(t, p)
            for t in (topics.turns, topics.memory_adds, topics.jobs)
            for p in range(settings.partitions)
        ]
        committed = consumer.committed(parts, timeout=5)
        for tp in committed:
            high = consumer.get_watermark_offsets(TopicPartition(tp.topic, tp.partition), timeout=5)[1]
            left += max(high - max(tp.offset, 0), 0)
        return left
    except KafkaException:
        return -1
    finally:
        consumer.close()


def wait_done(run: Run, timeout_s: float = RUN_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        if run.exited is not None:
            raise AssertionError(f"worker exited with {run.exited}:\n{run.tail()}")
        if remaining(run.settings) == 0:
            return
        if time.monotonic() > deadline:
            raise AssertionError(
                f"run not done after {timeout_s}s ({remaining(run.settings)} records left):\n{run.tail()}"
            )
        time.sleep(0.5)


# --- what a run left behind -----------------------------------------------------------------------


@dataclass
class Outcome:
    records: dict[str, dict[str, tuple[str, str]]]
    """scope -> memory id -> (text, status), over the active generation."""
    promotions: dict[str, int]
    """scope -> generations promoted (active or retired)."""
    statuses: dict[str, str]
    """job id -> outcome recorded in the scope's pointer."""
    broken_generations: list[str] = field(default_factory=list)
    """Active generations whose records disagree with what their promotion recorded."""


def read_outcome(settings: Settings, scopes: list[str]) -> Outcome:
    rt = open_runtime(settings)
    try:
        records, promotions, statuses, broken = {}, {}, {}, []
        for scope in scopes:
            held = rt.memories.active_records(scope, include_inactive=True)
            records[scope] = {m.memory_id: (m.text, m.status) for m in held}
            state = rt.memories.state(scope)
            promotions[scope] = sum(1 for g in state.generations if g.status in ("active", "retired"))
            for job in state.applied_jobs:
                statuses[job.job_id] = job.outcome
            info = state.generation(state.active_generation)
            if info is not None and info.memories_active != sum(1 for m in held if m.is_active):
                broken.append(
                    f"{scope} generation {info.generation}: {info.memories_active} recorded, "
                    f"{sum(1 for m in held if m.is_active)} stored"
                )
        return Outcome(records, promotions, statuses, broken)
    finally:
        rt.close()


@dataclass
class Comparison:
    lost: int = 0
    duplicated: int = 0
    partial: int = 0
    details: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.lost or self.duplicated or self.partial)


def compare(reference: Outcome, trial: Outcome) -> Comparison:
    """lost: a reference memory (or job outcome) missing; duplicated: a memory or promotion the
    reference does not have; partial: the same memory in another state, or a generation whose
    records disagree with its promotion."""
    out = Comparison()
    for scope, want in reference.records.items():
        got = trial.records.get(scope, {})
        for memory_id in want.keys() - got.keys():
            out.lost += 1
            out.details.append(f"lost {scope} {memory_id}: {want[memory_id]}")
        for memory_id in got.keys() - want.keys():
            out.duplicated += 1
            out.details.append(f"extra {scope} {memory_id}: {got[memory_id]}")
        for memory_id in want.keys() & got.keys():
            if want[memory_id] != got[memory_id]:
                out.partial += 1
                out.details.append(f"differs {scope} {memory_id}: {want[memory_id]} vs {got[memory_id]}")
        texts = Counter(text for text, status in got.values() if status == "active")
        for text, n in texts.items():
            if n > 1 and Counter(t for t, s in want.values() if s == "active")[text] < n:
                out.duplicated += 1
                out.details.append(f"duplicated text in {scope}: {text!r} x{n}")
        if trial.promotions.get(scope, 0) > reference.promotions.get(scope, 0):
            out.duplicated += 1
            out.details.append(
                f"{scope}: {trial.promotions[scope]} promotions, reference {reference.promotions[scope]}"
            )
    for job_id, status in reference.statuses.items():
        if trial.statuses.get(job_id) != status:
            out.lost += 1
            out.details.append(f"job {job_id}: {trial.statuses.get(job_id)} (reference {status})")
    out.partial += len(trial.broken_generations)
    out.details.extend(trial.broken_generations)
    return out


def uninterrupted(scenario: Scenario, home: Path, **extra: Any) -> Outcome:
    run = Run(run_settings(scenario.settings, home, **extra), home / "worker.log")
    run.start()
    try:
        wait_done(run)
    finally:
        run.stop()
    return read_outcome(run.settings, scenario.scopes)


def with_kills(scenario: Scenario, home: Path, kills: int, rng: random.Random, **extra: Any) -> tuple[Outcome, Run]:
    """Start, kill -9 after a random delay (during startup, indexing or passes), restart; `kills`
    times; then let the last start finish."""
    run = Run(run_settings(scenario.settings, home, **extra), home / "worker.log")
    for _ in range(kills):
        run.start()
        deadline = time.monotonic() + rng.uniform(1.0, 9.0)
        while time.monotonic() < deadline and remaining(run.settings) != 0:
            time.sleep(0.1)
        run.kills_mid_run += remaining(run.settings) != 0
        run.kill9()
    run.start()
    try:
        wait_done(run)
    finally:
        run.stop()
    return read_outcome(run.settings, scenario.scopes), run
