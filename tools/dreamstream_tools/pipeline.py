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
from collections.abc import Callable, Iterable
from pathlib import Path

from confluent_kafka import KafkaError, Message
from prometheus_client import start_http_server
from pydantic import BaseModel, SecretStr
from qdrant_client import QdrantClient

from consumers.runtime import Runtime, open_runtime
from consumers.worker import ConsolidationWorker
from dreamstream.control import AuditReader, send_control, wait_until_read
from dreamstream.replay import produce, read_events
from plumbing.kafka_io import flush_or_raise, make_producer
from schemas import AnyAuditEvent, JobLifecycleEvent
from schemas.settings import Settings

log = logging.getLogger(__name__)


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


def start_stream_worker(settings: Settings, log_path: Path) -> subprocess.Popen[bytes]:
    """`dreamstream worker streams` in a child process with exactly these settings."""
    env = {**os.environ, **settings_env(settings)}
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log_file:
        return subprocess.Popen(
            # it stops by itself if this process dies without stopping it (SIGKILL, a signal mid-start)
            [sys.executable, "-m", "dreamstream.cli", "worker", "streams", "--exit-with-parent", str(os.getpid())],
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )


class LocalPipeline:
    def __init__(
        self,
        settings: Settings,
        stream_log: Path | None = None,
        stream_metrics_port: int = 0,
        client: QdrantClient | None = None,
    ) -> None:
        """`client`: an open Qdrant client to share (two deployments on one embedded store)."""
        self.settings = settings
        self._client = client
        # Both workers run on this machine: the stream worker needs a metrics port of its own.
        self._stream_settings = settings.model_copy(update={"metrics_port": stream_metrics_port})
        self.topics = settings.topics
        self._stream_log = stream_log or settings.home / "stream-worker.log"
        self._stream: subprocess.Popen[bytes] | None = None
        self._worker: ConsolidationWorker | None = None
        self._thread: threading.Thread | None = None
        self._worker_error: BaseException | None = None
        self.runtime: Runtime | None = None
        self._audit: AuditReader | None = None
        self._audit_events_after_stop: list[AnyAuditEvent] = []

    # --- lifecycle
    def start(self) -> LocalPipeline:
        self._start_stream_worker()
        self.runtime = open_runtime(self.settings, client=self._client)
        if self.settings.metrics_port:
            start_http_server(self.settings.metrics_port, addr=self.settings.metrics_host)
        self._worker = ConsolidationWorker(self.settings, self.runtime)
        self._thread = threading.Thread(
            target=self._run_worker, args=(self._worker,), name="consolidation-worker", daemon=True
        )
        self._thread.start()
        self._audit = AuditReader(self.settings)
        return self

    def _start_stream_worker(self) -> None:
        self._stream = start_stream_worker(self._stream_settings, self._stream_log)

    def opened_runtime(self) -> Runtime:
        """The runtime `start` opened (its stores stay readable after `stop`)."""
        if self.runtime is None:
            raise PipelineError("the pipeline was not started")
        return self.runtime

    def _audit_reader(self) -> AuditReader:
        if self._audit is None:
            raise PipelineError("the pipeline is not running: start it first")
        return self._audit

    def _run_worker(self, worker: ConsolidationWorker) -> None:
        try:
            worker.run()
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
            if self._thread is not None:
                self._thread.join(timeout=60)
        if self._stream is not None and self._stream.poll() is None:
            self._stream.terminate()
            try:
                self._stream.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._stream.kill()
                self._stream.wait()
        if self._audit is not None:
            self._audit_events_after_stop = self._audit.events
            self._audit.close()
            self._audit = None

    def __enter__(self) -> LocalPipeline:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- driving it
    def wait_until_read(self, timeout_s: float = 180.0, say: Callable[[str], None] = lambda _msg: None) -> None:
        """Block until the stream worker has read everything replayed so far (see control.wait_until_read)."""
        wait_until_read(self.settings, timeout_s, say, check=self.check)

    def replay(self, paths: Iterable[Path]) -> dict[str, int]:
        return produce(self.settings, read_events(paths, self.topics))

    def produce_raw(self, topic: str, key: bytes | None, value: bytes) -> None:
        producer = make_producer(self.settings)
        errors: list[str] = []

        def delivered(err: KafkaError | None, _msg: Message) -> None:
            if err is not None:
                errors.append(str(err))

        producer.produce(topic, key=key, value=value, on_delivery=delivered)
        flush_or_raise(producer, errors)

    def trigger(self, scopes: Iterable[str], reason: str = "manual") -> dict[str, str]:
        """Send a manual trigger per scope; returns request id → scope."""
        return send_control(self.settings, scopes, "trigger", reason)

    def wait_for(self, request_ids: Iterable[str], timeout_s: float = 180.0) -> list[JobLifecycleEvent]:
        """Block until every request has a finished job; returns those terminal events."""
        return self._audit_reader().wait_for(request_ids, timeout_s, check=self.check)

    def read_audit(self, timeout_s: float) -> list[AnyAuditEvent]:
        return self._audit_reader().read(timeout_s)

    @property
    def audit_events(self) -> list[AnyAuditEvent]:
        return self._audit.events if self._audit else self._audit_events_after_stop
