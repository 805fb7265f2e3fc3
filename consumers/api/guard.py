"""Store access from the API, beside the worker.

Reads go through `ReadPool`: a few threads of their own and a bounded queue. The embedded engine
and a Qdrant server take concurrent calls, so a read never waits for the worker (nor the worker
for a read); when every thread is busy and the queue is full, a request is refused at once
(`ReadsBusy`, a 429 with `Retry-After`), never left hanging. Only qdrant-client's local mode (one
Python object, not safe from two threads) still serialises reads with the worker, on its lock.

Writes (operator decisions) hold the worker's lock whenever the store is embedded, so a decision
never lands in the middle of a pass over the same scope (`StoreGuard`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

log = logging.getLogger(__name__)

STORE_WAIT_S = 30.0
"""How long a request waits for the store while the worker uses it, before a 503."""


T = TypeVar("T")
RETRY_AFTER_S = 1
"""What a refused read is told to wait: a read takes milliseconds, so the queue drains fast."""


class StoreBusy(RuntimeError):
    pass


class ReadsBusy(RuntimeError):
    """Every read thread is busy and the queue is full: answered 429 at once."""

    retry_after_s = RETRY_AFTER_S


class StoreGuard:
    """Serialises store access with the worker when the store is embedded."""

    def __init__(self, lock: threading.RLock | None, wait_s: float | None = None) -> None:
        self._lock = lock
        self._wait_s = wait_s

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        if self._lock is None:
            yield
            return
        wait_s = STORE_WAIT_S if self._wait_s is None else self._wait_s  # read late: tests shorten it
        if not self._lock.acquire(timeout=wait_s):
            raise StoreBusy(f"the store stayed busy for {wait_s:.0f}s; retry")
        try:
            yield
        finally:
            self._lock.release()

    def busy(self) -> bool:
        """True when someone else holds the store right now (so it is in use, hence reachable)."""
        if self._lock is None:
            return False
        if self._lock.acquire(blocking=False):
            self._lock.release()
            return False
        return True


class ReadPool:
    """Runs the API's store reads on `threads` threads of their own, with at most `queue` more
    waiting, and only while the wait they would have stays within `wait_s` (judged from the
    recent time a read takes); past either, `ReadsBusy` at once. So a read is answered soon or
    refused soon, on a quiet machine and a busy one alike. `guard` serialises with the worker
    only when the store needs it (local mode)."""

    def __init__(self, threads: int, queue: int, guard: StoreGuard | None = None, wait_s: float = float("inf")) -> None:
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="dreamstream-read")
        self._threads = threads
        self._limit = threads + queue
        self._wait_s = wait_s
        self._admitted = 0
        self._read_s = 0.0
        """Moving average of a read's wall time (0 until the first read)."""
        self._guard = guard or StoreGuard(None)
        self.refused = 0

    @property
    def guard(self) -> StoreGuard:
        return self._guard

    async def run(self, fn: Callable[[], T]) -> T:
        # Only the API's event loop calls this, so the counts need no lock.
        expected_wait = (self._admitted - self._threads + 1) / self._threads * self._read_s
        if self._admitted >= self._limit or (self._admitted >= self._threads and expected_wait > self._wait_s):
            self.refused += 1
            raise ReadsBusy(f"{self._admitted} reads are running or waiting; retry in {RETRY_AFTER_S}s")
        self._admitted += 1

        def call() -> T:
            with self._guard():
                return fn()

        started = time.perf_counter()
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, call)
        finally:
            self._admitted -= 1
            took = time.perf_counter() - started
            self._read_s = took if self._read_s == 0.0 else 0.9 * self._read_s + 0.1 * took

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


def store_reachable(guard: StoreGuard, ping: Callable[[], None]) -> tuple[bool, str]:
    """(reachable, why not) for the readiness probe."""
    if guard.busy():
        return True, ""  # the worker is using it right now
    try:
        with guard():
            ping()
    except Exception as err:  # noqa: BLE001 - any failure to answer means "not ready"; reported, not hidden
        log.warning("readiness: store unreachable: %s", err)
        return False, f"{type(err).__name__}: {err}"
    return True, ""
