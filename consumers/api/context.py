"""What every route of the API reaches: the settings, the store (through the guard), the
readiness check, the trigger and the operator decisions."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from aiohttp import web

from consumers.api.guard import ReadPool, StoreGuard
from consumers.api.outbox import Outbox
from dreaming.store.history import ScopeReader
from dreaming.store.memories import ScopeState
from dreaming.store.review import Messages
from dreaming.store.steering import SteeringRecord
from schemas import MemoryRecord
from schemas.settings import Settings

T = TypeVar("T")


@dataclass(frozen=True)
class Decisions:
    """Operator decisions on this process's stores (dreaming/store/quarantine.py)."""

    rollback: Callable[[str, int | None, str, str], ScopeState]
    approve: Callable[[str, int, str, str, bool], ScopeState]
    reject: Callable[[str, int, str, str], ScopeState]


@dataclass(frozen=True)
class Writes:
    """What the write routes reach: the API's producer, and the store reads that check a request."""

    outbox: Outbox
    memory: Callable[[str, str], MemoryRecord | None]
    """(scope, memory id) -> the memory as readers see it now (active, or a memory-add no pass has
    curated yet), or None."""
    steering: Callable[[str, str | None], SteeringRecord | None]
    """(tenant, scope or None for the tenant's own) -> the steering last set."""
    record_steering: Callable[[str, str | None, str, str, datetime], None]
    """Record a steering the API has just sent, so a GET right after the PUT reads it."""


@dataclass(frozen=True)
class ApiContext:
    settings: Settings
    reader: ScopeReader
    store_ping: Callable[[], None]
    ready: Callable[[], bool]
    guard: StoreGuard
    trigger: Callable[[str, str], str]
    """(scope, reason) -> request id of the control event sent."""
    decisions: Decisions | None = None
    writes: Writes | None = None
    reads: ReadPool | None = None
    """The read path (ReadPool); None: reads go through `blocking`, as writes do."""

    messages: Messages | None = None
    """(scope, message ids) -> the transcript messages among them: evidence on the review page."""

    async def read(self, fn: Callable[[], T]) -> T:
        """Run `fn` (store reads only) on the read pool: never waits for the worker; 429 when full."""
        if self.reads is None:
            return await self.blocking(fn)
        return await self.reads.run(fn)

    async def blocking(self, fn: Callable[[], T]) -> T:
        """Run `fn` (store work that writes) in a thread, holding the store guard."""

        def run() -> T:
            with self.guard():
                return fn()

        return await asyncio.to_thread(run)

    def operator(self) -> Decisions:
        if self.decisions is None:
            raise web.HTTPNotImplemented(reason="operator decisions are not served here")
        return self.decisions

    def evidence(self) -> Messages:
        if self.messages is None:
            raise web.HTTPNotImplemented(reason="transcript messages are not served here")
        return self.messages

    def write(self) -> Writes:
        if self.writes is None:
            raise web.HTTPNotImplemented(reason="writes are not served here")
        return self.writes
