"""Phase 6: the worker's per-event logic in this process, without Faust or Kafka, on the records the
baseline read; its stage costs, the timer, and the Python heap per table row.

`streams.app` is imported with the benchmark's settings swapped in, a dict for its table (Faust's
memory store keeps exactly the objects it is given) and stub topics, so what runs is the worker's
own code: `Processor.decode`, `_fold`, `_publish` and the timer `nudge_quiet_scopes`. The old row
codec (a dict from `dataclasses.asdict`, serialised by Faust's json codec) is measured side by side
through a ScopeSignals subclass whose encode/decode are `to_json`/`from_json`.
"""

from __future__ import annotations

import contextlib
import cProfile
import gc
import inspect
import pstats
import time
import tracemalloc
import zlib
from collections import namedtuple

from bench.common import FIGURES, figure, say, section, timed
from bench.profiling import profile_breakdown

LOGIC_SUBSET = 50_000  # records for the repeated variants (rates are per event)
REPEATS = 3
Record = namedtuple("Record", "topic partition offset key value")  # also stands in for Faust's Message
_TOPICS = ("jobs_topic", "audit_topic", "control_topic", "dead_letter_topic")
_PATCHED = ("settings", "processor", "signals_table", "_due", "_ticks", "ScopeSignals", *_TOPICS)


class _Delivered:
    def __await__(self):
        return
        yield


class _Topic:
    """Stands in for a Faust topic: counts sends; the value was already serialised by the caller."""

    def __init__(self) -> None:
        self.sent = 0

    async def send(self, **_) -> _Delivered:
        self.sent += 1
        return _Delivered()


def drive(coro) -> None:
    """Run a coroutine that never suspends (every await above completes at once)."""
    try:
        coro.send(None)
    except StopIteration:
        return
    raise RuntimeError("coroutine suspended")


class ChangelogTable(dict):
    """A dict that serialises key and value on every write, as the table's changelog send does
    (key_serializer "json"; value_serializer "raw" for the worker's bytes, "json" for dict rows)."""

    def __init__(self, value_codec: str) -> None:
        from faust.serializers import codecs

        super().__init__()
        self._dumps, self._codec = codecs.dumps, value_codec

    def __setitem__(self, key, value) -> None:
        self._dumps("json", key)
        self._dumps(self._codec, value)
        super().__setitem__(key, value)


def _codecs():
    """codec name -> (the ScopeSignals class _fold uses, the table's value serializer)."""
    from streams.signals import ScopeSignals

    class DictRowSignals(ScopeSignals):
        """The old row codec: the row is a dict (dataclasses.asdict), json-encoded by Faust."""

        def encode(self):
            return self.to_json()

        @classmethod
        def decode(cls, raw):
            return cls.from_json(raw)

    return {"worker": (ScopeSignals, "raw"), "dict": (DictRowSignals, "json")}


@contextlib.contextmanager
def worker_module(settings):
    """streams.app with these settings and stub topics; its globals are restored afterwards."""
    import streams.app as worker

    saved = {name: getattr(worker, name) for name in _PATCHED}
    worker.settings = settings
    for name in _TOPICS:
        setattr(worker, name, _Topic())
    try:
        yield worker
    finally:
        for name, value in saved.items():
            setattr(worker, name, value)


def agent_body(worker, settings, codec: str = "worker", changelog: bool = True):
    """The body of streams.app.process, run per record over fresh state: a new Processor, table and
    due index. `changelog`: serialise key and value on every table write, as Faust does."""
    from streams.processor import Outputs, Processor

    signals_cls, value_codec = _codecs()[codec]
    worker.processor = processor = Processor(settings)
    worker.signals_table = table = ChangelogTable(value_codec) if changelog else {}
    worker._due, worker._ticks = {}, 0
    worker.ScopeSignals = signals_cls
    decode, fold, publish, count = processor.decode, worker._fold, worker._publish, worker._count
    jobs = [0]

    def run(records) -> None:
        for record in records:
            out = Outputs()
            decoded = decode(record.topic, record.partition, record.offset, record.key, record.value, out)
            if decoded is not None:
                fold(decoded, record, out)
            elif out.dead_letters:
                count(record.topic, "dead_lettered")
            jobs[0] += len(out.jobs)
            drive(publish(out, record.partition))

    return run, table, worker._due, jobs


