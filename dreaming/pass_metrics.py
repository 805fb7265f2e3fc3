"""What a dream pass counts in the consolidation metrics (`dreaming/metrics.py`): the series of known
label values declared at 0 when a worker starts, and one finished pass recorded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, get_args

from dreaming.metrics import (
    INDEXED,
    INDEXED_KINDS,
    MEMORY_CHANGES,
    MESSAGES_LEFT,
    MODEL_CALLS,
    MODEL_COST,
    MODEL_TOKENS,
    PASS_MEMORIES,
    PASSES,
    PHASE_SECONDS,
    PHASES,
    QUARANTINE_DECISIONS,
    QUARANTINES,
)
from schemas.audit import ChangeKind
from schemas.jobs import Trigger

if TYPE_CHECKING:
    from dreaming.dream_pass import PassResult


def declare_series(engine_name: str) -> None:
    """Export the series of known label values at 0 from the start, so a dashboard or an alert
    sees "none yet" rather than "no data" (e.g. the offline engine makes no model calls)."""
    from dreaming.dream_pass import Outcome

    for trigger in get_args(Trigger):
        for outcome in get_args(Outcome):
            PASSES.labels(trigger, outcome)
    for phase in PHASES:
        PHASE_SECONDS.labels(phase)
    for when in ("before", "after"):
        PASS_MEMORIES.labels(when)
    for change in get_args(ChangeKind):
        MEMORY_CHANGES.labels(change)
    for kind in INDEXED_KINDS:
        INDEXED.labels(kind)
    MODEL_CALLS.labels(engine_name)
    MODEL_COST.labels(engine_name)
    for kind in ("prompt", "completion"):
        MODEL_TOKENS.labels(engine_name, kind)
    for decision in ("approved", "rejected"):
        QUARANTINE_DECISIONS.labels(decision)


def record_pass(result: PassResult, engine_name: str) -> None:
    """Count one finished pass."""
    PASSES.labels(result.job.trigger, result.status).inc()
    if result.status == "duplicate":
        return
    for phase, seconds in result.phase_seconds.items():
        PHASE_SECONDS.labels(phase).observe(seconds)
    PASS_MEMORIES.labels("before").observe(result.memories_before)
    PASS_MEMORIES.labels("after").observe(result.memories_after)
    if result.status == "quarantined":
        QUARANTINES.inc()
    if result.status == "completed":
        for event in result.events:
            change = getattr(event, "change", None)
            if change:
                MEMORY_CHANGES.labels(change).inc()
    engine = result.engine
    if engine is not None and engine.unread_message_ids:
        MESSAGES_LEFT.inc(len(engine.unread_message_ids))
    if engine is not None and engine.model_calls:
        name = engine_name
        MODEL_CALLS.labels(name).inc(engine.model_calls)
        MODEL_TOKENS.labels(name, "prompt").inc(engine.prompt_tokens)
        MODEL_TOKENS.labels(name, "completion").inc(engine.completion_tokens)
        MODEL_COST.labels(name).inc(engine.cost_usd)
