"""Phase 5: the worker's own logic in this process, without Kafka, on the records the baseline read:
`Processor.process_batch` in batches of `streams_batch_size` plus what `OutputStep.submit` does to
the table (row encode, due index), its stage costs, the timer over the full due index, and the
Python heap per scope (row bytes + table entry + due index)."""

from __future__ import annotations

import cProfile
import gc
import pstats
import time
import tracemalloc
import zlib

from bench.common import FIGURES, figure, say, section, timed
from bench.profiling import profile_breakdown
from tests.kafka_record import Record

REPEATS = 3


def run_logic(settings, records: list[Record]):
    """Fresh processor and tables; every batch processed and its rows written back as the loop does."""
    from streams.processor import Processor
    from streams.rows import SignalTables

    processor = Processor(settings)
    state = SignalTables(processor.policy, {p: {} for p in range(settings.partitions)})
    tables, due = state.rows, state.due
    size = settings.streams_batch_size
    jobs = 0
    for start in range(0, len(records), size):
        batch = processor.process_batch(records[start : start + size], tables, time.time())
        jobs += len(batch.jobs)
        for job in batch.jobs:
            job.model_dump_json()
        for event in batch.events:
            event.model_dump_json()
        state.write(batch.rows)
        for partition in batch.guards:
            processor.guard.partitions[partition].encode()
    return processor, tables, due, jobs


def stage_costs(settings, subset: list[Record], tables) -> dict[str, float]:
    from schemas import ConversationTurn
    from schemas.validation import validator_for
    from streams.extract import extract, extract_batch
    from streams.policy import decide
    from streams.signals import ScopeSignals

    validator = validator_for(settings)
    kind = "turns"
    events = [validator.validate(kind, r.key(), r.value(), r.partition()).record for r in subset]
    rows = [row for table in tables.values() for row in table.values()][: len(subset)]
    objs = [ScopeSignals.decode(r) for r in rows]
    policy, now = settings.trigger, time.time()
    return {
        "validate_record (msgspec fast path: decode, scope, key, home partition, ts, content)": timed(
            lambda: [validator.validate(kind, r.key(), r.value(), r.partition()) for r in subset]
        )
        / len(subset),
        "  for comparison: ConversationTurn.model_validate_json (pydantic)": timed(
            lambda: [ConversationTurn.model_validate_json(r.value()) for r in subset]
        )
        / len(subset),
        "extract_batch (polars regexes, batches of 2,000)": timed(
            lambda: [
                extract_batch([e.role for e in events[i : i + 2000]], [e.content for e in events[i : i + 2000]])
                for i in range(0, len(events), 2000)
            ]
        )
        / len(events),
        "  for comparison: extract, one turn at a time (polars on a batch of one)": timed(
            lambda: [extract(e.role, e.content) for e in events[:2000]]
        )
        / 2000,
        "policy decide": timed(lambda: [decide(s, policy, now) for s in objs]) / len(objs),
        "row decode (ScopeSignals.decode, msgspec)": timed(lambda: [ScopeSignals.decode(r) for r in rows]) / len(rows),
        "row encode (ScopeSignals.encode, msgspec)": timed(lambda: [s.encode() for s in objs]) / len(objs),
    }


def timer_figures(settings, tables, due) -> None:
    """A timer tick when nothing is due, and one when every tracked scope is due (worst case,
    bounded by NUDGES_PER_TICK): only the due scopes are touched, never a rescan of every row."""
    from streams.timer import NUDGES_PER_TICK
    from tests.timer_loop import TimerOnlyLoop

    loop = TimerOnlyLoop(settings, tables, due)
    entries = len(due)
    t_idle = min(timed(lambda: loop.nudge_quiet_scopes(time.time())) for _ in range(3))
    far = max(due.due.values(), default=0) + 10 * 86_400
    t_busy = timed(lambda: loop.nudge_quiet_scopes(far))
    touched = min(entries, NUDGES_PER_TICK)
    figure(
        "timer_tick_idle_ms",
        round(t_idle * 1e3, 3),
        f"timer tick, nothing due, {entries:,} scopes tracked: {t_idle * 1e3:.3f} ms",
    )
    figure(
        "timer_tick_busy_ms",
        round(t_busy * 1e3, 1),
        f"timer tick with every scope due: {touched:,} scopes looked at (cap {NUDGES_PER_TICK:,} per "
        f"tick), {len(loop.nudged):,} nudges: {t_busy * 1e3:,.0f} ms ({t_busy / max(touched, 1) * 1e6:.1f} µs/scope)",
    )


def heap_per_scope(settings, records: list[Record]) -> tuple[float, int]:
    """tracemalloc: Python heap retained per scope (row bytes, table entry, due index; every 10th scope)."""
    sample = [r for r in records if zlib.crc32(r.key()) % 10 == 0]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    processor, tables, due, _ = run_logic(settings, sample)
    processor._policies.clear()
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    scopes = sum(len(t) for t in tables.values())
    return (after - before) / max(scopes, 1), scopes


def in_process_phase(settings, msgs: list, profile: bool) -> None:
    section(
        "5. the worker's logic in this process (Processor.process_batch + row writes, no Kafka), same records; CPU time"
    )
    records = [Record(*m) for m in msgs]
    n = len(records)
    best = float("inf")
    for _ in range(REPEATS):
        t = timed(lambda: run_logic(settings, records))
        best = min(best, t)
    _, tables, due, jobs = run_logic(settings, records)
    figure(
        "logic_events_per_s",
        round(n / best),
        f"validate + fold + decide + row encode, all {n:,} records in batches of {settings.streams_batch_size:,}, "
        f"best of {REPEATS}: {n / best:,.0f} events/s ({best / n * 1e6:.1f} µs/event, {jobs} jobs)",
    )
    figure("logic_us_per_event", round(best / n * 1e6, 2))
    subset = records[:50_000]
    stage = stage_costs(settings, subset, tables)
    say("    per-event stages (µs/event, measured separately on the same records):")
    for name, secs in stage.items():
        say(f"      {secs * 1e6:7.2f}  {name}")
    FIGURES["logic_stage_us"] = {k.strip(): round(v * 1e6, 2) for k, v in stage.items()}
    timer_figures(settings, tables, due)
    del tables, due
    heap, scopes = heap_per_scope(settings, records)
    figure(
        "python_heap_bytes_per_scope",
        round(heap),
        f"Python heap per scope (row bytes + table entry + due index; tracemalloc over {scopes:,} scopes): "
        f"{heap:,.0f} B",
    )
    worker_cpu = FIGURES.get("worker_cpu_us_per_event")
    if worker_cpu:
        logic = best / n * 1e6
        figure(
            "logic_share_of_worker_cpu",
            round(logic / worker_cpu, 3),
            f"worker {worker_cpu:.1f} µs CPU/event = our logic {logic:.1f} µs ({logic / worker_cpu:.0%}) + "
            f"librdkafka (its threads included), produce calls, delivery callbacks and commits "
            f"{worker_cpu - logic:.1f} µs",
        )
    if profile:
        prof = cProfile.Profile()
        prof.enable()
        run_logic(settings, subset)
        prof.disable()
        FIGURES["logic_profile_shares"] = profile_breakdown(
            pstats.Stats(prof), len(subset), "cProfile of the in-process logic"
        )
