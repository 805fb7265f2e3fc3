"""`dreamstream demo`: the whole pipeline on the embedded defaults, end to end.

Starts the local broker (unless KAFKA_BOOTSTRAP_SERVERS points at one), creates a fresh set of
topics for this run, starts both workers, replays the events, asks every scope to dream, waits
for every pass, and returns each scope's active memories and the audit trail.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dreamstream.replay import REPLAY_PRODUCER, read_events
from dreamstream.topic_admin import delete_topics, ensure_topics
from dreamstream_tools import local_kafka
from dreamstream_tools.fixtures import FIXTURES_DIR as FIXTURES
from dreamstream_tools.pipeline import LocalPipeline
from schemas import AnyAuditEvent, JobLifecycleEvent, MemoryChangeEvent, MemoryRecord
from schemas.settings import Settings


def default_event_files() -> list[Path]:
    files = [FIXTURES / "events.jsonl", FIXTURES / "memory_adds.jsonl"]
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        raise FileNotFoundError(f"fixtures not found: {missing}; pass event files explicitly")
    return files


@dataclass(frozen=True)
class DemoResult:
    scopes: dict[str, list[MemoryRecord]]
    audit: list[AnyAuditEvent]

    def to_json(self) -> dict[str, Any]:
        return {
            "scopes": {s: [m.model_dump(mode="json") for m in ms] for s, ms in self.scopes.items()},
            "audit": [e.model_dump(mode="json") for e in self.audit],
        }


def demo_settings(base: Settings, run_id: str, label: str = "demo") -> Settings:
    """A private topic set and a fresh embedded store per run, so runs never see each other."""
    return base.model_copy(
        update={
            "topic_prefix": f"{base.topic_prefix}-{label}-{run_id}",
            "app_id": f"{base.app_id}-{label}-{run_id}",
            "consumer_group": f"{base.consumer_group}-{label}-{run_id}",
            "home": base.home / label,
            "session_timeout_ms": min(base.session_timeout_ms, 6_000),
            "trusted_producers": [*base.trusted_producers, REPLAY_PRODUCER],  # the demo's files carry protected adds
        }
    )


def broker_configured() -> bool:
    return bool(os.environ.get("KAFKA_BOOTSTRAP_SERVERS") or os.environ.get("DREAMSTREAM_KAFKA_BOOTSTRAP_SERVERS"))


def run_demo(
    base: Settings,
    event_files: list[Path],
    timeout_s: float = 240.0,
    say: Callable[[str], None] = print,
    kafka_port: int = 9092,
) -> DemoResult:
    started_broker = False
    if not broker_configured():
        running = local_kafka.status(base.home, kafka_port)["running"]
        say("starting the local Kafka broker…" if not running else "using the local Kafka broker")
        # A broker this run starts is stopped however the run ends (atexit, SIGTERM, ^C).
        local_kafka.start(base.home, kafka_port, stop_at_exit=True)
        started_broker = not running
        base = base.model_copy(update={"kafka_bootstrap_servers": f"{local_kafka.HOST}:{kafka_port}"})
    settings = demo_settings(base, uuid.uuid4().hex[:8])
    shutil.rmtree(settings.home, ignore_errors=True)
    settings.home.mkdir(parents=True)
    try:
        ensure_topics(settings)
        scopes = sorted({e.key.decode() for e in read_events(event_files, settings.topics) if e.key})
        pipeline = LocalPipeline(settings)
        try:
            pipeline.start()
            counts = pipeline.replay(event_files)
            pipeline.wait_until_read(timeout_s)
            say(f"replayed {sum(counts.values())} events into {len(scopes)} scopes; asking each scope to dream…")
            finished = pipeline.wait_for(pipeline.trigger(scopes, reason="demo"), timeout_s)
            say(f"{len(finished)} passes finished")
            pipeline.read_audit(0.5)
        finally:
            pipeline.stop()
        runtime = pipeline.opened_runtime()
        memories = {scope: runtime.memories.active_records(scope) for scope in scopes}
        audit = [
            e
            for e in pipeline.audit_events
            if not (isinstance(e, JobLifecycleEvent) and e.status in ("pending", "running"))
        ]
        runtime.close()
        delete_topics(settings, [spec.name for spec in settings.topics.specs()])
        return DemoResult(memories, audit)
    finally:
        if started_broker:
            local_kafka.stop(base.home, port=kafka_port)


def render(result: DemoResult) -> str:
    lines: list[str] = []
    for scope, memories in result.scopes.items():
        lines.append(f"\n{scope}  ({len(memories)} active memories)")
        for m in memories:
            flags = " [protected]" if m.protected else ""
            evidence = ", ".join(m.evidence_message_ids) or "no transcript evidence"
            lines.append(f"  • {m.text}{flags}\n      evidence: {evidence}")
    lines.append("\naudit trail")
    for e in result.audit:
        if isinstance(e, JobLifecycleEvent):
            lines.append(f"  [{e.scope}] job {e.job_id} {e.status}: {e.reason}")
        elif isinstance(e, MemoryChangeEvent):
            record = e.after or e.before  # a change event carries at least one of the two
            text = record.text if record is not None else "-"
            lines.append(
                f"  [{e.scope}] {e.change:<10} {text!r} — {e.reason} "
                f"(evidence: {', '.join(e.evidence_message_ids) or '-'})"
            )
    return "\n".join(lines)
