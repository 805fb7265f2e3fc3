"""How long the `dreamstream` command takes: `--version`, `--help`, and the read commands through a
running worker's HTTP API, each a fresh process (the way an operator runs it), wall and CPU time,
the median of `--runs` runs; then the slowest imports of each (`python -X importtime`).

    python -m bench.cli            # 7 runs each
    python -m bench.cli --runs 3
    python -m bench.cli --baseline /tmp/main-src   # also another checkout's CLI (`git archive main | tar -x -C DIR`)

The API is served in this process over an embedded store in a temporary directory holding one
scope of 200 memories (the hashing embedder: what is timed is the command, not a model); its
producer needs a Kafka: `KAFKA_BOOTSTRAP_SERVERS`, else the tests' local broker (as bench.streams). Targets
(issue 20): `--version` and `--help` under 1 s, read commands under 2 s. Wall time moves with the
machine's load, printed beside the figures; CPU time (user + system of the child) much less.
The commands run as an operator's would while a worker runs: the worker's embedded store is
locked, `DREAMSTREAM_API_URL` names its API. With `--baseline DIR` the same commands also run from
that source tree (PYTHONPATH), in the same run, and the ratio is printed. Ends with one JSON line.
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


def run_once(args: list[str], env: dict[str, str], must_succeed: bool = True) -> tuple[float, float, int]:
    """(wall s, CPU s of the child, exit status). Children run in the store's home, not in the
    repository: `python -m` puts the working directory first on sys.path, before PYTHONPATH."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(args, env=env, capture_output=True, timeout=120, cwd=env["DREAMSTREAM_HOME"])
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0 and must_succeed:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return wall, cpu, done.returncode


def slowest_imports(args: list[str], env: dict[str, str], top: int = 5) -> list[tuple[str, float]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        env=env,
        capture_output=True,
        timeout=120,
        cwd=env["DREAMSTREAM_HOME"],
    )
    rows = []
    for line in done.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line.split("|")
            # top-level imports only: their cumulative time is what they cost
            if cumulative.strip().isdigit() and not name.startswith("  "):
                rows.append((name.strip(), int(cumulative) / 1e6))
    return sorted(rows, key=lambda r: -r[1])[:top]


def bootstrap() -> str:
    from bench.common import REPO_ROOT  # puts the repository on sys.path for tests.integration

    assert REPO_ROOT.exists()
    from tests.integration.kafka_env import broker_bootstrap

    return broker_bootstrap()


def serve(home: Path):
    """An API over an embedded store (under `home`, held by this process as a worker holds it) with
    one scope of 200 memories; returns (url, stop)."""
    from consumers.api import start_api
    from consumers.runtime import open_runtime
    from dreaming.store import AppliedJob, GenerationInfo
    from schemas import MemoryRecord
    from schemas.settings import Settings

    settings = Settings(
        home=home,
        embedder="hashing",
        api_port=0,
        kafka_bootstrap_servers=bootstrap(),
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


def time_commands(
    commands: dict[str, list[str]], env: dict[str, str], runs: int, must_succeed: bool = True
) -> dict[str, tuple[float, float, list[tuple[str, float]], bool]]:
    """name -> (median wall s, median CPU s, slowest imports, whether it succeeded)."""
    dreamstream = [sys.executable, "-m", "dreamstream.cli"]
    out = {}
    for name, args in commands.items():
        timed = [run_once([*dreamstream, *args], env, must_succeed) for _ in range(runs)]
        out[name] = (
            statistics.median(r[0] for r in timed),
            statistics.median(r[1] for r in timed),
            slowest_imports(["-m", "dreamstream.cli", *args], env),
            all(r[2] == 0 for r in timed),
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline", type=Path, default=None, help="another source tree to time the same way")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        home = Path(tmp) / "home"
        url, stop = serve(home)
        env = {
            **os.environ,
            "DREAMSTREAM_HOME": str(home),
            "DREAMSTREAM_API_URL": url,
            "DREAMSTREAM_EMBEDDER": "hashing",
        }
        commands = {
            "--version": ["--version"],
            "--help": ["--help"],
            "memories list": ["memories", "list", SCOPE, "--json"],
            "memories show": ["memories", "show", SCOPE, "m7", "--json"],
            "generations": ["generations", SCOPE, "--json"],
            "jobs": ["jobs", SCOPE, "--json"],
            "quarantine list": ["quarantine", "list", SCOPE, "--json"],
        }
        load = os.getloadavg()
        print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} cores; "
              f"median of {options.runs} runs, each a fresh process")  # fmt: skip
        try:
            ours = time_commands(commands, env, options.runs)
            base = None
            if options.baseline is not None:
                # An older CLI may refuse the newer API's answers (a strict parser): it has done the
                # same work by then (imports, the store's lock, the request), so its time still counts.
                base_env = {**env, "PYTHONPATH": str(options.baseline)}
                base = time_commands(commands, base_env, options.runs, must_succeed=False)
        finally:
            stop()
        head = f"{'command':<18} {'wall s':>7} {'cpu s':>7} {'target':>7}"
        print(head + (f" {'base wall':>9} {'base cpu':>8} {'cpu ratio':>9}" if base else "") + "  slowest imports")
        figures: dict[str, dict[str, float]] = {}
        for name, (wall, cpu, imports, _) in ours.items():
            target = TARGETS_S.get(name, READ_TARGET_S)
            line = f"{name:<18} {wall:7.3f} {cpu:7.3f} {target:6.1f}s {'ok  ' if wall < target else 'SLOW'}"
            figures[name] = {"wall_s": round(wall, 4), "cpu_s": round(cpu, 4), "target_s": target}
            if base:
                base_wall, base_cpu, _, answered = base[name]
                line += f" {base_wall:9.3f} {base_cpu:8.3f} {cpu / base_cpu:9.2f}{'' if answered else '*'}"
                figures[name] |= {"baseline_wall_s": round(base_wall, 4), "baseline_cpu_s": round(base_cpu, 4)}
            print(line + "  " + ", ".join(f"{m} {t:.2f}" for m, t in imports[:4]))
        if base and not all(b[3] for b in base.values()):
            print("* the baseline refused the answer (after the same work: imports, the store's lock, the request)")
        load = os.getloadavg()
        print(json.dumps({"bench": "cli", "load_average": [round(x, 2) for x in load], "figures": figures}))


if __name__ == "__main__":
    main()
