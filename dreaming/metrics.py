"""Prometheus metrics of the consolidation worker (served by `plumbing.metrics.serve_probes` on
127.0.0.1:`metrics_port` when set)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

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
