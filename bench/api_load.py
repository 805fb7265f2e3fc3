"""Load test of the HTTP API beside a working consolidation worker (bounded, loopback only).

    python -m bench.api_load                  # 20 clients x 60 s on a 3,000-memory scope
    python -m bench.api_load --quick          # 20 clients x 20 s

One real `dreamstream worker consumers` process serves the API on 127.0.0.1 with the default
embedded store, which holds one scope of 3,000 memories. Right before the load starts, a backlog
of turns and one job per scope (150 scopes x 20 turns) is produced onto a real Kafka broker, so
the worker indexes and runs passes all through the load. `--clients` concurrent clients then ask,
for `--seconds`, a random mix of search (k=10), get one memory (with its history) and list pages
of 100 on the big scope. Printed: requests, rate, p50/p99 per kind, every status (429s counted
apart: they are the bounded queue refusing at once), errors other than 429, and the worker's lag
(turns + jobs not yet committed) every 5 s during the load and after it until it is 0.
The last line is one JSON object. Targets: p99 <= 250 ms, 0 errors other than 429, lag drains.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import aiohttp
import numpy as np
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench.common import committed, end_offsets  # noqa: E402
from bench.fleet_data import make_fleet, memory_texts  # noqa: E402
from bench.fleet_kafka import _settings, produce_turns  # noqa: E402
from bench.fleet_stores import _bulk_store, _promote, _records  # noqa: E402
from dreaming.store import open_qdrant  # noqa: E402
from dreamstream.topic_admin import ensure_topics  # noqa: E402
from plumbing.kafka_io import make_producer  # noqa: E402
from schemas import DreamJob, make_job_id  # noqa: E402
from schemas.settings import Settings  # noqa: E402

BIG = "load/assistant/big"
P99_TARGET_S = 0.25


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def seed(settings: Settings, size: int) -> list[str]:
    client = open_qdrant(settings)
    try:
        store = _bulk_store(client, prefix=settings.collection_prefix)  # the worker's collections
        records = _records(BIG, memory_texts(size))
        _promote(store, BIG, records, "seed")
        return [r.memory_id for r in records]
    finally:
        client.close()


def produce_backlog(settings: Settings, scopes: int, messages: int) -> int:
    fleet = make_fleet(scopes, messages, seed=41, tenant="backlog")
    producer = make_producer(settings)
    marks = produce_turns(producer, settings, fleet)
    for s in fleet:
        marks_of = {settings.topics.turns: marks[s.scope]}
        job = DreamJob(
            job_id=make_job_id(s.scope, "manual", marks_of),
            scope=s.scope,
            trigger="manual",
            requested_at="2026-06-02T00:00:00+00:00",
            watermarks=marks_of,
        )  # type: ignore[arg-type]
        producer.produce(settings.topics.jobs, key=s.scope.encode(), value=job.model_dump_json().encode())
    producer.flush(60)
    return scopes * messages + scopes


class Lag:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.admin = AdminClient(settings.kafka_client_config())
        self.watermarks = Consumer({**settings.kafka_client_config(), "group.id": "bench-api-load-watermarks"})

    def __call__(self) -> int:
        s, topics = self.settings, self.settings.topics
        return sum(
            end_offsets(self.watermarks, t, s.partitions) - committed(self.admin, s.consumer_group, t, s.partitions)
            for t in (topics.turns, topics.jobs)
        )


async def client_loop(base: str, ids: list[str], until: float, out: list[tuple[str, int, float]], seed_n: int) -> None:
    rng = random.Random(seed_n)
    words = "pottery chess Lisbon Graz parrot nurse sailing pilot Bergen ferret baker".split()
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
        while time.monotonic() < until:
            kind = rng.choice(("search", "get", "list"))
            if kind == "search":
                url = (
                    f"{base}/scopes/{BIG}/memories/search?q={'+'.join(rng.sample(words, 3))}+{rng.randint(1, 999)}&k=10"
                )
            elif kind == "get":
                url = f"{base}/scopes/{BIG}/memories/{rng.choice(ids)}"
            else:
                url = f"{base}/scopes/{BIG}/memories?limit=100&cursor=1:{rng.randrange(0, len(ids), 100)}"
            started = time.perf_counter()
            try:
                async with session.get(url) as response:
                    await response.read()
                    status = response.status
            except (TimeoutError, aiohttp.ClientError):
                status = -1
            out.append((kind, status, time.perf_counter() - started))
            if status == 429:
                await asyncio.sleep(0.05)  # a refused client backs off a little, as a real one would


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--memories", type=int, default=3_000)
    parser.add_argument("--backlog-scopes", type=int, default=150)
    args = parser.parse_args(argv)
    seconds = args.seconds or (20.0 if args.quick else 60.0)
    home = Path(tempfile.mkdtemp(prefix="bench-api-load-"))
    settings = _settings(home).model_copy(update={"api_port": free_port()})
    ensure_topics(settings)
    print(
        f"bench.api_load: {args.clients} clients x {seconds:.0f} s on {args.memories:,} memories; {load()}", flush=True
    )
    ids = seed(settings, args.memories)
    from dreamstream_tools.pipeline import settings_env

    env = {**os.environ, **settings_env(settings), "PYTHONPATH": str(REPO_ROOT)}
    log = open(home / "worker.log", "ab")
    worker = subprocess.Popen(
        [sys.executable, "-m", "dreamstream.cli", "worker", "consumers"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{settings.api_port}"
    figures: dict[str, object] = {}
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/readyz", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the worker did not become ready: {(home / 'worker.log').read_text()[-2000:]}")
            time.sleep(0.5)
        # One search and one page first: building the scope's search index once is the
        # first-search figure of bench.fleet, not what this test measures.
        for path in (f"/scopes/{BIG}/memories/search?q=warm+up", f"/scopes/{BIG}/memories?limit=100"):
            with urllib.request.urlopen(base + path, timeout=120) as response:
                response.read()
        lag = Lag(settings)
        backlog = produce_backlog(settings, args.backlog_scopes, 20)
        print(f"  backlog produced: {backlog:,} records (turns + jobs); lag now {lag():,}", flush=True)
        results: list[tuple[str, int, float]] = []
        lags: list[tuple[float, int]] = []
        start = time.monotonic()
        until = start + seconds

        async def run() -> None:
            tasks = [asyncio.create_task(client_loop(base, ids, until, results, i)) for i in range(args.clients)]
            while time.monotonic() < until:
                value = await asyncio.to_thread(lag)
                lags.append((time.monotonic() - start, value))
                print(f"  t={lags[-1][0]:5.1f}s lag {value:>6,}  requests {len(results):>6,}   [{load()}]", flush=True)
                await asyncio.sleep(5)
            await asyncio.gather(*tasks)

        asyncio.run(run())
        after = time.monotonic()
        while (value := lag()) > 0 and time.monotonic() - after < 300:
            lags.append((time.monotonic() - start, value))
            time.sleep(2)
        lags.append((time.monotonic() - start, value))
        if worker.poll() is not None:
            raise RuntimeError(f"the worker exited with {worker.returncode}")
    finally:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
            try:
                worker.wait(60)
            except subprocess.TimeoutExpired:
                worker.kill()
        log.close()
    ok = [r for r in results if r[1] == 200]
    refused = sum(1 for r in results if r[1] == 429)
    errors = [r for r in results if r[1] not in (200, 429)]
    statuses: dict[str, int] = {}
    for _, status, _ in results:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    print(
        f"\n  {len(results):,} requests in {seconds:.0f} s ({len(results) / seconds:.0f}/s); "
        f"statuses {statuses}   [{load()}]"
    )
    for kind in ("search", "get", "list", "all"):
        times = [t for k, s, t in ok if kind in (k, "all")]
        if times:
            p50, p99 = np.percentile(times, 50), np.percentile(times, 99)
            figures[f"{kind}_p50_s"], figures[f"{kind}_p99_s"] = round(float(p50), 4), round(float(p99), 4)
            print(f"  {kind:<6} answered {len(times):>6,}: p50 {p50 * 1e3:7.1f} ms  p99 {p99 * 1e3:7.1f} ms")
    during = [v for t, v in lags if t <= seconds]
    drained_in = next((t for t, v in lags if v == 0), None)
    figures.update(
        requests=len(results),
        refused_429=refused,
        errors_other_than_429=len(errors),
        lag_at_start=during[0] if during else None,
        lag_at_end_of_load=during[-1] if during else None,
        lag_max=max(during, default=0),
        lag_zero_at_s=drained_in,
        lag_series=[(round(t, 1), v) for t, v in lags],
    )
    print(f"  errors other than 429: {len(errors)}; 429: {refused}")
    print(
        f"  lag: at start {figures['lag_at_start']}, max {figures['lag_max']}, "
        f"at the end of the load {figures['lag_at_end_of_load']}, 0 at {drained_in} s"
    )
    p99 = float(figures.get("all_p99_s", 1e9))  # type: ignore[arg-type]
    drains = bool(during) and during[-1] < max(during)
    verdict = "met" if p99 <= P99_TARGET_S and not errors and drains else "NOT met"
    print(f"  targets (p99 <= {P99_TARGET_S * 1e3:.0f} ms, no errors but 429, lag drains during the load): {verdict}")
    shutil.rmtree(home, ignore_errors=True)
    print(json.dumps({"load_average": os.getloadavg(), **figures}))


if __name__ == "__main__":
    main()
