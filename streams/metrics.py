"""Prometheus metrics of the stream worker (served on `metrics_host:metrics_port` when set)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

EVENTS = Counter(
    "dreamstream_events_total",
    "Input events read by the stream worker, by topic and outcome",
    ["topic", "outcome"],  # outcome: accepted | dead_lettered | duplicate
)
DEAD_LETTERS = Counter(
    "dreamstream_dead_letters_total", "Events sent to the dead-letter topic", ["topic", "error_type"]
)
JOBS_EMITTED = Counter(
    "dreamstream_jobs_emitted_total",
    "Dream jobs emitted (or skipped by the failure gate), by trigger",
    ["trigger", "outcome"],  # outcome: emitted | skipped
)
SCOPES_TRACKED = Gauge("dreamstream_scopes_tracked", "Scopes with a signals row on this worker")
# dreamstream_kafka_unreachable and dreamstream_kafka_connect_failures_total: plumbing.broker_health (both workers).
RESTORED_ROWS = Counter("dreamstream_signals_restored_total", "Signal rows restored from the changelog on assignment")
# Consumer lag: `plumbing.metrics.CONSUMER_LAG` (`dreamstream_consumer_lag{topic,partition}`), the
# one gauge both workers report through.
