"""Both workers as processes on one topic set: the stream worker (`dreamstream worker streams`)
reads the replayed fixtures and turns triggers into dream jobs; the consolidation worker
(`dreamstream worker consumers`) runs the passes. A run replays the input (the shared fixtures
under renamed tenants, then the poison corpus), waits until the stream worker has read it,
triggers every scope, and waits for every trigger's terminal job outcome on the audit topic. A
fault (`during_passes`) can be injected as soon as the first pass is running.

Every run has a topic set of its own, or one run's jobs would reach another run's consolidation
worker. Job ids hash the topic names (in their watermarks), so they differ between runs; a run's
job outcomes are therefore keyed by the trigger's request id, which is the same in every run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from dreamstream.control import AuditReader, wait_until_read
from dreamstream.replay import produce, route
from plumbing.kafka_io import flush_or_raise, make_producer
from schemas import TERMINAL_JOB_STATUSES, ControlEvent, JobLifecycleEvent
from schemas.policy import TriggerPolicy
from schemas.settings import Settings
from tests.chaos.harness import RUN_TIMEOUT_S, Outcome, Run, _rows, read_outcome
from tests.integration.kafka_env import unique_settings
from tests.poison import poison_records

MANUAL_ONLY = TriggerPolicy(
    threshold_messages=1_000_000, threshold_signals=1_000_000, threshold_tokens=1_000_000_000, idle_s=1e9, schedule_s=0
)
"""Only the test's triggers make jobs: automatic ones depend on wall-clock time (cooldown, idle),
so a trial slowed down by an outage would dream at other points than its reference."""


def input_lines(copies: int) -> list[bytes]:
    """The shared fixtures' turns and memory-adds, `copies` times under renamed tenants."""
    lines = []
    for copy in range(copies):
        for name in ("events.jsonl", "memory_adds.jsonl"):
            for row in _rows(name):
                tenant, rest = row["scope"].split("/", 1)
                lines.append(json.dumps({**row, "scope": f"{tenant}{copy}/{rest}"}).encode())
    return lines


@dataclass
class PipelineRun:
    settings: Settings
    stream: Run
    consumers: Run
    scopes: list[str]
    request_ids: dict[str, str] = field(default_factory=dict)
    """request id -> scope of every trigger sent."""
    terminal: dict[str, JobLifecycleEvent] = field(default_factory=dict)
    """request id -> the terminal lifecycle event of the job that answered it."""
    fault_at: float | None = None
    """Wall-clock time the fault began (None: an uninterrupted run)."""
    finished_before_fault: int = 0
    """Triggers whose job had reached a terminal status when the fault began (as seen on the audit topic)."""

    @property
    def workers(self) -> tuple[Run, Run]:
        return self.stream, self.consumers

    def check_alive(self) -> None:
        for run in self.workers:
            if run.exited is not None:
                raise AssertionError(f"the {run.role} worker exited with {run.exited}:\n{run.tail()}")

    def finished_after_fault(self) -> int:
        """Jobs whose terminal outcome was recorded after the fault began: the passes it interrupted."""
        if self.fault_at is None:
            return 0
        return sum(1 for event in self.terminal.values() if event.ts.timestamp() >= self.fault_at)


def pipeline_settings(bootstrap: str, home: Path) -> Settings:
    return unique_settings(bootstrap, home, trigger=MANUAL_ONLY, metrics_port=0, api_port=0, streams_web_port=0)


def replay(settings: Settings, lines: list[bytes]) -> None:
    """Fixtures in time order (as `dreamstream replay` sends them), then the poison corpus: the
    same offsets in every run."""
    produce(settings, sorted((route(line, settings.topics) for line in lines), key=lambda e: e.ts))
    producer, errors = make_producer(settings), []
    for _name, kind, key, value in poison_records(settings.max_event_bytes):
        producer.produce(
            settings.topics.turns if kind == "turns" else settings.topics.memory_adds,
            key=key,
            value=value,
            on_delivery=lambda err, _msg: err and errors.append(str(err)),
        )
    flush_or_raise(producer, errors)


