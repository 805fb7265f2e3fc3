"""Store access from the API: serialised with the worker while the store is embedded.

Embedded Qdrant is one in-process client that is not safe to use from two threads at once, so
every store access of the API holds the runtime's lock, which the worker holds around its own
store access; against a Qdrant server no lock is needed.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator

log = logging.getLogger(__name__)

STORE_WAIT_S = 30.0
"""How long a request waits for the store while the worker uses it, before a 503."""


class StoreBusy(RuntimeError):
    pass


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
