"""What a consolidated message costs as one scope grows: the same conversations dreamed as one scope
each (the baseline, measured in the same run) and as a single scope holding all of them, in one
pass and in a pass every `--pass-every` events.

    python -m bench.scope_size                  # BEAM's 20 dev conversations (about 12 minutes on 2 cores)
    python -m bench.scope_size --conversations 8 --pass-every 100

Every arm runs in a fresh process (`--direct` dreaming, offline engine, the store as configured) on
one disk cache of MiniLM vectors that a first, unmeasured round of every arm fills, so no arm pays
for embeddings and none gains from another's. Each arm prints dream CPU seconds beside wall seconds
and its CPU per message; the figure is the ratio of an arm's CPU per message to the baseline's with
the same passes (1.0: a message costs the same in a big scope as in a small one). The memories an
arm makes are printed too, as a check that the arms dream the same conversations.

The conversations: `--events`, a JSONL of turns (default: `../shared/eval/beam/events.jsonl` beside
the checkout); `--conversations N` keeps the first N scopes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_EVENTS = REPO_ROOT.parent / "shared" / "eval" / "beam" / "events.jsonl"
ONE_SCOPE = "bench/one-scope/all"
FIGURES: dict[str, object] = {}


def _write_arms(events: Path, conversations: int, folder: Path) -> tuple[Path, Path, int]:
    """The kept conversations as they are (one scope each) and as one scope, two JSONL files."""
    rows = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if "memory_id" not in r]  # turns only: the cost of dreaming a transcript
    kept = sorted({r["scope"] for r in rows})[:conversations]
    rows = [r for r in rows if r["scope"] in kept]
    apart, together = folder / "apart.jsonl", folder / "together.jsonl"
    apart.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    together.write_text("".join(json.dumps({**r, "scope": ONE_SCOPE}) + "\n" for r in rows), encoding="utf-8")
    return apart, together, len(kept)


def _arm(events: Path, pass_every: int, cache: Path) -> dict[str, float]:
    """One arm in a fresh process (`--arm`): its dream CPU and wall seconds, messages and memories."""
    with tempfile.TemporaryDirectory(prefix="dreamstream-bench-") as home:
        env = {**os.environ, "DREAMSTREAM_HOME": home, "OMP_NUM_THREADS": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), str(REPO_ROOT / "tools"), env.get("PYTHONPATH", "")])
        arm = [sys.executable, "-m", "bench.scope_size", "--arm", str(events), str(pass_every), str(cache)]
        done = subprocess.run(arm, env=env, cwd=REPO_ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench.scope_size: an arm failed ({events.name}, a pass every {pass_every}):\n{done.stderr[-4000:]}")
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def _run_arm(events: Path, pass_every: int, cache: Path) -> None:
    """The arm itself, in its own process: dream the events directly and print one JSON line."""
    from dreamstream_tools.evaluation.dataset import Dataset, read_events
    from dreamstream_tools.evaluation.embedding_cache import persistent_embeddings
    from dreamstream_tools.evaluation.runner import direct_run
    from schemas.settings import get_settings

    turns, _ = read_events([events])
    settings = get_settings()
    dataset = Dataset(tuple(turns), (), ())
    with persistent_embeddings(cache, settings), direct_run(dataset, settings, pass_every=pass_every) as run:
        memories = sum(len(run.runtime.memories.active_records(s)) for s in {t.scope for t in turns})
        found = {
            "cpu_s": run.timings["dream_cpu_s"],
            "wall_s": run.timings["dream_s"],
            "messages": len(turns),
            "memories": memories,
            "passes": sum(run.pass_statuses.values()),
        }
    print(json.dumps(found))


def _say(name: str, found: dict[str, float]) -> float:
    """Print an arm's figures; its CPU milliseconds a message."""
    per_message = found["cpu_s"] / found["messages"] * 1000
    FIGURES[name] = {**found, "cpu_ms_per_message": round(per_message, 2)}
    print(
        f"  {name}: {found['cpu_s']:.1f} s CPU, {found['wall_s']:.1f} s wall, {int(found['passes'])} passes, "
        f"{int(found['memories'])} memories: {per_message:.2f} ms CPU a message",
        flush=True,
    )
    return per_message


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=Path, default=DEFAULT_EVENTS)
    parser.add_argument("--conversations", type=int, default=20)
    parser.add_argument("--pass-every", type=int, default=200, help="events a pass in the second pair of arms")
    parser.add_argument("--arm", nargs=3, metavar=("EVENTS", "PASS_EVERY", "CACHE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.arm:
        _run_arm(Path(args.arm[0]), int(args.arm[1]), Path(args.arm[2]))
        return
    if not args.events.is_file():
        sys.exit(f"bench.scope_size: {args.events} not found (pass --events)")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dreamstream-scope-size-") as tmp:
        folder = Path(tmp)
        apart, together, kept = _write_arms(args.events, args.conversations, folder)
        cache = folder / "vectors"
        print(f"bench.scope_size: {kept} conversations from {args.events}; load average {os.getloadavg()}")
        passes = (0, args.pass_every)
        for every in passes:  # every arm once, unmeasured: the vectors each one embeds are then cached for all
            _arm(apart, every, cache)
            _arm(together, every, cache)
        for every in passes:
            label = "one pass" if every == 0 else f"a pass every {every} events"
            print(f"== {label}", flush=True)
            baseline = _say(f"apart_{every}", _arm(apart, every, cache))
            ratio = _say(f"together_{every}", _arm(together, every, cache)) / baseline
            FIGURES[f"ratio_{every}"] = round(ratio, 2)
            print(f"  one scope against {kept} scopes: {ratio:.2f}x the CPU a message", flush=True)
    FIGURES["load_average"] = list(os.getloadavg())
    FIGURES["wall_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(FIGURES))


if __name__ == "__main__":
    main()
