"""Cost of one dream pass against scope size: 10 / 100 / 1,000 memories x 100 / 1,000 / 10,000
transcript messages.

    python -m bench.dream            # the full grid (about 3 minutes on 2 cores)
    python -m bench.dream --quick    # 10 / 100 memories x 100 / 1,000 messages

Each cell is one synthetic scope (deterministic, seeded): a store of N memories about N projects,
written from the older part of a transcript of M messages in sessions of ten (user and assistant
turns: statements, decisions, corrections, questions, requests, relative dates, complaints,
chit-chat), of which the newest 10 % (at least 10) are new to the pass, plus two pending
memory-adds; the store is what dreaming the older messages left (they change no stored value).
`memory_cap` is raised above the store sizes so that every cell measures a pass, not a one-off
archive of everything over the default cap of 100. Three measurements:

1. **offline, in memory**: `dreaming.dream_phases.dream` (orient, gather, engine, apply, verify,
   prune, privacy, gate) over the snapshot, CPU seconds with `time.process_time` (per phase too)
   and peak Python memory with `tracemalloc` in a second run (tracemalloc slows the code it
   watches, so CPU is measured without it; polars' own Rust allocations are not seen by it). The
   verify step searches an in-memory index of the window (`window_search`, built beforehand, as the
   transcript index is built at indexing time), so this is the pass without any store.
2. **offline, on embedded Qdrant** (cells up to 1,000 messages; embedded Qdrant slows down past
   ~20k points and brute-forces every search): the whole `DreamPass.run` (snapshot read, verify's
   transcript searches, candidate write, promotion), CPU seconds, the wall seconds per phase the
   pass reports, and the store writes alone (`write_candidate` + `promote`): the same records
   again (unchanged: shared with the generation before, a manifest written) beside the same
   records each changed (every one a new point, the floor a pass paid before generations shared
   their points).
3. **LLM engine** against the scripted OpenAI-compatible server (`tests/llm_server.py`), replying
   an empty plan: model calls, and prompt tokens counted on the request the engine sent (litellm's
   token counter), once with 20 new messages and once with 10 % new, to show the prompt grows with
   the new messages and the memories they touch, not with the store (every new message is read,
   in as many calls as the context needs; `python -m bench.llm` has the full grid).

Figures are printed as they come; the last line is one JSON object with all of them.
Targets: offline pass over 100 memories and 1,000 messages in at most 0.5 s of CPU.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # `tests.llm_server` lives in the repo, not the package
    sys.path.insert(0, str(REPO_ROOT))

from dreaming.dream_phases import dream  # noqa: E402
from dreaming.engine.offline import OfflineEngine  # noqa: E402
from dreaming.passes.gather import gather  # noqa: E402
from dreaming.passes.privacy import PrivacyFilter  # noqa: E402
from dreaming.passes.verify import window_search  # noqa: E402
from dreaming.snapshot import Snapshot  # noqa: E402
from schemas import ConversationTurn, DreamJob, MemoryAdd, MemoryRecord  # noqa: E402
from schemas.settings import Settings  # noqa: E402

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
TARGET_CPU_S = 0.5
BENCH_CAP = 10_000
FIGURES: dict[str, object] = {}
_BIRDS = (
    "Heron Orca Lynx Falcon Otter Raven Bison Cobra Dingo Egret Ferret Gecko Hyena Ibis Jackal Koala Lemur "
    "Marten Newt Ocelot Puffin Quail Robin Stoat Tapir Urchin Vole Walrus Yak Zebra"
).split()
_DBS = "PostgreSQL DuckDB MySQL SQLite ClickHouse Redis Cassandra Snowflake BigQuery Oracle".split()
_PEOPLE = "Maria Tomas Priya Ada Kofi Lena Bruno Nadia Omar Yuki".split()


def figure(key: str, value: object, line: str) -> None:
    FIGURES[key] = value
    print(line, flush=True)


# --------------------------------------------------------------------------- synthetic scopes


def project(k: int) -> str:
    return f"{_BIRDS[k % len(_BIRDS)]}{k}"


def make_scope(n_memories: int, n_messages: int, n_new: int, seed: int = 7) -> Snapshot:
    """A scope with `n_memories` stored memories, `n_messages` messages (the last `n_new` new)."""
    rng = random.Random(seed)
    scope = f"bench/dreamer/m{n_memories}-n{n_messages}"
    values = {k: rng.choice(_DBS) for k in range(n_memories)}
    turns: list[ConversationTurn] = []
    first_new = n_messages - n_new
    for i in range(n_messages):
        session, position = divmod(i, 10)
        ts = T0 + timedelta(hours=session, minutes=position)
        k = rng.randrange(n_memories)
        name, db = project(k), values[k]
        other = rng.choice([d for d in _DBS if d != db])
        # The store is what dreaming the old messages left: there, every change lands on the stored
        # value; only new messages change a value again.
        new_value, old_value = (other, db) if i >= first_new else (db, other)
        if position % 2:
            content = rng.choice(
                [
                    f"Noted: Project {name} uses {db}.",
                    "Done.",
                    f"I set {old_value} for Project {name}.",
                    f"Here is the weekly summary for Project {name}.",
                ]
            )
            role = "assistant"
        else:
            content = rng.choice(
                [
                    f"Project {name} uses {db} as the warehouse.",
                    f"We decided to use {new_value} for Project {name}.",
                    f"No, it's {new_value}, not {old_value}.",
                    f"What is the deadline for Project {name}?",
                    f"Please send the weekly report for Project {name}.",
                    "Thanks, sounds good.",
                    "That's too generic. It has no focus.",
                    f"Project {name} ships next Friday.",
                    f"The owner of Project {name} is {rng.choice(_PEOPLE)}.",
                ]
            )
            role = "user"
        turns.append(
            ConversationTurn(
                scope=scope,
                session_id=f"s{session}",
                message_id=f"s{session}#{position}",
                role=role,
                content=content,
                ts=ts,
            )
        )
    old = turns[:first_new]
    consolidated = old[-1].ts if old else T0  # when the last pass wrote the store
    memories = []
    for k in range(n_memories):
        evidence = (rng.choice(old).message_id,) if old and rng.random() < 0.7 else ()
        stamp = consolidated
        memories.append(
            MemoryRecord(
                scope=scope,
                memory_id=f"mem-{k}",
                text=f"Project {project(k)} uses {values[k]} as the warehouse",
                origin="transcript",
                evidence_message_ids=evidence,
                confidence=0.8,
                created_at=stamp,
                updated_at=stamp,
            )
        )
    last = turns[-1].ts
    pending = [
        MemoryRecord(
            scope=scope,
            memory_id=f"add-{j}",
            text=f"Project {project(j)} has a new sponsor, {_PEOPLE[j]}",
            origin="memory_add",
            created_at=last,
            updated_at=last,
        )
        for j in range(2)
    ]
    job = DreamJob(job_id=f"job-{scope}", scope=scope, trigger="manual", requested_at=last + timedelta(minutes=5))
    return Snapshot(
        job=job,
        generation=1,
        memories=tuple(memories + pending),
        transcript=tuple(turns),
        pending_add_ids=frozenset(m.memory_id for m in pending),
        new_message_ids=frozenset(t.message_id for t in turns[n_messages - n_new :]),
    )


def new_count(n_messages: int) -> int:
    return max(10, n_messages // 10)


# --------------------------------------------------------------------------- 1. offline, in memory


def offline_in_memory(n_memories: int, n_messages: int, settings: Settings) -> dict:
    snapshot = make_scope(n_memories, n_messages, new_count(n_messages))
    search = window_search(snapshot)  # the index: built at indexing time, not by the pass
    engine, privacy = OfflineEngine(), PrivacyFilter.default()
    dream(snapshot, engine, search, settings, privacy)  # warm caches (regexes, polars)

    phases: dict[str, float] = {}
    clock = [time.process_time()]

    def lap(phase: str) -> None:
        now = time.process_time()
        phases[phase] = round(now - clock[0], 4)
        clock[0] = now

    gc.collect()
    start = clock[0] = time.process_time()
    out = dream(snapshot, engine, search, settings, privacy, lap)
    cpu = time.process_time() - start

    gc.collect()
    tracemalloc.start()
    dream(snapshot, engine, search, settings, privacy)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    changes = len(out.candidate.changes) if out.candidate else 0
    return {
        "cpu_s": round(cpu, 4),
        "peak_mib": round(peak / 2**20, 2),
        "phases_cpu_s": phases,
        "changes": changes,
        "status": out.status or ("completed" if out.passed else "quarantined"),
        "motives": [m.kind for m in out.signals.motives],
    }


# --------------------------------------------------------------------------- 2. offline, embedded Qdrant


def offline_on_store(n_memories: int, n_messages: int, home: Path) -> dict:
    from consumers.runtime import open_runtime
    from dreaming.store import AppliedJob, GenerationInfo

    settings = Settings(home=home, memory_cap=BENCH_CAP)
    snapshot = make_scope(n_memories, n_messages, new_count(n_messages))
    rt = open_runtime(settings, engine=OfflineEngine())
    try:
        scope, turns_topic = snapshot.scope, settings.topics.turns
        start = time.process_time()
        rt.transcripts.index_turns([(t, i) for i, t in enumerate(snapshot.transcript)])
        index_cpu = time.process_time() - start
        stored = [m for m in snapshot.memories if m.memory_id not in snapshot.pending_add_ids]
        first_new = n_messages - new_count(n_messages)
        rt.memories.write_candidate(scope, 1, stored)
        rt.memories.promote(
            rt.memories.state(scope),
            GenerationInfo(generation=1, job_id="setup", status="active", created_at=datetime.now(UTC)),
            AppliedJob(job_id="setup", outcome="completed", generation=1, watermarks={turns_topic: first_new}),
        )
        rt.transcripts.add_pending(
            [
                MemoryAdd(scope=scope, memory_id=m.memory_id, text=m.text, ts=m.created_at)
                for m in snapshot.memories
                if m.memory_id in snapshot.pending_add_ids
            ]
        )
        job = snapshot.job.model_copy(update={"watermarks": {turns_topic: n_messages}})
        gc.collect()
        start = time.process_time()
        result = rt.dream_pass.run(job)
        pass_cpu = time.process_time() - start

        records = rt.memories.active_records(scope, include_inactive=True)
        write_cpu = _write_generation(rt.memories, scope, records, "unchanged")
        # the floor to compare with: the same records all changed, so every one is a new point
        touched = [m.model_copy(update={"updated_at": m.updated_at + timedelta(seconds=1)}) for m in records]
        full_cpu = _write_generation(rt.memories, scope, touched, "every-record")
        return {
            "pass_cpu_s": round(pass_cpu, 4),
            "store_write_cpu_s": round(write_cpu, 4),
            "store_write_all_changed_cpu_s": round(full_cpu, 4),
            "index_cpu_s": round(index_cpu, 3),
            "records_written": len(records),
            "status": result.status,
            "phases_wall_s": {k: round(v, 4) for k, v in result.phase_seconds.items()},
        }
    finally:
        rt.close()


def _write_generation(memories, scope: str, records, job: str) -> float:
    """CPU seconds of `write_candidate` + `promote` of `records` as the next generation."""
    from dreaming.store import AppliedJob, GenerationInfo

    state = memories.state(scope)
    number = state.next_generation
    start = time.process_time()
    memories.write_candidate(scope, number, records)
    memories.promote(
        state,
        GenerationInfo(generation=number, job_id=job, status="active", created_at=datetime.now(UTC)),
        AppliedJob(job_id=job, outcome="completed", generation=number),
    )
    return time.process_time() - start


# --------------------------------------------------------------------------- 3. LLM engine, scripted server


def llm_prompt(n_memories: int, n_messages: int, n_new: int, server, engine) -> dict:
    import litellm

    from tests.llm_server import Reply

    snapshot = make_scope(n_memories, n_messages, n_new)
    server.requests.clear()
    server.respond_with(lambda body: Reply('{"actions": []}'))  # one reply per part (bench.llm has the grid)
    result = engine.propose(snapshot, gather(snapshot))
    bodies = list(server.requests)
    tokens = sum(litellm.token_counter(model="gpt-4o-mini", messages=body["messages"]) for body in bodies)
    return {
        "model_calls": result.model_calls,
        "prompt_tokens": tokens,
        "prompt_chars": sum(len(m["content"]) for body in bodies for m in body["messages"]),
    }


# --------------------------------------------------------------------------- main


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 / 100 memories x 100 / 1,000 messages")
    args = parser.parse_args(argv)
    memory_sizes = (10, 100) if args.quick else (10, 100, 1_000)
    message_sizes = (100, 1_000) if args.quick else (100, 1_000, 10_000)
    store_messages = (100, 1_000)
    # A cap above every store size: a 1,000-memory scope under the default cap of 100 would measure
    # one mass archive of 900 memories, not a pass.
    settings = Settings(home=Path(tempfile.mkdtemp(prefix="bench-dream-")), memory_cap=BENCH_CAP)
    began = time.perf_counter()

    print("== offline engine, in memory (dream(): orient .. gate; verify on an in-memory window index)", flush=True)
    grid: dict[str, dict] = {}
    for m in memory_sizes:
        for n in message_sizes:
            cell = offline_in_memory(m, n, settings)
            grid[f"{m}x{n}"] = cell
            top = sorted(cell["phases_cpu_s"].items(), key=lambda kv: -kv[1])[:3]
            print(
                f"  {m:>5} memories x {n:>6} messages: {cell['cpu_s']:7.3f} s CPU, peak {cell['peak_mib']:7.2f} MiB, "
                f"{cell['changes']:4d} changes; slowest {', '.join(f'{k} {v:.3f}' for k, v in top)}",
                flush=True,
            )
    FIGURES["offline_in_memory"] = grid
    target = grid.get("100x1000", {}).get("cpu_s")
    if target is not None:
        figure(
            "target_100x1000_cpu_s",
            target,
            f"  target: 100 x 1,000 in {target:.3f} s CPU "
            f"({'within' if target <= TARGET_CPU_S else 'OVER'} the {TARGET_CPU_S} s target)",
        )

    print("== offline engine, DreamPass.run on embedded Qdrant (store reads, searches and writes included)", flush=True)
    store: dict[str, dict] = {}
    for m in memory_sizes:
        for n in store_messages:
            cell = offline_on_store(m, n, Path(tempfile.mkdtemp(prefix="bench-dream-store-")))
            store[f"{m}x{n}"] = cell
            wall = cell["phases_wall_s"]
            print(
                f"  {m:>5} memories x {n:>6} messages: pass {cell['pass_cpu_s']:6.3f} s CPU ({cell['status']}); "
                f"a generation of {cell['records_written']} records written {cell['store_write_cpu_s']:.3f} s CPU "
                f"unchanged, {cell['store_write_all_changed_cpu_s']:.3f} s all changed; "
                f"wall: snapshot {wall.get('snapshot', 0):.3f}, verify {wall.get('verify', 0):.3f}, "
                f"promote {wall.get('promote', 0):.3f}; indexing the transcript {cell['index_cpu_s']:.2f} s",
                flush=True,
            )
    FIGURES["offline_on_store"] = store

    print("== LLM engine against the scripted server (prompt tokens counted on the request sent)", flush=True)
    from dreaming.engine.llm import LlmEngine
    from tests.llm_server import ScriptedLlmServer

    llm: dict[str, dict] = {}
    with ScriptedLlmServer() as server:
        engine = LlmEngine(
            Settings(
                home=settings.home,
                engine="llm",
                llm_model="openai/bench-model",
                llm_api_base=server.url,
                llm_api_key="bench",
                llm_retries=0,
            )
        )
        for m in memory_sizes:
            for n in message_sizes:
                fixed = llm_prompt(m, n, 20, server, engine)
                tenth = llm_prompt(m, n, new_count(n), server, engine)
                llm[f"{m}x{n}"] = {"new_20": fixed, "new_10pct": tenth}
                print(
                    f"  {m:>5} memories x {n:>6} messages: 20 new -> {fixed['model_calls']} calls, "
                    f"{fixed['prompt_tokens']:6d} prompt tokens; "
                    f"{new_count(n):>5} new -> {tenth['model_calls']} calls, "
                    f"{tenth['prompt_tokens']:6d} prompt tokens",
                    flush=True,
                )
    FIGURES["llm"] = llm
    figure("total_wall_s", round(time.perf_counter() - began, 1), f"== done in {time.perf_counter() - began:.0f} s")
    print(json.dumps(FIGURES), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
