"""What every route of the API reaches: the settings, the store (through the guard), the
readiness check, the trigger and the operator decisions."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from aiohttp import web

from consumers.api.guard import ReadPool, StoreGuard
from consumers.store.history import ScopeReader
from consumers.store.memories import ScopeState
from schemas.settings import Settings

T = TypeVar("T")


@dataclass(frozen=True)
class Decisions:
    """Operator decisions on this process's stores (consumers/store/quarantine.py)."""

    rollback: Callable[[str, int | None, str, str], ScopeState]
    approve: Callable[[str, int, str, str, bool], ScopeState]
    reject: Callable[[str, int, str, str], ScopeState]


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
    reads: ReadPool | None = None
    """The read path (ReadPool); None: reads go through `blocking`, as writes do."""

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
