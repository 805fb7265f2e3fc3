"""bench.fleet's Kafka phase: time from a scope's job to its promoted generation, through a real
broker and 1 or 2 consolidation worker processes (`dreamstream worker consumers`).

The workers start first and join one group; then every scope's turns are produced (a fleet sends
them interleaved), and right after the last one each scope's job (a manual trigger with the
scope's watermark, as the stream worker would emit it). A scope's time-to-generation runs from
its job's delivery to its `completed` lifecycle event on the audit topic. Each worker has an
embedded store of its own (one process per store folder): partitions do not move during the run,
so each scope is read and written by one worker, as with a shared Qdrant server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import numpy as np
from confluent_kafka import ConsumerGroupState, KafkaException, Producer
from confluent_kafka.admin import AdminClient

from bench.fleet_data import FleetScope, interleaved, make_fleet
from dreamstream.control import AuditReader
from dreamstream.topic_admin import ensure_topics
from plumbing.kafka_errors import is_transient_kafka_call
from plumbing.kafka_io import make_producer
from schemas import DreamJob, JobLifecycleEvent, make_job_id
from schemas.settings import Settings

REPO_ROOT = Path(__file__).resolve().parents[1]
Figure = Callable[[str, object, str], None]
TERMINAL = {"completed", "no-op", "failed", "quarantined"}
C = TypeVar("C")


def _settings(home: Path) -> Settings:
    suffix = uuid.uuid4().hex[:8]
    # The broker as Settings reads it: DREAMSTREAM_KAFKA_BOOTSTRAP_SERVERS or KAFKA_BOOTSTRAP_SERVERS.
    return Settings(
        home=home,
        topic_prefix=f"bench-fleet-{suffix}",
        app_id=f"bench-fleet-app-{suffix}",
        consumer_group=f"bench-fleet-group-{suffix}",
        session_timeout_ms=6_000,
    )


def _start_worker(settings: Settings, home: Path) -> subprocess.Popen[bytes]:
    from dreamstream_tools.pipeline import settings_env

    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **settings_env(settings), "DREAMSTREAM_HOME": str(home), "PYTHONPATH": str(REPO_ROOT)}
    with open(home / "worker.log", "ab") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "dreamstream.cli", "worker", "consumers"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )


def wait_until(
    connect: Callable[[], C],
    not_yet: Callable[[C, float], str | None],
    timeout_s: float,
    what: str,
    *,
    request_timeout_s: float = 10.0,
    interval_s: float = 0.5,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Ask `not_yet(client, request_timeout_s)` until it returns None (done), for at most `timeout_s`.

    `not_yet` makes its admin calls on `client` with the request timeout it is given (never past
    the deadline) and returns what it saw while the wait is not over. A transient Kafka error (a
    busy broker, a group coordinator still loading: `plumbing.kafka_errors`) is another try, on a
    new client from `connect`: the old one is dropped, since librdkafka aborts the process when a
    timed-out request's coordinator lookup completes later on the same client
    (confluentinc/librdkafka#4605). Any other error raises at once. At the deadline a TimeoutError
    names `what`, what was last seen and the last transient error."""
    deadline = clock() + timeout_s
    seen, error = "nothing yet", "none"
    client: C | None = None
    while (left := deadline - clock()) > 0:
        if client is None:
            client = connect()
        try:
            seen_now = not_yet(client, min(request_timeout_s, left))
        except KafkaException as exc:
            if not is_transient_kafka_call(exc):
                raise
            error, client = str(exc), None
        else:
            if seen_now is None:
                return
            seen = seen_now
        sleep(max(0.0, min(interval_s, deadline - clock())))
    raise TimeoutError(f"{what} within {timeout_s:.0f} s; last seen: {seen}; last error: {error}")


