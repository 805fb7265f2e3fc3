"""Dream over an evaluation set, and hand back the open runtime whose stores the metrics read.

Two ways, both ending with every scope's memories curated in embedded Qdrant (or the configured
Qdrant server):

- `pipeline_run`: the real path. The local broker (started unless KAFKA_BOOTSTRAP_SERVERS is
  set), a private topic set, the Faust stream worker and the consolidation worker
  (`LocalPipeline`); the event files are replayed as agent runtimes would produce them, and once
  the stream worker has read every event each scope gets a manual trigger. Automatic triggers
  (threshold, pressure) may fire during the replay too: that is the pipeline being measured.
- `direct_run`: no Kafka. Per scope, its turns (in the producer's order: timestamp, then file
  order) are indexed and its memory-adds put in the inbox of a private in-memory store, then
  `DreamPass.run` runs on a job built here — one pass over everything, or one pass per
  `pass_every` events to imitate incremental passes. Same pass, same engine, same stores:
  only the transport and the trigger policy are left out.

Both are context managers that clean up what they created (topics, the private store, a broker
they started).
"""

from __future__ import annotations

import shutil
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime

from consumers.runtime import Runtime, open_runtime
from dreaming.laps import Laps
from dreamstream.topic_admin import delete_topics, ensure_topics
from dreamstream_tools import local_kafka
from dreamstream_tools.demo import broker_configured, demo_settings
from dreamstream_tools.evaluation.dataset import Dataset
from dreamstream_tools.pipeline import LocalPipeline, PipelineError
from schemas import (
    TERMINAL_JOB_STATUSES,
    AnyAuditEvent,
    ConversationTurn,
    DreamJob,
    JobLifecycleEvent,
    MemoryAdd,
    make_job_id,
)
from schemas.settings import Settings

Say = Callable[[str], None]
LOCAL_BROKER_PORT = 9092
DREAM_CPU = "dream_cpu_s"
"""Process CPU seconds (all threads of this process) while the events are indexed and dreamed
over: `--direct`, the indexing and the passes; through the pipeline, the replay and the
consolidation worker's thread (the stream worker's own process is not counted)."""


class RunError(RuntimeError):
    """The passes could not be run; the message says which step failed."""


@dataclass
class Run:
    mode: str
    runtime: Runtime
    settings: Settings
    pass_statuses: Counter[str] = field(default_factory=Counter)
    timings: dict[str, float] = field(default_factory=dict)


def eval_settings(base: Settings, engine: str, run_id: str) -> Settings:
    """The demo's private per-run settings (own topics, group ids), with an embedded store of its own."""
    return demo_settings(base, run_id, label="eval").model_copy(
        update={"home": base.home / "eval" / run_id, "engine": engine}
    )


def _fresh_home(settings: Settings) -> None:
    shutil.rmtree(settings.home, ignore_errors=True)
    settings.home.mkdir(parents=True)


# --- direct
def _job(scope: str, settings: Settings, turns_seen: int, adds_seen: int, trigger: str) -> DreamJob:
    topics = settings.topics
    marks = {topics.turns: turns_seen, topics.memory_adds: adds_seen}
    return DreamJob(
        job_id=make_job_id(scope, trigger, marks),
        scope=scope,
        trigger=trigger,
        requested_at=datetime.now(UTC),
        watermarks=marks,
    )


def dream_directly(runtime: Runtime, dataset: Dataset, pass_every: int = 0, say: Say = lambda _: None) -> Counter[str]:
    """Index each scope's events (offsets count per scope, as in one partition) and run its passes."""
    statuses: Counter[str] = Counter()
    settings = runtime.settings
    for number, scope in enumerate(dataset.scopes, 1):
        timeline = [(t.ts, 0, t) for t in dataset.turns_of(scope)] + [(a.ts, 1, a) for a in dataset.adds_of(scope)]
        events = sorted(timeline, key=lambda e: (e[0], e[1]))
        size = pass_every if pass_every > 0 else max(len(events), 1)
        turns_seen = adds_seen = 0
        for start in range(0, len(events), size):
            chunk = [e for _, _, e in events[start : start + size]]
            turns = [e for e in chunk if isinstance(e, ConversationTurn)]
            adds = [e for e in chunk if isinstance(e, MemoryAdd)]
            runtime.transcripts.index_turns([(t, turns_seen + i) for i, t in enumerate(turns)])
            runtime.transcripts.add_pending(adds)
            turns_seen += len(turns)
            adds_seen += len(adds)
            last = start + size >= len(events)
            job = _job(scope, settings, turns_seen, adds_seen, "manual" if last else "threshold")
            result = runtime.dream_pass.run(job)
            statuses[result.status] += 1
        say(
            f"[{number}/{len(dataset.scopes)}] {scope}: {len(events)} events, "
            f"{(len(events) + size - 1) // size} pass(es)"
        )
    return statuses


