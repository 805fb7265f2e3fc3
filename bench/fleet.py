"""Consolidation at fleet scale: cost per message against the embedding floor, pass cost against
the rest of the store, promotion, search, and time-to-generation through Kafka.

    python -m bench.fleet            # 2,000 scopes x 20 messages; Kafka 200 scopes x 30 turns
    python -m bench.fleet --quick    # 300 scopes x 20 messages; Kafka 100 scopes x 30 turns

Every phase runs the project's own code on the default embedded store (Qdrant's engine
in-process) with the MiniLM embedder, in this process unless it says Kafka:

1. **floor**: the embedder alone, batches of 32, its cache off, over the fleet's messages: what
   embedding each message once costs, the least any consolidation can spend; over every k-th
   message of the fleet (2,000 of them), measured again after phase 2 (the load moves), and the
   ratios are to the mean of both.
2. **fleet**: every scope's turns indexed in batches of 500 across scopes (as the worker reads
   them), then one pass per scope: messages consolidated per CPU-second, and its ratio to the floor;
   then each scope's next turns (`--later-messages`, 10) and a second pass: the same figures for a
   scope whose memory already holds something (the verify step checks its claims).
3. **other scopes**: the CPU of one scope's pass on an empty store, then with 100k points of
   other scopes in it (median of 3 each, the embedder's cache warmed alike for both).
4. **promote**: wall and CPU to write and promote a generation of 1,000 records (texts unchanged
   from the active generation, so no embedding), and the same on qdrant-client's local mode.
5. **search**: first search after a promotion and warm searches (p50/p99) at 1k/5k/20k memories.
6. **Kafka** (`bench/fleet_kafka.py`): turns and one job per scope produced onto a real broker,
   1 and 2 consolidation worker processes; time from a scope's job to its promoted generation.

CPU seconds are the process's (onnxruntime's threads included) and are printed beside wall
seconds; the load average is printed with every figure. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench import fleet_stores  # noqa: E402
from bench.fleet_data import interleaved, later_turns, make_fleet  # noqa: E402
from dreaming.embedding.cache import VectorCache  # noqa: E402
from dreaming.embedding.minilm import MiniLMEmbedder  # noqa: E402

FIGURES: dict[str, object] = {}
TARGETS = {
    "messages_per_cpu_s": 200,
    "ratio_to_floor": 0.6,
    "other_scopes_ratio": 1.2,
    "promote_wall_s_per_1k": 1.0,
    "time_to_generation_p95_s": 60,
    "first_search_after_promote_s_20k": 0.2,
}


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def figure(key: str, value: object, line: str) -> None:
    FIGURES[key] = value
    print(f"  {line}   [{load()}]", flush=True)


def cpu_wall() -> tuple[float, float]:
    return time.process_time(), time.perf_counter()


def floor(texts: list[str], key: str = "floor_messages_per_cpu_s") -> float:
    """Messages embedded per CPU-second, each once, batches of 32, cache off."""
    embedder = MiniLMEmbedder(batch_size=32, cache=VectorCache(0)).load()
    embedder.embed_array(texts[:64])  # warm-up: the first runs allocate
    cpu, wall = cpu_wall()
    embedder.embed_array(texts)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    rate = len(texts) / cpu
    figure(
        key,
        round(rate, 1),
        f"floor: {len(texts)} messages in {cpu:.2f} s CPU ({wall:.2f} s wall): {rate:.0f} per CPU-second",
    )
    return rate


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--scopes", type=int)
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--later-messages", type=int, default=10, help="then this many more a scope, and a second pass")
    parser.add_argument("--other-points", type=int, default=100_000)
    parser.add_argument("--search-sizes", default="1000,5000,20000")
    parser.add_argument("--skip", default="", help="comma-separated phases to skip: fleet,others,promote,search,kafka")
    parser.add_argument("--kafka-scopes", type=int)
    parser.add_argument("--kafka-workers", default="1,2")
    args = parser.parse_args(argv)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    scopes = args.scopes or (300 if args.quick else 2_000)
    skip = set(filter(None, args.skip.split(",")))
    work = Path(tempfile.mkdtemp(prefix="bench-fleet-"))
    print(f"bench.fleet: {scopes} scopes x {args.messages} messages; {os.cpu_count()} CPUs; {load()}", flush=True)
    try:
        fleet = make_fleet(scopes, args.messages)
        turns = list(interleaved(fleet))
        print("\n== 1 floor (MiniLM, batches of 32, cache off)", flush=True)
        # Every k-th message of the whole fleet: the first 2,000 of a large fleet are its first
        # message in every scope (the longest kind), which read 123 per CPU-second against 182
        # for the last 2,000 in one run.
        sample = [t.content for t in turns[:: max(1, len(turns) // 2_000)][:2_000]]
        floor_rate = floor(sample)
        if "fleet" not in skip:
            print(
                f"\n== 2 fleet: {len(turns)} messages, index in batches of 500, then one pass per scope "
                "(ready jobs in groups of `pass_group`, as a worker runs them)",
                flush=True,
            )
            later = later_turns(fleet, args.later_messages) if args.later_messages > 0 else None
            rate = fleet_stores.fleet(work / "fleet", fleet, turns, figure, later)
            # The floor again, now: on a shared machine it moves with the load, and the passes ran
            # between the two measurements.
            after = floor(sample, "floor_after_messages_per_cpu_s")
            floor_rate = (floor_rate + after) / 2
            figure("floor_mean_messages_per_cpu_s", round(floor_rate, 1), f"floor, mean of both: {floor_rate:.0f}")
            figure("ratio_to_floor", round(rate / floor_rate, 3), f"ratio to the floor: {rate / floor_rate:.2f}")
            if later:
                later_rate = float(FIGURES["later_messages_per_cpu_s"])  # type: ignore[arg-type]
                figure(
                    "later_ratio_to_floor",
                    round(later_rate / floor_rate, 3),
                    f"later, ratio to the floor: {later_rate / floor_rate:.2f}",
                )
        if "others" not in skip:
            print(f"\n== 3 a pass against {args.other_points:,} points of other scopes", flush=True)
            fleet_stores.other_scopes(work / "others", args.messages, args.other_points, figure)
        if "promote" not in skip:
            print("\n== 4 promote 1,000 records", flush=True)
            fleet_stores.promote(work / "promote", figure)
        if "search" not in skip:
            print("\n== 5 search", flush=True)
            for size in (int(s) for s in args.search_sizes.split(",") if s):
                fleet_stores.search(work / f"search-{size}", size, figure)
        if "kafka" not in skip:
            from bench import fleet_kafka

            kafka_scopes = args.kafka_scopes or (100 if args.quick else 200)
            for workers in (int(w) for w in args.kafka_workers.split(",") if w):
                print(f"\n== 6 Kafka: {kafka_scopes} scopes x 30 turns, {workers} consolidation worker(s)", flush=True)
                fleet_kafka.run(work / f"kafka-{workers}", kafka_scopes, 30, workers, figure)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\ntargets: {json.dumps(TARGETS)}; {load()}")
    print(json.dumps({"load_average": os.getloadavg(), **FIGURES}))


def median(values: list[float]) -> float:
    return statistics.median(values)


if __name__ == "__main__":
    main()
