"""Phase 6 (--floor): Faust's own floor on this machine, the design the stream worker replaced.
The old worker's App options and input topics, with an agent that does nothing, then one that only
writes a fixed signals row per event."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

from bench.common import CREATED, Child, figure, proc_cpu_s, section, window_rate


def floor_phase(settings, home: Path, count: int, extra_env: dict[str, str], row: bytes) -> None:
    """Faust alone: the worker's App options and input topics, an agent doing nothing / only a table
    write. The agent appends (time, events) to a file every 500 events (its commits come only every
    2.8 s or 10,000 events, too coarse for a short run)."""
    from dreamstream.topic_admin import ensure_topics

    section(
        f"6. Faust's floor on this machine (the replaced design): same App options and topics, first {count:,} records"
    )
    for mode, what in (
        ("noop", "agent iterating stream.events(), nothing else"),
        (
            "table",
            "agent writing one fixed signals row per event, raw JSON bytes as the worker (a changelog record each)",
        ),
    ):
        floor = settings.model_copy(update={"app_id": f"{settings.app_id}-floor-{mode}"})
        ensure_topics(floor)  # its changelog topic
        CREATED.append(floor)
        progress = home / f"{floor.app_id}.progress"
        progress.unlink(missing_ok=True)
        child = Child(
            floor,
            home,
            f"faust-floor-{mode}",
            {**extra_env, "BENCH_FLOOR_ROW": row.decode(), "BENCH_PROGRESS": str(progress)},
            argv=["--_faust-floor", mode],
        )
        cpu: list[tuple[float, float]] = []
        samples: list[tuple[float, int]] = []
        try:
            deadline = time.monotonic() + 120 + count / 200
            while not samples or samples[-1][1] < count:
                child.check()
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Faust floor ({mode}) did not reach {count} events")
                time.sleep(0.25)
                cpu.append((time.time(), proc_cpu_s(child.pid)))
                with contextlib.suppress(OSError):
                    samples = [
                        (float(t), int(c))
                        for t, c in (line.split() for line in progress.read_text().splitlines() if line.count(" ") == 1)
                    ]
        finally:
            child.stop()
        rate, a, b = window_rate(samples, count)
        win = [c for c in cpu if a[0] <= c[0] <= b[0]]
        cores = (win[-1][1] - win[0][1]) / (win[-1][0] - win[0][0]) if len(win) >= 2 else float("nan")
        figure(
            f"faust_floor_{mode}_events_per_s",
            round(rate),
            f"{rate:7,.0f} events/s, {cores:.2f} cores = {cores / rate * 1e6:4.0f} µs CPU/event  ({what})",
        )
        figure(f"faust_floor_{mode}_cpu_us_per_event", round(cores / rate * 1e6, 1))


def floor_child(mode: str) -> None:
    """Child mode (`--_faust-floor MODE`): a Faust app with streams.app's App options and table
    schema (the row as raw JSON bytes) on the same input topics."""
    import faust

    from schemas.settings import get_settings

    settings = get_settings()
    row = os.environ["BENCH_FLOOR_ROW"].encode()  # the worker's ScopeSignals.encode() bytes
    try:
        from streams.credentials import broker_credentials

        credentials = broker_credentials(settings)
    except ImportError:
        credentials = None
    app = faust.App(
        settings.app_id,
        broker_credentials=credentials,
        datadir=str(settings.home / f"faust-{settings.app_id}"),
        broker=[f"kafka://{server}" for server in settings.kafka_bootstrap_servers.split(",")],
        store="memory://",
        topic_partitions=settings.partitions,
        topic_replication_factor=settings.replication_factor,
        topic_allow_declare=False,
        topic_disable_leader=True,
        consumer_auto_offset_reset="earliest",
        broker_session_timeout=settings.session_timeout_ms / 1000,
        broker_heartbeat_interval=max(settings.session_timeout_ms / 3000, 1),
        producer_linger=0.02,  # as streams/app.py
        key_serializer="raw",
        value_serializer="raw",
    )
    topics = settings.topics
    inputs = app.topic(
        topics.turns,
        topics.memory_adds,
        topics.control,
        topics.audit,
        key_type=bytes,
        value_type=bytes,
        partitions=settings.partitions,
    )
    table = app.Table(
        "signals",
        default=None,
        partitions=settings.partitions,
        schema=faust.Schema(key_type=str, value_type=bytes, key_serializer="json", value_serializer="raw"),
    )

    progress = open(os.environ["BENCH_PROGRESS"], "a")

    @app.agent(inputs)
    async def process(stream):
        n = 0
        async for event in stream.events():
            if mode == "table":
                table[event.message.key.decode()] = row
            n += 1
            if n % 500 == 0:
                progress.write(f"{time.time()} {n}\n")
                progress.flush()

    sys.argv = ["bench-floor", "worker", "--without-web", "--loglevel", "warn"]
    app.main()
