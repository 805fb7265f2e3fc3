"""`dreamstream_generations_awaiting_review{tenant}`: what an operator has to review now.

The number lives in the store (a quarantined generation in a scope's pointer), so the gauge is
derived from it: at start (`load`: every tenant the store knows gets a series, at 0 when nothing
waits), then kept in step with every pointer this process writes (`observe`, wired to
`MemoryStore.on_state`: a quarantine, an approve, a reject, an old generation dropped, a forget),
and read again every `REFRESH_S` (`refresh`) for what other processes decided — another worker,
the CLI against a Qdrant server. Every worker reports the whole store's figure, so dashboards and
alerts take `max by (tenant)` over the workers, never `sum`.
"""

from __future__ import annotations

import logging
import threading
import time

from dreaming.metrics import AWAITING_REVIEW
from dreaming.store.memories import MemoryStore, ScopeState
from schemas.scope import parse_scope

log = logging.getLogger(__name__)

REFRESH_S = 30.0
"""How often the store is read again: a decision another process made shows within this time."""


class AwaitingReview:
    """Per scope, the quarantined generations it holds; per tenant, their sum on the gauge.
    Thread-safe: the worker loop and the API thread both write pointers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str, tuple[str, int]] = {}
        """scope -> (tenant, generations waiting), only scopes with at least one."""
        self._tenants: set[str] = set()
        self._observed: dict[str, int] = {}
        """scope -> the sequence number of its last observation (see `refresh`)."""
        self._seq = 0
        self._refreshed_at = float("-inf")
        self._loaded = False

    def load(self, memories: MemoryStore) -> None:
        """Derive the gauge from the store: every known tenant, and every scope waiting."""
        tenants = memories.tenants_known()
        with self._lock:
            self._tenants |= tenants
        self.refresh(memories)
        self._loaded = True

    def refresh(self, memories: MemoryStore) -> None:
        """Read the waiting scopes from the store again. A pointer this process writes while the
        read runs is newer than what the read saw, so its observation is kept."""
        with self._lock:
            started = self._seq
        found = memories.awaiting_review()
        with self._lock:
            newer = {s: v for s, v in self._waiting.items() if self._observed.get(s, -1) >= started}
            gone = {s for s, seq in self._observed.items() if seq >= started and s not in self._waiting}
            merged = {s: v for s, v in found.items() if s not in gone}
            merged.update(newer)
            self._waiting = merged
            self._observed = {s: seq for s, seq in self._observed.items() if seq >= started}
            self._refreshed_at = time.monotonic()
            self._export()

    def due(self, now: float | None = None) -> bool:
        """Whether the store should be read again: never read yet, or `REFRESH_S` since the last try."""
        return (time.monotonic() if now is None else now) - self._refreshed_at >= REFRESH_S

    def postpone(self) -> None:
        """A read failed: try again in `REFRESH_S`, not on every loop."""
        self._refreshed_at = time.monotonic()

    def update(self, memories: MemoryStore) -> None:
        """`load` the first time, `refresh` after that."""
        if self._loaded:
            self.refresh(memories)
        else:
            self.load(memories)

    def observe(self, scope: str, state: ScopeState | None) -> None:
        """A pointer this process wrote (None: `forget` deleted it)."""
        tenant = parse_scope(scope)[0]
        count = 0 if state is None else sum(1 for g in state.generations if g.status == "quarantined")
        with self._lock:
            self._seq += 1
            self._observed[scope] = self._seq
            if count:
                self._waiting[scope] = (tenant, count)
            else:
                self._waiting.pop(scope, None)
            self._tenants.add(tenant)
            self._export()

    def by_tenant(self) -> dict[str, int]:
        with self._lock:
            return self._totals()

    def _totals(self) -> dict[str, int]:
        totals = dict.fromkeys(self._tenants, 0)
        for tenant, count in self._waiting.values():
            totals[tenant] = totals.get(tenant, 0) + count
        return totals

    def _export(self) -> None:
        """Called with the lock held. A tenant once seen keeps its series (at 0 when nothing waits)."""
        totals = self._totals()
        self._tenants |= totals.keys()
        for tenant, count in totals.items():
            AWAITING_REVIEW.labels(tenant).set(count)
