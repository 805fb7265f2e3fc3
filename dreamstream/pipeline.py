"""Run the whole pipeline on one machine: the Faust stream worker as a subprocess, the
consolidation worker in a thread of this process (it shares this process's Qdrant client, which
embedded Qdrant requires), and helpers to replay events, trigger passes and wait for them.

Used by `dreamstream demo`, `dreamstream eval` and the integration tests, so all three exercise
the same real path.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterable
from pathlib import Path

from confluent_kafka import Consumer, KafkaError, TopicPartition
from pydantic import BaseModel, SecretStr

from consumers.kafka_io import flush_or_raise, make_producer
from consumers.runtime import Runtime, open_runtime
from consumers.worker import ConsolidationWorker
from dreamstream.replay import produce, read_events
from schemas import ControlEvent, JobLifecycleEvent, MemoryChangeEvent, TERMINAL_JOB_STATUSES
from schemas.audit import audit_event_adapter
from schemas.settings import Settings

log = logging.getLogger(__name__)
AuditEvent = JobLifecycleEvent | MemoryChangeEvent


def settings_env(settings: Settings) -> dict[str, str]:
    """The environment that gives a child process exactly these settings."""
    env: dict[str, str] = {}
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if value is None:
            continue
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        elif isinstance(value, BaseModel):
            value = value.model_dump_json()
        elif isinstance(value, (dict, list)):
            value = json.dumps(value)
        env[f"DREAMSTREAM_{name.upper()}"] = str(value)
    return env


class PipelineError(RuntimeError):
    pass


def start_stream_worker(settings: Settings, log_path: Path) -> subprocess.Popen:
    """`dreamstream worker streams` in a child process with exactly these settings."""
    env = {**os.environ, **settings_env(settings)}
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log_file:
        return subprocess.Popen(
            [sys.executable, "-m", "dreamstream.cli", "worker", "streams"],
            env=env, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )


class LocalPipeline:
    def __init__(self, settings: Settings, stream_log: Path | None = None) -> None:
        self.settings = settings
        self.topics = settings.topics
        self._stream_log = stream_log or settings.home / "stream-worker.log"
        self._stream: subprocess.Popen | None = None
        self._worker: ConsolidationWorker | None = None
        self._thread: threading.Thread | None = None
        self._worker_error: BaseException | None = None
        self.runtime: Runtime | None = None
        self._audit: Consumer | None = None
        self.audit_events: list[AuditEvent] = []

    # --- lifecycle
    def start(self) -> "LocalPipeline":
        self._start_stream_worker()
        self.runtime = open_runtime(self.settings)
        self._worker = ConsolidationWorker(self.settings, self.runtime.dream_pass, self.runtime.transcripts)
        self._thread = threading.Thread(target=self._run_worker, name="consolidation-worker", daemon=True)
        self._thread.start()
        self._audit = self._audit_reader()
        return self

    def _start_stream_worker(self) -> None:
        self._stream = start_stream_worker(self.settings, self._stream_log)

    def _run_worker(self) -> None:
        try:
            self._worker.run()
        except BaseException as err:  # surfaced to the caller by check()/stop()
            self._worker_error = err
            log.exception("consolidation worker died")

    def check(self) -> None:
        if self._worker_error is not None:
            raise PipelineError(f"consolidation worker died: {self._worker_error!r}") from self._worker_error
        if self._stream is not None and self._stream.poll() is not None:
            tail = self._stream_log.read_text(errors="replace")[-3000:]
            raise PipelineError(f"stream worker exited with {self._stream.returncode}; log tail:\n{tail}")

    def stop(self) -> None:
        if self._worker is not None:
            self._worker.stop()
            self._thread.join(timeout=60)
        if self._stream is not None and self._stream.poll() is None:
            self._stream.terminate()
            try:
                self._stream.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._stream.kill()
                self._stream.wait()
        if self._audit is not None:
            self._audit.close()
            self._audit = None

    def __enter__(self) -> "LocalPipeline":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- driving it
    def replay(self, paths: Iterable[Path]) -> dict[str, int]:
        return produce(self.settings, read_events(paths, self.topics))

    def produce_raw(self, topic: str, key: bytes | None, value: bytes) -> None:
        producer = make_producer(self.settings)
        errors: list[str] = []
        producer.produce(topic, key=key, value=value, on_delivery=lambda err, msg: err and errors.append(str(err)))
        flush_or_raise(producer, errors)

    def trigger(self, scopes: Iterable[str], reason: str = "manual") -> dict[str, str]:
        """Send a manual trigger per scope; returns request id → scope."""
        producer = make_producer(self.settings)
        errors: list[str] = []
        requests: dict[str, str] = {}
        for scope in scopes:
            request_id = f"req-{uuid.uuid4().hex[:12]}"
            event = ControlEvent(scope=scope, action="trigger", request_id=request_id, reason=reason)
            producer.produce(self.topics.control, key=scope.encode(), value=event.model_dump_json().encode(),
                             on_delivery=lambda err, msg: err and errors.append(str(err)))
            requests[request_id] = scope
        flush_or_raise(producer, errors)
        return requests

    def wait_for(self, request_ids: Iterable[str], timeout_s: float = 180.0) -> list[JobLifecycleEvent]:
        """Block until every request has a finished job; returns those terminal events."""
        waiting = set(request_ids)
        done: dict[str, JobLifecycleEvent] = {}
        deadline = time.monotonic() + timeout_s
        while waiting:
            self.check()
            if time.monotonic() > deadline:
                raise PipelineError(f"timed out after {timeout_s}s waiting for {len(waiting)} passes: {sorted(waiting)[:5]}")
            for event in self.read_audit(0.5):
                if isinstance(event, JobLifecycleEvent) and event.status in TERMINAL_JOB_STATUSES:
                    for request_id in set(event.request_ids) & waiting:
                        waiting.discard(request_id)
                        done[request_id] = event
        return list(done.values())

    def read_audit(self, timeout_s: float) -> list[AuditEvent]:
        new: list[AuditEvent] = []
        for msg in self._audit.consume(num_messages=1000, timeout=timeout_s):
            if msg.error():
                if msg.error().code() != KafkaError._PARTITION_EOF:
                    raise PipelineError(f"audit reader: {msg.error()}")
                continue
            new.append(audit_event_adapter.validate_json(msg.value()))
        self.audit_events.extend(new)
        return new

    def _audit_reader(self) -> Consumer:
        consumer = Consumer({
            **self.settings.kafka_client_config(),
            "group.id": f"dreamstream-audit-reader-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        })
        consumer.assign([TopicPartition(self.topics.audit, p, 0) for p in range(self.settings.partitions)])
        return consumer