def _wait_for_group(
    settings: Settings, members: int, workers: list[subprocess.Popen[bytes]], timeout_s: float = 120
) -> None:
    group_id = settings.consumer_group

    def not_formed(admin: AdminClient, request_timeout_s: float) -> str | None:
        for w in workers:
            if w.poll() is not None:
                raise RuntimeError(f"a consolidation worker exited with {w.returncode} before the group formed")
        group = admin.describe_consumer_groups([group_id], request_timeout=request_timeout_s)[group_id].result()
        assigned = sum(len(m.assignment.topic_partitions) for m in group.members if m.assignment)
        if len(group.members) == members and group.state == ConsumerGroupState.STABLE and assigned:
            return None
        return f"{len(group.members)}/{members} member(s), state {group.state.name}, {assigned} partition(s) assigned"

    wait_until(
        lambda: AdminClient(settings.kafka_client_config()),
        not_formed,
        timeout_s,
        f"the group of {members} consolidation worker(s) did not form",
    )


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def produce_turns(producer: Producer, settings: Settings, fleet: list[FleetScope]) -> dict[str, int]:
    """Every turn of `fleet`, interleaved across scopes, onto the turns topic; returns each scope's
    next offset (its dream job's watermark) once all are delivered."""
    marks: dict[str, int] = {}

    def delivered(err: object, msg: object) -> None:
        if err is None:
            scope = msg.key().decode()  # type: ignore[attr-defined]
            marks[scope] = max(marks.get(scope, 0), msg.offset() + 1)  # type: ignore[attr-defined]

    for turn in interleaved(fleet):
        producer.produce(
            settings.topics.turns, key=turn.scope.encode(), value=turn.model_dump_json().encode(), on_delivery=delivered
        )
        producer.poll(0)
    producer.flush(60)
    return marks


def run(home: Path, scopes: int, messages: int, workers: int, figure: Figure, timeout_s: float = 900) -> None:
    settings = _settings(home)
    ensure_topics(settings)
    procs = [_start_worker(settings, home / f"worker-{i}") for i in range(workers)]
    try:
        _wait_for_group(settings, workers, procs)
        audit = AuditReader(settings, from_now=True)
        fleet = make_fleet(scopes, messages, seed=31, tenant="kafka")
        producer = make_producer(settings)
        started = time.perf_counter()
        marks = produce_turns(producer, settings, fleet)
        replay_s = time.perf_counter() - started
        ids: dict[str, str] = {}
        for s in fleet:
            watermarks = {settings.topics.turns: marks[s.scope]}
            job = DreamJob(
                job_id=make_job_id(s.scope, "manual", watermarks, (f"bench-{s.scope}",)),
                scope=s.scope,
                trigger="manual",
                requested_at=datetime.now(UTC),
                watermarks=watermarks,
                request_ids=(f"bench-{s.scope}",),
            )
            ids[job.job_id] = s.scope
            producer.produce(settings.topics.jobs, key=s.scope.encode(), value=job.model_dump_json().encode())
        producer.flush(60)
        jobs_at = time.perf_counter()
        cpu0 = {p.pid: _cpu_s(p.pid) for p in procs}
        done: dict[str, float] = {}
        statuses: dict[str, int] = {}
        deadline = time.monotonic() + timeout_s
        while len(done) < len(ids):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{len(done)} of {len(ids)} jobs finished within {timeout_s:.0f} s")
            for p in procs:
                if p.poll() is not None:
                    raise RuntimeError(f"a consolidation worker exited with {p.returncode}")
            for event in audit.read(1.0):
                if isinstance(event, JobLifecycleEvent) and event.job_id in ids and event.status in TERMINAL:
                    if event.job_id not in done:
                        done[event.job_id] = time.perf_counter() - jobs_at
                        statuses[event.status] = statuses.get(event.status, 0) + 1
        cpu = sum(_cpu_s(p.pid) - cpu0[p.pid] for p in procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
    times = np.array(sorted(done.values()))
    p50, p95 = float(np.percentile(times, 50)), float(np.percentile(times, 95))
    key = f"kafka_{workers}w"
    figure(
        f"{key}_outcomes",
        statuses,
        f"{workers} worker(s): {len(times)} jobs {statuses}; replay of {scopes * messages} turns took {replay_s:.1f} s",
    )
    figure(
        f"{key}_first_s",
        round(float(times[0]), 1),
        f"{workers} worker(s): first generation {times[0]:.1f} s after the jobs",
    )
    figure(f"{key}_time_to_generation_p50_s", round(p50, 1), f"{workers} worker(s): time-to-generation p50 {p50:.1f} s")
    figure(
        f"{key}_time_to_generation_p95_s",
        round(p95, 1),
        f"{workers} worker(s): time-to-generation p95 {p95:.1f} s, last {times[-1]:.1f} s",
    )
    turns = scopes * messages
    figure(
        f"{key}_messages_per_cpu_s",
        round(turns / max(cpu, 1e-9), 1),
        f"{workers} worker(s): workers' CPU from the jobs to the last generation: {cpu:.1f} s, "
        f"{turns / max(cpu, 1e-9):.0f} messages per CPU-second "
        f"({cpu / max(float(times[-1]), 1e-9) / workers:.2f} of a core each: the rest of the machine had the others)",
    )
    print(json.dumps({"kafka": key, "p50": p50, "p95": p95}), flush=True)
