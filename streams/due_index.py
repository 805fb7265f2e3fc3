"""The timer's index: which scopes a time-based trigger may fire for, without a rescan of every row."""

from __future__ import annotations

import heapq

from schemas.policy import TriggerPolicy
from streams.signals import ScopeSignals


class DueIndex:
    """Scopes with unconsumed signal → a time at or before which no time-based trigger can fire,
    with a heap so a timer tick touches only what is due (no rescan of every row).

    Lazy on purpose: new events only move a scope's due time later, so `track` keeps the earlier
    entry instead of pushing a new one per event (one heap entry per scope, not one per event).
    `pop_due` therefore hands out candidates; the timer decides on the row and tracks again what
    is not due yet."""

    def __init__(self) -> None:
        self.due: dict[str, float] = {}
        self._heap: list[tuple[float, str]] = []

    def track(self, scope: str, signals: ScopeSignals, policy: TriggerPolicy) -> None:
        if signals.messages + signals.memory_adds == 0:
            self.due.pop(scope, None)
            return
        due = signals.last_event_at + policy.idle_s
        if policy.schedule_s and signals.last_pass_at:
            due = min(due, signals.last_pass_at + policy.schedule_s)
        known = self.due.get(scope)
        if known is None or due < known:
            self.due[scope] = due
            heapq.heappush(self._heap, (due, scope))
            if len(self._heap) > 2 * len(self.due) + 10_000:
                self._heap = [(d, s) for s, d in self.due.items()]
                heapq.heapify(self._heap)

    def discard(self, scope: str) -> None:
        self.due.pop(scope, None)

    def pop_due(self, now: float, limit: int) -> list[str]:
        out: list[str]
        heap, due, out = self._heap, self.due, []
        while heap and heap[0][0] <= now and len(out) < limit:
            at, scope = heapq.heappop(heap)
            if due.get(scope) == at:
                del due[scope]
                out.append(scope)
        return out

    def __len__(self) -> int:
        return len(self.due)