def trigger(settings: Settings, scopes: list[str]) -> dict[str, str]:
    """A manual trigger per scope with a request id that is the same in every run."""
    producer, errors, requests = make_producer(settings), [], {}
    for number, scope in enumerate(scopes):
        event = ControlEvent(scope=scope, action="trigger", request_id=f"chaos-trigger-{number}", reason="chaos")
        producer.produce(
            settings.topics.control,
            key=scope.encode(),
            value=event.model_dump_json().encode(),
            on_delivery=lambda err, _msg: err and errors.append(str(err)),
        )
        requests[event.request_id] = scope
    flush_or_raise(producer, errors)
    return requests


def read_job_events(
    reader: AuditReader,
    until: Callable[[dict[str, list[JobLifecycleEvent]]], bool],
    timeout_s: float,
    check: Callable[[], None],
) -> dict[str, list[JobLifecycleEvent]]:
    """Lifecycle events by request id, read by `reader` (from the start of the audit topic) until
    `until` holds; short reads, so a fault can follow the first running pass closely."""
    by_request: dict[str, list[JobLifecycleEvent]] = {}
    deadline = time.monotonic() + timeout_s
    for event in reader.events:
        if isinstance(event, JobLifecycleEvent):
            for request_id in event.request_ids:
                by_request.setdefault(request_id, []).append(event)
    while not until(by_request):
        check()
        if time.monotonic() > deadline:
            seen = {rid: [e.status for e in events] for rid, events in by_request.items()}
            raise AssertionError(f"audit topic: condition not met after {timeout_s:.0f}s; seen {seen}")
        for event in reader.read(0.1):
            if isinstance(event, JobLifecycleEvent):
                for request_id in event.request_ids:
                    by_request.setdefault(request_id, []).append(event)
    return by_request


def _terminal(events: list[JobLifecycleEvent]) -> JobLifecycleEvent | None:
    return next((e for e in events if e.status in TERMINAL_JOB_STATUSES), None)


def run_pipeline(
    bootstrap: str, home: Path, lines: list[bytes], during_passes: Callable[[PipelineRun], None] | None = None
) -> tuple[Outcome, PipelineRun]:
    """One run of both workers; `during_passes(run)` is called once the first pass is running,
    and must leave the broker reachable when it returns. Outcomes are keyed by request id."""
    settings = pipeline_settings(bootstrap, home)
    replay(settings, lines)
    scopes = sorted({json.loads(line)["scope"] for line in lines})
    run = PipelineRun(
        settings, Run(settings, home / "streams.log", role="streams"), Run(settings, home / "consumers.log"), scopes
    )
    for worker in run.workers:
        worker.start()
    try:
        wait_until_read(settings, RUN_TIMEOUT_S, check=run.check_alive)
        reader = AuditReader(settings)  # fetching before the triggers go out
        try:
            run.request_ids = trigger(settings, scopes)
            if during_passes is not None:
                seen = read_job_events(
                    reader,
                    lambda jobs: any(e.status == "running" for events in jobs.values() for e in events),
                    RUN_TIMEOUT_S,
                    run.check_alive,
                )
                run.finished_before_fault = sum(1 for events in seen.values() if _terminal(events) is not None)
                run.fault_at = time.time()
        finally:
            reader.close()  # a fresh reader after the fault: this one would sit through the outage
        if during_passes is not None:
            during_passes(run)
        wanted = set(run.request_ids)
        reader = AuditReader(settings)
        try:
            jobs = read_job_events(
                reader, lambda jobs: all(_terminal(jobs.get(r, [])) for r in wanted), RUN_TIMEOUT_S, run.check_alive
            )
        finally:
            reader.close()
        run.terminal = {r: _terminal(jobs[r]) for r in wanted}
        run.check_alive()  # both still running once every job is done
    finally:
        for worker in run.workers:
            worker.stop()
    outcome = read_outcome(settings, scopes)
    by_request = {
        r: outcome.statuses.get(event.job_id, f"not in the pointer (audit: {event.status})")
        for r, event in run.terminal.items()
    }
    return replace(outcome, statuses=by_request), run