def heap_per_row(worker, settings, records, codec: str) -> tuple[float, int]:
    """tracemalloc: Python heap retained per scope (table row and due-index entry; every 10th scope)."""
    sample = [r for r in records if zlib.crc32(r.key) % 10 == 0]
    run, table, _, _ = agent_body(worker, settings, codec, changelog=False)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    run(sample)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return (after - before) / max(len(table), 1), len(table)


def stage_costs(worker, settings, subset: list, table: dict) -> dict[str, float]:
    """Seconds per event of each stage, measured separately on the same records and rows."""
    from faust.serializers import codecs

    from schemas.scope import parse_scope
    from streams.decode import Decoder
    from streams.extract import extract
    from streams.metrics import EVENTS
    from streams.policy import decide
    from streams.signals import ScopeSignals

    decoder = Decoder(settings.topics, settings.max_event_bytes)
    events = [decoder.decode(r.topic, r.key, r.value) for r in subset]
    scopes = [e.scope for e in events]
    keys = list(table)[:len(subset)]
    rows = [table[k] for k in keys]
    objs = [ScopeSignals.decode(r) for r in rows]
    dicts = [s.to_json() for s in objs]
    topic, dumps, now = subset[0].topic, codecs.dumps, time.time()
    saved_due, worker._due = worker._due, {}
    try:
        stage = {
            "validate (Decoder.decode: model_validate_json + key check)":
                timed(lambda: [decoder.decode(r.topic, r.key, r.value) for r in subset]) / len(subset),
            "  of which parse_scope (the scope validator)": timed(lambda: [parse_scope(s) for s in scopes]) / len(scopes),
            "extract (regexes)": timed(lambda: [extract(e.role, e.content) for e in events]) / len(events),
            "policy decide (with settings.policy_for)":
                timed(lambda: [decide(s, settings.policy_for(k.partition("/")[0]), now) for k, s in zip(keys, objs)]) / len(objs),
            "worker codec: ScopeSignals.decode(row bytes)": timed(lambda: [ScopeSignals.decode(r) for r in rows]) / len(rows),
            "worker codec: ScopeSignals.encode()": timed(lambda: [s.encode() for s in objs]) / len(objs),
            "old codec: ScopeSignals.from_json(dict row)": timed(lambda: [ScopeSignals.from_json(d) for d in dicts]) / len(dicts),
            "old codec: ScopeSignals.to_json() (dataclasses.asdict)": timed(lambda: [s.to_json() for s in objs]) / len(objs),
            "old codec: Faust json codec dumps of the dict row": timed(lambda: [dumps("json", d) for d in dicts]) / len(dicts),
            "changelog key: Faust json codec dumps of the scope": timed(lambda: [dumps("json", k) for k in keys]) / len(keys),
            "streams.app._track_due (due index)":
                timed(lambda: [worker._track_due(k, s) for k, s in zip(keys, objs)]) / len(objs),
            "metrics before: EVENTS.labels(topic, outcome).inc()":
                timed(lambda: [EVENTS.labels(topic, "accepted").inc() for _ in keys]) / len(keys),
            "metrics now: streams.app._count (cached labels)":
                timed(lambda: [worker._count(topic, "accepted") for _ in keys]) / len(keys),
        }
    finally:
        worker._due = saved_due
    return stage


def timer_figures(worker, settings, table: dict, due: dict) -> None:
    """streams.app.nudge_quiet_scopes on the full table: a rescan tick and a normal tick."""
    worker.signals_table, worker._due, worker._ticks = table, due, 0
    worker.ScopeSignals = _codecs()["worker"][0]
    tick = inspect.unwrap(worker.nudge_quiet_scopes)  # the timer body, without Faust's itertimer loop
    rescan_every, interval = worker._RESCAN_TICKS, settings.timer_interval_s
    t_rescan = timed(lambda: drive(tick()))
    entries = len(worker._due)
    t_tick = min(timed(lambda: drive(tick())) for _ in range(3))
    nudges = worker.control_topic.sent
    amortized = (t_rescan + (rescan_every - 1) * t_tick) / rescan_every
    figure("timer_scan_ms", round(t_rescan * 1e3, 1),
           f"timer nudge_quiet_scopes, rescan tick (every {rescan_every} ticks = {rescan_every * interval:g} s): "
           f"decodes all {len(table):,} rows in {t_rescan * 1e3:,.0f} ms ({t_rescan / max(len(table), 1) * 1e6:.1f} "
           f"µs/row; the agent stalls meanwhile)")
    figure("timer_tick_ms", round(t_tick * 1e3, 2),
           f"normal tick over the due index ({entries:,} entries, {nudges} nudges sent): {t_tick * 1e3:,.2f} ms")
    figure("timer_due_entries", entries)
    figure("timer_amortized_ms_per_tick", round(amortized * 1e3, 2),
           f"amortised {amortized * 1e3:,.1f} ms per tick every {interval:g} s = {amortized / interval:.2%} of one core")


