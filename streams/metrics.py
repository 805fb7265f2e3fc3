"""Prometheus metrics of the stream worker (served on 127.0.0.1:`metrics_port` when set)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

EVENTS = Counter(
    "dreamstream_events_total", "Input events read by the stream worker, by topic and outcome",
    ["topic", "outcome"],  # outcome: accepted | dead_lettered | duplicate
)
DEAD_LETTERS = Counter("dreamstream_dead_letters_total", "Events sent to the dead-letter topic", ["topic", "error_type"])
JOBS_EMITTED = Counter(
    "dreamstream_jobs_emitted_total", "Dream jobs emitted (or skipped by the failure gate), by trigger",
    ["trigger", "outcome"],  # outcome: emitted | skipped
)
SCOPES_TRACKED = Gauge("dreamstream_scopes_tracked", "Scopes with a signals row on this worker")