@contextmanager
def direct_run(
    dataset: Dataset, base: Settings, engine: str = "offline", pass_every: int = 0, say: Say = lambda _: None
) -> Iterator[Run]:
    settings = eval_settings(base, engine, uuid.uuid4().hex[:8])
    _fresh_home(settings)
    # The store as configured: the embedded engine in the run's private home (deleted below), or
    # a Qdrant server. (qdrant-client's in-memory mode used to stand in here, to skip local
    # mode's per-point SQLite commit; the embedded engine writes a batch at once.)
    runtime = open_runtime(settings)
    try:
        started, cpu = time.perf_counter(), time.process_time()
        statuses = dream_directly(runtime, dataset, pass_every, say)
        timings = {"dream_s": time.perf_counter() - started, DREAM_CPU: time.process_time() - cpu}
        yield Run("direct", runtime, settings, statuses, timings)
    finally:
        runtime.close()
        shutil.rmtree(settings.home, ignore_errors=True)


# --- through the pipeline
def _terminal_statuses(events: list[AnyAuditEvent]) -> Counter[str]:
    seen: dict[str, str] = {}
    for event in events:
        if isinstance(event, JobLifecycleEvent) and event.status in TERMINAL_JOB_STATUSES:
            seen[event.event_id] = event.status
    return Counter(seen.values())


@contextmanager
def pipeline_run(
    dataset: Dataset, base: Settings, engine: str = "offline", timeout_s: float = 600.0, say: Say = lambda _: None
) -> Iterator[Run]:
    started_broker = False
    if not broker_configured():
        running = local_kafka.status(base.home, LOCAL_BROKER_PORT)["running"]
        say("starting the local Kafka broker…" if not running else "using the local Kafka broker")
        local_kafka.start(base.home, LOCAL_BROKER_PORT)
        started_broker = not running
    settings = eval_settings(base, engine, uuid.uuid4().hex[:8])
    _fresh_home(settings)
    pipeline: LocalPipeline | None = None
    topics_made = failed = False
    try:
        ensure_topics(settings)
        topics_made = True
        pipeline = LocalPipeline(settings)
        clock = Laps()

        deadline = time.monotonic() + timeout_s
        pipeline.start()
        clock("start_s")
        cpu = time.process_time()
        counts = pipeline.replay(list(dataset.files))
        say(f"replayed {sum(counts.values())} events into {len(dataset.scopes)} scopes")
        pipeline.wait_until_read(deadline - time.monotonic(), say)
        clock("replay_s")
        say(f"asking {len(dataset.scopes)} scopes to dream…")
        pipeline.wait_for(pipeline.trigger(dataset.scopes, reason="eval"), max(deadline - time.monotonic(), 1.0))
        pipeline.read_audit(0.5)
        clock("dream_s")
        timings = {**clock.seconds, DREAM_CPU: time.process_time() - cpu}
        pipeline.stop()
        yield Run("pipeline", pipeline.opened_runtime(), settings, _terminal_statuses(pipeline.audit_events), timings)
    except (PipelineError, RunError) as err:
        failed = True
        raise RunError(f"{str(err).splitlines()[0]} (worker logs kept in {settings.home})") from err
    finally:
        if pipeline is not None:
            pipeline.stop()
            if pipeline.runtime is not None:
                pipeline.runtime.close()
        if topics_made:
            delete_topics(settings, [spec.name for spec in settings.topics.specs()])
        if not failed:
            shutil.rmtree(settings.home, ignore_errors=True)
        if started_broker:
            local_kafka.stop(base.home, port=LOCAL_BROKER_PORT)


def run_passes(
    dataset: Dataset,
    base: Settings,
    *,
    direct: bool,
    engine: str = "offline",
    pass_every: int = 0,
    timeout_s: float = 600.0,
    say: Say = lambda _: None,
) -> AbstractContextManager[Run]:
    if direct:
        return direct_run(dataset, base, engine, pass_every, say)
    return pipeline_run(dataset, base, engine, timeout_s, say)


__all__ = [
    "DREAM_CPU",
    "Run",
    "RunError",
    "dream_directly",
    "direct_run",
    "eval_settings",
    "pipeline_run",
    "run_passes",
]
