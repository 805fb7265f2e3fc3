"""Every counter and histogram series of known label values is exported at 0 before anything
happened, so a dashboard panel or an alert reads 0, not "no data"; and the label values declared
are the ones the code uses."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import get_args

from prometheus_client import REGISTRY

from consumers.runtime import open_runtime
from consumers.steps.index import declare_skipped
from dreaming.metrics import PHASES
from dreaming.pass_metrics import declare_series
from plumbing.retry import OPERATIONS, declare_transient_series
from schemas import ConversationTurn
from schemas.audit import ChangeKind
from schemas.jobs import Trigger
from schemas.settings import Settings
from schemas.validation import ERROR_TYPES
from streams.metrics import EVENT_OUTCOMES
from streams.metrics import declare_series as declare_stream_series
from tests.unit.feed import Feed


def value(name: str, **labels: str) -> float | None:
    return REGISTRY.get_sample_value(name, labels)


def test_the_stream_workers_counters_exist_at_zero_for_every_topic_outcome_error_type_and_trigger():
    topics = Settings(topic_prefix="declared").topics
    declare_stream_series(topics)
    for topic in (topics.turns, topics.memory_adds, topics.control):
        for outcome in EVENT_OUTCOMES:
            assert value("dreamstream_events_total", topic=topic, outcome=outcome) == 0
        for error_type in ERROR_TYPES:
            assert value("dreamstream_dead_letters_total", topic=topic, error_type=error_type) == 0
    for trigger in get_args(Trigger):
        for outcome in ("emitted", "skipped"):
            assert value("dreamstream_jobs_emitted_total", trigger=trigger, outcome=outcome) is not None


def test_the_consolidation_workers_counters_and_histograms_exist_before_any_pass():
    from dreaming.dream_pass import Outcome

    declare_series("offline")
    declare_skipped()
    for trigger in get_args(Trigger):
        for outcome in get_args(Outcome):
            assert value("dreamstream_passes_total", trigger=trigger, outcome=outcome) is not None
    for phase in PHASES:
        assert value("dreamstream_phase_duration_seconds_count", phase=phase) is not None
        assert value("dreamstream_phase_duration_seconds_bucket", phase=phase, le="+Inf") is not None
    for when in ("before", "after"):
        assert value("dreamstream_pass_memories_count", when=when) is not None
    for change in get_args(ChangeKind):
        assert value("dreamstream_memory_changes_total", change=change) is not None
    for kind in ("turn", "memory_add", "correction", "steering"):
        assert value("dreamstream_indexed_total", kind=kind) is not None
    for decision in ("approved", "rejected"):
        assert value("dreamstream_quarantine_decisions_total", decision=decision) is not None
    assert value("dreamstream_index_skipped_total", kind="turns", reason="not_json") is not None
    assert value("dreamstream_index_skipped_total", kind="memory-adds", reason="protected_ignored") is not None
    assert value("dreamstream_model_calls_total", engine="offline") is not None
    declare_transient_series()
    # Exists, not "is 0": these series have no per-test label (the stream ones have the topic), and the
    # retry and worker-step tests count real transient errors in this process's registry before or after.
    for resource, operations in OPERATIONS.items():
        for operation in operations:
            assert value("dreamstream_transient_errors_total", resource=resource, operation=operation) is not None


def test_a_real_pass_times_only_declared_phases(tmp_path):
    runtime = open_runtime(Settings(home=tmp_path, embedder="hashing"))
    try:
        scope = "declared/bot/u1"
        feed = Feed(runtime, scope)
        feed.turns(
            [
                ConversationTurn(
                    scope=scope,
                    session_id="s",
                    message_id=f"s#{i}",
                    role="user",
                    content=text,
                    ts=datetime(2026, 5, 1, 10, i, tzinfo=UTC),
                )
                for i, text in enumerate(["I keep my bicycle in the garden shed.", "My sister lives in Lyon."])
            ]
        )
        result = feed.run()
        assert result.status == "completed", result.reason
        assert result.phase_seconds and set(result.phase_seconds) <= set(PHASES), result.phase_seconds
    finally:
        runtime.close()