def in_process_phase(settings, msgs: list, profile: bool) -> None:
    section("6. the worker's per-event logic in this process (streams.app, no Faust, no Kafka), same records; CPU time")
    records = [Record(*m) for m in msgs]
    subset = records[:LOGIC_SUBSET]
    n, m = len(records), len(subset)
    with worker_module(settings) as worker:
        run, table, due, jobs = agent_body(worker, settings, changelog=False)
        t_logic = timed(run, records)
        figure("logic_events_per_s", round(n / t_logic),
               f"Processor.decode + _fold (ScopeSignals.decode/encode, _track_due) + _publish, all {n:,} records, "
               f"one pass, no changelog serialisation: {n / t_logic:,.0f} events/s ({t_logic / n * 1e6:.1f} "
               f"µs/event, {jobs[0]} jobs)")
        t_ser = t_dict = float("inf")
        for _ in range(REPEATS):  # alternate the two, keep the best of each: other load varies meanwhile
            t_ser = min(t_ser, timed(agent_body(worker, settings, "worker")[0], subset))
            t_dict = min(t_dict, timed(agent_body(worker, settings, "dict")[0], subset))
        figure("logic_with_changelog_serialization_events_per_s", round(m / t_ser),
               f"  with the changelog's key/value serialisation, the worker's codec (row = JSON bytes, raw "
               f"serializer), first {m:,} records, best of {REPEATS}: {m / t_ser:,.0f} events/s ({t_ser / m * 1e6:.1f} µs/event)")
        figure("logic_with_changelog_serialization_us_per_event", round(t_ser / m * 1e6, 1))
        figure("logic_dict_codec_events_per_s", round(m / t_dict),
               f"  same code, the old dict codec (asdict row + Faust json codec), side by side: "
               f"{m / t_dict:,.0f} events/s ({t_dict / m * 1e6:.1f} µs/event; the worker's codec saves "
               f"{(t_dict - t_ser) / m * 1e6:.1f} µs/event)")
        figure("logic_dict_codec_us_per_event", round(t_dict / m * 1e6, 1))

        stage = stage_costs(worker, settings, subset, table)
        say("    per-event stages (µs/event, measured separately on the same records):")
        for name, secs in stage.items():
            say(f"      {secs * 1e6:7.2f}  {name}")
        FIGURES["logic_stage_us"] = {k.strip(): round(v * 1e6, 2) for k, v in stage.items()}

        timer_figures(worker, settings, table, due)
        del table, due

        worker_cpu = FIGURES.get("worker_cpu_us_per_event")
        if worker_cpu:  # CPU per event on both sides: other load on the machine cancels out (mostly)
            per_worker, per_logic = worker_cpu / 1e6, t_ser / m
            figure("faust_overhead_us_per_event", round((per_worker - per_logic) * 1e6, 1),
                   f"worker {per_worker * 1e6:,.0f} µs CPU/event = our logic {per_logic * 1e6:.0f} µs "
                   f"({per_logic / per_worker:.0%}) + Faust/aiokafka/changelog/commit {(per_worker - per_logic) * 1e6:,.0f} µs "
                   f"({1 - per_logic / per_worker:.0%})")
            figure("logic_share_of_worker_time", round(per_logic / per_worker, 3))

        heap, rows_n = heap_per_row(worker, settings, records, "worker")
        heap_d, _ = heap_per_row(worker, settings, records, "dict")
        figure("python_heap_bytes_per_row", round(heap),
               f"Python heap per scope (table key + row + due-index entry, tracemalloc over {rows_n:,} scopes): "
               f"worker's bytes row {heap:,.0f} B; old dict row {heap_d:,.0f} B")
        figure("python_heap_bytes_per_row_dict_codec", round(heap_d))

        if profile:
            run_p = agent_body(worker, settings, "worker")[0]
            prof = cProfile.Profile()
            prof.enable()
            run_p(subset)
            prof.disable()
            FIGURES["logic_profile_shares"] = profile_breakdown(pstats.Stats(prof), m, "cProfile of the in-process logic")
