"""Throughput and memory of the stream worker (`streams/`) on real Kafka, against a plain baseline.

    python -m bench.streams            # 200,000 turns over 100,000 scopes (~3 min on an idle 2-core machine)
    python -m bench.streams --quick    # 20,000 turns over 10,000 scopes (~1 min)

One run, one fresh topic set (2 partitions unless --partitions), every phase over the same turns topic:

1. produce N ConversationTurn events (key = scope, murmur2 partitioning) over S active scopes;
2. baseline: a confluent-kafka consume(batch) loop validating each record with
   `ConversationTurn.model_validate_json` (the issue's "raw consume + validate");
3. an idle `dreamstream worker streams` (its own empty topic set): startup and RSS with 0 scopes;
4. `dreamstream worker streams` on the turns topic: events/s from its consumer group's committed
   offsets (group = app id), CPU per event (its librdkafka threads included), startup, peak memory
   (VmHWM), bytes per scope, and the signals rows read back from its changelog;
5. the worker's logic in this process without Kafka (`Processor.process_batch` and the row writes),
   its stage costs, the timer over the full due index, the Python heap per scope, a cProfile;
6. with `--floor`: Faust's own floor, for comparison with the design it replaced (an agent that
   does nothing, and one that writes a fixed signals row per event);
7. with `--profile-worker`: a second worker under cProfile on the same topic (own app id).

Rates are measured between 10 % and 95 % of the records, which excludes startup. The machine's
load (1-minute load average and busy cores while the worker ran) is printed beside the figures:
the machine is shared, and other work on it lowers every rate. Figures are printed as they come;
the last line is one JSON object with all of them. Uses KAFKA_BOOTSTRAP_SERVERS when set, else the
tests' local broker on 127.0.0.1:19092 (started if needed, left running). Deletes the topics and
consumer groups it created, stops what it started.

Modules: bench/common.py (figures, /proc, Kafka offsets, child processes), bench/events.py (the
turns), bench/kafka_phases.py (1-4), bench/logic.py (5), bench/faust_floor.py (6),
bench/profiling.py (cProfile breakdowns, 7).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.common import CREATED, FIGURES, end_offsets, figure, say, section


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.streams", description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--scopes", type=int, default=100_000, help="active scopes (each gets at least one event)")
    parser.add_argument("--quick", action="store_true", help="20,000 events over 10,000 scopes")
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument(
        "--policy",
        choices=["bench", "default"],
        default="bench",
        help="bench: threshold_messages=40, other triggers off (one job per hot scope, ~scopes/1000); "
        "default: the Settings default policy (also the signals, pressure and idle triggers)",
    )
    parser.add_argument(
        "--floor-events", type=int, help="records for each Faust floor run (default events/10, at least 10,000)"
    )
    parser.add_argument("--floor", action="store_true", help="phase 6: Faust's own floor (the replaced design)")
    parser.add_argument("--no-profile", action="store_true", help="skip the in-process cProfile")
    parser.add_argument("--profile-worker", action="store_true", help="phase 8: a worker under cProfile (slow)")
    parser.add_argument("--profile-events", type=int, default=20_000)
    parser.add_argument(
        "--worker-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for the worker children, e.g. Faust's PRODUCER_LINGER=0.05",
    )
    parser.add_argument("--logs", type=Path, help="copy the children's logs into this directory")
    parser.add_argument("--_profiled-worker", dest="profiled_worker", help=argparse.SUPPRESS)
    parser.add_argument("--_faust-floor", dest="faust_floor", help=argparse.SUPPRESS)
    return parser.parse_args()


def cleanup(admin, watermarks, home: Path, logs: Path | None) -> None:
    """Delete the topics and consumer groups of every app id this run created; keep the logs if asked."""
    from dreamstream.topic_admin import delete_topics

    section("cleanup")
    groups: list[str] = []
    main_prefix = CREATED[0].topic_prefix if CREATED else None
    for s in CREATED:
        names = [spec.name for spec in s.topics.specs()]
        if s is not CREATED[0] and s.topic_prefix == main_prefix:
            names = [s.topics.signals_changelog]  # floor/proto/profiled apps share the input topics
        groups.append(s.app_id)
        try:
            delete_topics(s, names)
        except Exception as err:  # keep cleaning up the rest
            say(f"  could not delete topics of {s.app_id}: {err}")
    if CREATED:
        say(f"  deleted the topics of {len(CREATED)} app ids")
    if admin is not None:
        with contextlib.suppress(Exception):
            for future in admin.delete_consumer_groups(groups, request_timeout=10).values():
                with contextlib.suppress(Exception):
                    future.result()
    if watermarks is not None:
        watermarks.close()
    if logs:
        logs.mkdir(parents=True, exist_ok=True)
        for log in home.glob("*.log"):
            shutil.copy(log, logs / log.name)
        say(f"  children's logs copied to {logs}")
    shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    args = parse_args()
    if args.profiled_worker:
        from bench.profiling import profiled_worker_child

        return profiled_worker_child(args.profiled_worker)
    if args.faust_floor:
        from bench.faust_floor import floor_child

        return floor_child(args.faust_floor)
    if args.quick:
        args.events, args.scopes = 20_000, 10_000
    args.scopes = min(args.scopes, args.events)
    extra_env = dict(item.split("=", 1) for item in args.worker_env)

    from confluent_kafka import Consumer
    from confluent_kafka.admin import AdminClient

    from bench.common import broker_pid
    from bench.faust_floor import floor_phase
    from bench.kafka_phases import baseline_phase, changelog_phase, idle_phase, produce_phase, worker_phase
    from bench.logic import in_process_phase
    from bench.profiling import profiled_worker_phase
    from schemas.policy import TriggerPolicy
    from tests.integration.kafka_env import broker_bootstrap, unique_settings

    started = time.monotonic()
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP_SERVERS") or broker_bootstrap()
    home = Path(tempfile.mkdtemp(prefix="dreamstream-bench-"))
    policy = (
        TriggerPolicy(threshold_messages=40, threshold_signals=1_000_000, idle_s=86_400, schedule_s=0)
        if args.policy == "bench"
        else TriggerPolicy()
    )
    overrides = {"partitions": args.partitions, "trigger": policy}
    say(
        f"dreamstream stream worker benchmark: {args.events:,} events, {args.scopes:,} scopes, {args.partitions} "
        f"partitions, Kafka {bootstrap}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, policy {args.policy}"
    )
    FIGURES.update(
        events=args.events, scopes=args.scopes, partitions=args.partitions, policy=args.policy, worker_env=extra_env
    )
    admin = watermarks = None
    try:
        settings = unique_settings(bootstrap, home, **overrides)
        CREATED.append(settings)
        admin = AdminClient(settings.kafka_client_config())
        watermarks = Consumer({**settings.kafka_client_config(), "group.id": f"bench-wm-{uuid.uuid4().hex[:8]}"})
        produce_phase(settings, args.events, args.scopes)
        total = end_offsets(watermarks, settings.topics.turns, settings.partitions)
        msgs = baseline_phase(settings, total)

        idle_settings = unique_settings(bootstrap, home, **overrides)
        CREATED.append(idle_settings)
        idle_rss = idle_phase(idle_settings, home, extra_env, admin)

        rate = worker_phase(
            settings, home, total, args.scopes, extra_env, admin, watermarks, idle_rss, broker_pid(bootstrap)
        )
        row = changelog_phase(settings) or b'{"messages":1}'
        ratio = rate / FIGURES["baseline_events_per_s"]
        figure("ratio_worker_to_baseline", round(ratio, 3), f"ratio worker/baseline {ratio:.3f} (events/s)")
        if "worker_cpu_us_per_event" in FIGURES:
            cpu_ratio = FIGURES["baseline_cpu_us_per_event"] / FIGURES["worker_cpu_us_per_event"]
            figure(
                "ratio_worker_to_baseline_cpu",
                round(cpu_ratio, 3),
                f"ratio per CPU second {cpu_ratio:.3f} (baseline µs CPU/event / worker µs CPU/event; "
                f"less sensitive to other load)",
            )

        in_process_phase(settings, msgs, not args.no_profile)
        del msgs
        if args.floor:
            floor_phase(settings, home, min(total, args.floor_events or max(10_000, total // 10)), extra_env, row)
        if args.profile_worker:
            profiled_worker_phase(settings, home, min(total, args.profile_events), extra_env, admin, watermarks)

        section("targets (this machine)")
        checks = {
            "worker >= 20,000 events/s": FIGURES["worker_events_per_s"] >= 20_000,
            "worker <= 50 µs CPU per event": FIGURES.get("worker_cpu_us_per_event", 1e9) <= 50,
            "worker/baseline >= 0.25": FIGURES["ratio_worker_to_baseline"] >= 0.25,
            "<= 1 KB state per scope (peak RSS - warm idle RSS)": FIGURES["bytes_per_scope_peak"] <= 1024,
        }
        for name, ok in checks.items():
            say(f"  {'met   ' if ok else 'MISSED'}  {name}")
        FIGURES["targets_met"] = checks
        load = os.getloadavg()
        figure(
            "load_average",
            [round(x, 2) for x in load],
            f"machine load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (1/5/15 min) on "
            f"{os.cpu_count()} cores; other work on this machine: {FIGURES.get('other_cpu_cores', 'n/a')} cores "
            f"while the worker ran",
        )
    finally:
        cleanup(admin, watermarks, home, args.logs)
        FIGURES["bench_wall_s"] = round(time.monotonic() - started, 1)
        say(f"  wall time {FIGURES['bench_wall_s']} s")
    print(json.dumps(FIGURES), flush=True)


if __name__ == "__main__":
    main()
