"""The API in a background thread of the worker process, on its own event loop (`start_api`)."""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import web

from consumers.api.app import make_app
from consumers.api.context import ApiContext, Decisions, Writes
from consumers.api.guard import ReadPool, StoreGuard
from consumers.api.outbox import Outbox
from consumers.audit_publisher import AuditPublisher
from consumers.runtime import Runtime
from dreaming.store import quarantine as decisions
from dreaming.store.client import needs_serialising
from dreaming.store.history import ScopeView
from dreaming.store.search import pending_record
from schemas import ControlEvent, MemoryRecord
from schemas.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class ApiServer:
    url: str
    _loop: asyncio.AbstractEventLoop
    _thread: threading.Thread
    _outbox: Outbox | None = None
    _reads: ReadPool | None = None

    def stop(self, timeout_s: float = 10.0) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout_s)
        if self._outbox is not None:
            left = self._outbox.close(timeout_s)
            if left:
                log.warning("HTTP API stopped with %d events its producer could not deliver", left)
            self._outbox = None
        if self._reads is not None:
            self._reads.close()


class ApiError(RuntimeError):
    pass


def start_api(
    settings: Settings, runtime: Runtime, ready: Callable[[], bool], lock: threading.RLock | None = None
) -> ApiServer:
    """Serve the API on settings.api_host:settings.api_port (0: any free port) in a daemon
    thread. `ready` says whether the worker's consumer has partitions; `lock` (default
    `runtime.lock`) is the one the worker holds while it uses the store."""
    worker_lock = lock if lock is not None else runtime.lock
    guard = StoreGuard(None if settings.qdrant_url else worker_lock)
    reads = ReadPool(
        settings.api_read_threads,
        settings.api_read_queue,
        StoreGuard(worker_lock if needs_serialising(runtime.client) else None),
        settings.api_read_wait_s,
    )
    outbox = Outbox(settings)

    def trigger(scope: str, reason: str) -> str:
        event = ControlEvent(scope=scope, action="trigger", request_id=f"req-{uuid.uuid4().hex[:12]}", reason=reason)
        outbox.publish("control", [event])
        return event.request_id

    def memory(scope: str, memory_id: str) -> MemoryRecord | None:
        """The memory as readers see it now: a memory-add not curated yet, or active in the active generation."""
        for add in runtime.transcripts.pending(scope):
            if add.memory_id == memory_id:
                return pending_record(add)
        found = runtime.memories.record(scope, runtime.memories.state(scope).active_generation, memory_id)
        return found if found is not None and found.is_active else None

    def ping() -> None:
        runtime.client.get_collections()

    reader = ScopeView(runtime.memories, runtime.diary)
    publish = AuditPublisher(settings, "operator")
    operator = Decisions(
        rollback=lambda scope, generation, by, reason: decisions.rollback(
            runtime.memories, runtime.diary, scope, generation, by, reason, publish=publish
        ),
        approve=lambda scope, generation, by, reason, force: decisions.approve(
            runtime.memories,
            runtime.transcripts,
            runtime.diary,
            scope,
            generation,
            by,
            reason,
            force=force,
            publish=publish,
        ),
        reject=lambda scope, generation, by, reason: decisions.reject(
            runtime.memories, runtime.diary, scope, generation, by, reason, publish=publish
        ),
    )
    writes = Writes(outbox, memory, runtime.steering.get, runtime.steering.set)
    evidence = runtime.transcripts.messages
    ctx = ApiContext(settings, reader, ping, ready, guard, trigger, operator, writes, reads, messages=evidence)
    app = make_app(ctx)
    loop = asyncio.new_event_loop()
    started = threading.Event()
    failure: list[BaseException] = []
    bound: list[int] = []

    def serve() -> None:
        asyncio.set_event_loop(loop)
        runner = web.AppRunner(app, access_log=None)
        try:
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, settings.api_host, settings.api_port)
            loop.run_until_complete(site.start())
            bound.append(runner.addresses[0][1])  # the real port when api_port is 0
        except BaseException as err:  # surfaced to the caller of start_api
            failure.append(err)
            started.set()
            loop.run_until_complete(runner.cleanup())
            loop.close()
            return
        started.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(runner.cleanup())
            loop.close()

    thread = threading.Thread(target=serve, name="dreamstream-api", daemon=True)
    thread.start()
    if not started.wait(30):
        raise ApiError("the HTTP API did not start within 30s")
    if failure:
        raise ApiError(
            f"cannot serve the HTTP API on {settings.api_host}:{settings.api_port}: {failure[0]}"
        ) from failure[0]
    host = f"[{settings.api_host}]" if ":" in settings.api_host else settings.api_host
    url = f"http://{host}:{bound[0]}"
    log.info("HTTP API on %s%s", url, " (bearer token required)" if settings.api_token else "")
    return ApiServer(url, loop, thread, outbox, reads)
