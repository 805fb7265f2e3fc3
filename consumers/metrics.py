"""Prometheus metrics of the consolidation worker (served by `plumbing.metrics.serve_probes` on
127.0.0.1:`metrics_port` when set)."""

from __future__ import annotations

from typing import TYPE_CHECKING, get_args

from prometheus_client import Counter, Gauge, Histogram

from schemas.audit import ChangeKind
from schemas.jobs import Trigger

if TYPE_CHECKING:
    from consumers.dream_pass import PassResult

INDEXED = Counter(
    "dreamstream_indexed_total", "Input records indexed into Qdrant: turn, memory_add, correction, steering", ["kind"]
)
PASSES = Counter("dreamstream_passes_total", "Dream passes by trigger and outcome", ["trigger", "outcome"])
PHASE_SECONDS = Histogram(
    "dreamstream_phase_duration_seconds",
    "Time spent in each phase of a dream pass",
    ["phase"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
)
PASS_MEMORIES = Histogram(
    "dreamstream_pass_memories",
    "Active memories of a scope before and after a pass",
    ["when"],
    buckets=(0, 1, 5, 10, 25, 50, 100, 250, 500, 1000),
)
MEMORY_CHANGES = Counter("dreamstream_memory_changes_total", "Memory changes promoted, by kind", ["change"])
MODEL_CALLS = Counter("dreamstream_model_calls_total", "Model calls made by dream passes", ["engine"])
MODEL_TOKENS = Counter("dreamstream_model_tokens_total", "Model tokens used by dream passes", ["engine", "kind"])
MODEL_COST = Counter("dreamstream_model_cost_usd_total", "Model cost of dream passes, USD", ["engine"])
MESSAGES_LEFT = Counter(
    "dreamstream_pass_messages_left_total",
    "New messages a pass left for the next one (the model's call budget ran out)",
)
QUARANTINES = Counter("dreamstream_quarantines_total", "Candidate generations quarantined by the gate")
ROLLBACKS = Counter("dreamstream_rollbacks_total", "Rollbacks to an earlier generation (counted where they happen)")
QUARANTINE_DECISIONS = Counter(
    "dreamstream_quarantine_decisions_total", "Operator decisions about quarantined generations", ["decision"]
)
AWAITING_REVIEW = Gauge(
    "dreamstream_generations_awaiting_review",
    "Quarantined generations waiting for an operator's decision, per tenant (the store's figure: "
    "every worker reports it, take max by tenant)",
    ["tenant"],
)

PHASES = ("snapshot", "orient", "gather", "propose", "apply", "verify", "prune", "gate", "promote")
"""The phases a pass times (`dreamstream_phase_duration_seconds{phase}`), in order."""
INDEXED_KINDS = ("turn", "memory_add", "correction", "steering")


def declare_series(engine_name: str) -> None:
    """Export the series of known label values at 0 from the start, so a dashboard or an alert
    sees "none yet" rather than "no data" (e.g. the offline engine makes no model calls)."""
    from consumers.dream_pass import Outcome  # the pass imports this module

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
