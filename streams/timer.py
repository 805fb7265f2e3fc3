"""Idle and schedule triggers need no event to fire: a timer tick sends each due scope an
`evaluate` control event, which the loop folds like any other event, so the decision happens at
a place in the stream. A tick touches only the scopes the due index hands out, never every row."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from schemas import ControlEvent
from streams.policy import decide
from streams.processor import Processor
from streams.rows import SignalTables
from streams.signals import ScopeSignals

NUDGES_PER_TICK = 5_000
"""At most this many scopes looked at per tick (the rest are due on the next one)."""

SendControl = Callable[[ControlEvent, int], None]
"""Publish a control event to a partition (the scope's home)."""


def nudge_quiet_scopes(processor: Processor, tables: SignalTables, send: SendControl, now: float) -> int:
    """Send `evaluate` to the scopes whose idle or schedule trigger is due; returns how many."""
    sent = 0
    due, policy, home = tables.due, processor.policy, processor.validator.home
    for scope in due.pop_due(now, NUDGES_PER_TICK):
        partition = home(scope.encode())
        row = tables.row(partition, scope)
        if row is None:
            continue
        signals = ScopeSignals.decode(row)
        verdict = decide(signals, policy(scope), now)
        if verdict is None or verdict.trigger not in ("idle", "schedule"):
            due.track(scope, signals, policy(scope))  # a later event moved it: due again later
            continue
        send(ControlEvent(scope=scope, action="evaluate", request_id=f"timer-{uuid.uuid4().hex[:12]}"), partition)
        sent += 1
    tables.report()
    return sent
