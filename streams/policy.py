"""When a scope should dream. Pure: the signals, the policy and the clock in; a decision out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from schemas.jobs import Trigger
from schemas.policy import TriggerPolicy
from streams.signals import ScopeSignals


@dataclass(frozen=True)
class Decision:
    trigger: Trigger
    skipped: bool = False
    """The scope hit its failure gate: record a `skipped` outcome instead of running a job."""


Verdict = Decision | None
_Automatic = Literal["pressure", "threshold", "idle", "schedule"]


def in_flight(signals: ScopeSignals, policy: TriggerPolicy, now: float) -> bool:
    """A job is in flight until its outcome arrives or it times out (then it may be retried)."""
    return signals.in_flight_job is not None and now - signals.in_flight_since < policy.inflight_timeout_s


def _automatic(signals: ScopeSignals, policy: TriggerPolicy, now: float) -> _Automatic | None:
    if signals.pending_signal == 0:
        return None
    if now - signals.last_pass_at < policy.cooldown_s:
        return None
    if signals.tokens >= policy.threshold_tokens:
        return "pressure"
    if signals.pending_signal >= policy.threshold_messages:
        return "threshold"
    found, needed = signals.corrections + signals.decisions, policy.threshold_signals
    if found >= needed or (found + len(signals.entities) >= needed and found + signals.repeated_count() >= needed):
        return "threshold"
    if now - signals.last_event_at >= policy.idle_s:
        return "idle"
    if policy.schedule_s and signals.last_pass_at and now - signals.last_pass_at >= policy.schedule_s:
        return "schedule"
    return None


def decide(signals: ScopeSignals, policy: TriggerPolicy, now: float) -> Verdict:
    """Manual requests go first and ignore the cooldown; at most one job is ever in flight; a
    scope that failed `max_failures` times in a row is skipped until a success or a reset."""
    if in_flight(signals, policy, now):
        return None
    trigger: Trigger | None = "manual" if signals.waiting_requests else _automatic(signals, policy, now)
    if trigger is None:
        return None
    return Decision(trigger, skipped=signals.consecutive_failures >= policy.max_failures)
