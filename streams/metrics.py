"""Prometheus metrics of the stream worker (served on `metrics_host:metrics_port` when set)."""

from __future__ import annotations

from typing import get_args

from prometheus_client import Counter, Gauge

from schemas.jobs import Trigger
from schemas.topics import TopicCatalog
from schemas.validation import ERROR_TYPES

EVENTS = Counter(
    "dreamstream_events_total",
    "Input events read by the stream worker, by topic and outcome",
    ["topic", "outcome"],  # outcome: one of EVENT_OUTCOMES
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

EVENT_OUTCOMES = ("accepted", "dead_lettered", "duplicate")


def declare_series(topics: TopicCatalog) -> None:
    """Export every series of known label values at 0 from the start: a dashboard or an alert
    then sees "none yet" (dead letters: 0) rather than "no data" until the first one."""
    for topic in (topics.turns, topics.memory_adds, topics.control):
        for outcome in EVENT_OUTCOMES:
            EVENTS.labels(topic, outcome)
        for error_type in ERROR_TYPES:
            DEAD_LETTERS.labels(topic, error_type)
    for trigger in get_args(Trigger):
        for outcome in ("emitted", "skipped"):
            JOBS_EMITTED.labels(trigger, outcome)
