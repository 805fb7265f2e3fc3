"""When a scope should dream. Pure: the signals and the clock in, a trigger (or None) out."""

from __future__ import annotations

from dataclasses import dataclass

from schemas.jobs import Trigger
from streams.signals import ScopeSignals


@dataclass(frozen=True)
class TriggerPolicy:
    threshold_messages: int
    threshold_tokens: int
    inflight_timeout_s: float

    def in_flight(self, signals: ScopeSignals, now: float) -> bool:
        """A job is in flight until its outcome arrives or it times out (then it may be retried)."""
        return signals.in_flight_job is not None and now - signals.in_flight_since < self.inflight_timeout_s

    def decide(self, signals: ScopeSignals, now: float) -> Trigger | None:
        if self.in_flight(signals, now):
            return None
        if signals.waiting_requests:
            return "manual"
        if signals.messages + signals.memory_adds >= self.threshold_messages:
            return "threshold"
        if signals.tokens >= self.threshold_tokens:
            return "pressure"
        return None
