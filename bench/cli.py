"""How long the `dreamstream` command takes: `--version`, `--help`, and the read commands through a
running worker's HTTP API, each a fresh process (the way an operator runs it), wall and CPU time,
the median of `--runs` runs; then the slowest imports of each (`python -X importtime`).

    python -m bench.cli            # 7 runs each
    python -m bench.cli --runs 3

The API is served in this process over an embedded store in a temporary directory holding one
scope of 200 memories (the hashing embedder: what is timed is the command, not a model). Targets
(issue 20): `--version` and `--help` under 1 s, read commands under 2 s. Wall time moves with the
machine's load, printed beside the figures; CPU time (user + system of the child) much less.
Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

SCOPE = "bench/cli/u1"
TARGETS_S = {"--version": 1.0, "--help": 1.0}
READ_TARGET_S = 2.0


def run_once(args: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall s, CPU s of the child, exit status)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(args, env=env, capture_output=True, timeout=120)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return wall, cpu, done.returncode


def slowest_imports(args: list[str], env: dict[str, str], top: int = 5) -> list[tuple[str, float]]:
    done = subprocess.run([sys.executable, "-X", "importtime", *args], env=env, capture_output=True, timeout=120)
    rows = []
    for line in done.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line.split("|")
            # top-level imports only: their cumulative time is what they cost
            if cumulative.strip().isdigit() and not name.startswith("  "):
                rows.append((name.strip(), int(cumulative) / 1e6))
    return sorted(rows, key=lambda r: -r[1])[:top]


def serve(home: Path):
    """An API over an embedded store with one scope of 200 memories; returns (url, stop)."""
    from consumers.api import start_api
    from consumers.runtime import open_runtime
    from consumers.store import AppliedJob, GenerationInfo
    from schemas import MemoryRecord
    from schemas.settings import Settings

    settings = Settings(
        home=home,
        embedder="hashing",
        api_port=0,
        kafka_bootstrap_servers=os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9"),
    )
    runtime = open_runtime(settings)
    t0 = datetime(2026, 3, 5, tzinfo=UTC)
    records = [
        MemoryRecord(
            scope=SCOPE,
            memory_id=f"m{i}",
            text=f"Memory {i}: the traveller noted preference number {i} about seats, meals and hotels.",
            origin="transcript",
            evidence_message_ids=(f"msg-{i}",),
            created_at=t0 + timedelta(minutes=i),
            updated_at=t0 + timedelta(minutes=i),
        )
        for i in range(200)
    ]
    state = runtime.memories.state(SCOPE)
    runtime.memories.write_candidate(SCOPE, 1, records)
    info = GenerationInfo(generation=1, job_id="bench", status="active", created_at=t0, memories_active=200)
    runtime.memories.promote(state, info, AppliedJob(job_id="bench", outcome="completed", generation=1))
    server = start_api(settings, runtime, lambda: True)

    def stop() -> None:
        server.stop()
        runtime.close()

    return server.url, stop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        url, stop = serve(Path(tmp) / "home")
        env = {**os.environ, "DREAMSTREAM_HOME": str(Path(tmp) / "cli-home"), "DREAMSTREAM_API_URL": url}
        commands = {
            "--version": ["--version"],
            "--help": ["--help"],
            "memories list": ["memories", "list", SCOPE, "--json"],
            "memories show": ["memories", "show", SCOPE, "m7", "--json"],
            "generations": ["generations", SCOPE, "--json"],
            "jobs": ["jobs", SCOPE, "--json"],
            "quarantine list": ["quarantine", "list", SCOPE, "--json"],
        }
        dreamstream = [sys.executable, "-m", "dreamstream.cli"]
        print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}; "
              f"{os.cpu_count()} cores; median of {options.runs} runs, each a fresh process")  # fmt: skip
        print(f"{'command':<18} {'wall s':>7} {'cpu s':>7} {'target':>7}  slowest imports (cumulative s)")
        figures: dict[str, dict[str, float]] = {}
        try:
            for name, args in commands.items():
                runs = [run_once([*dreamstream, *args], env) for _ in range(options.runs)]
                wall = statistics.median(r[0] for r in runs)
                cpu = statistics.median(r[1] for r in runs)
                target = TARGETS_S.get(name, READ_TARGET_S)
                imports = slowest_imports(["-m", "dreamstream.cli", *args], env)
                shown = ", ".join(f"{m} {s:.2f}" for m, s in imports[:4])
                verdict = "ok" if wall < target else "SLOW"
                print(f"{name:<18} {wall:7.3f} {cpu:7.3f} {target:6.1f}s  {verdict}  {shown}")
                figures[name] = {"wall_s": round(wall, 4), "cpu_s": round(cpu, 4), "target_s": target}
        finally:
            stop()
        load = os.getloadavg()
        print(json.dumps({"bench": "cli", "load_average": [round(x, 2) for x in load], "figures": figures}))


if __name__ == "__main__":
    main()
