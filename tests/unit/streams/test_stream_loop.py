"""Pieces of the stream worker's input loop that need no broker: commit order, the due index,
the quiet librdkafka log, broker health."""

from __future__ import annotations

import logging

import pytest

from plumbing.broker_health import BrokerHealth, QuietKafkaLog
from plumbing.kafka_io import DeliveryFailed
from schemas.policy import TriggerPolicy
from schemas.settings import Settings
from streams.commits import CommitTracker
from streams.due_index import DueIndex
from streams.rows import changelog_key, scope_of
from streams.signals import ScopeSignals
from tests.timer_loop import TimerOnlyLoop


def test_offsets_commit_only_in_batch_order_once_every_delivery_is_in():
    tracker = CommitTracker()
    first, second = tracker.add({("t", 0): 10}), tracker.add({("t", 0): 20, ("t", 1): 5})
    first.remaining, second.remaining = 2, 1
    second.delivered(None, None)
    assert tracker.ready() == {}, "the second batch is done but the first is not"
    first.delivered(None, None)
    assert tracker.ready() == {}
    first.delivered(None, None)
    assert tracker.ready() == {("t", 0): 20, ("t", 1): 5}
    empty = tracker.add({("t", 0): 21})
    assert tracker.ready() == {("t", 0): 21}, "a batch with nothing to publish commits at once"
    del empty


def test_a_failed_delivery_is_never_committed_past():
    tracker = CommitTracker()
    pending = tracker.add({("t", 0): 10})
    pending.remaining = 1
    pending.delivered("broker said no", None)
    with pytest.raises(DeliveryFailed):
        tracker.ready()


def test_due_index_hands_out_only_what_is_due_and_follows_changes():
    due, policy = DueIndex(), TriggerPolicy(idle_s=100, schedule_s=0)
    due.track("a/b/c", ScopeSignals(messages=1, last_event_at=1000.0), policy)
    due.track("a/b/d", ScopeSignals(messages=1, last_event_at=2000.0), policy)
    assert due.pop_due(1099.0, 10) == []
    assert due.pop_due(1100.0, 10) == ["a/b/c"]
    due.track("a/b/c", ScopeSignals(messages=2, last_event_at=1500.0), policy)  # tracked again
    due.track("a/b/d", ScopeSignals(messages=1, last_event_at=1200.0), policy)  # moved earlier
    assert due.pop_due(1300.0, 10) == ["a/b/d"]
    due.track("a/b/d", ScopeSignals(), policy)  # nothing pending: not tracked
    assert due.pop_due(10_000.0, 10) == ["a/b/c"] and len(due) == 0


def test_due_index_keeps_one_entry_per_scope_however_many_events():
    due, policy = DueIndex(), TriggerPolicy(idle_s=100, schedule_s=0)
    for n in range(1_000):
        due.track("a/b/c", ScopeSignals(messages=n + 1, last_event_at=1000.0 + n), policy)
    assert len(due._heap) == 1 and len(due) == 1


def test_the_timer_nudges_a_scope_only_once_its_latest_event_is_idle_long_enough():
    """The index hands out the scope at its first event's due time; the timer reads the row,
    sees a later event, and tracks it again instead of nudging."""
    settings = Settings(trigger=TriggerPolicy(idle_s=100, schedule_s=0, cooldown_s=0))

    timer = TimerOnlyLoop(settings)
    scope = "a/b/c"
    partition = timer.processor.validator.home(scope.encode())
    first = ScopeSignals(partition=partition, messages=1, tokens=5, last_event_at=1000.0)
    timer.tables[partition] = {scope: first.encode()}
    timer.due.track(scope, first, settings.trigger)
    later = ScopeSignals(partition=partition, messages=2, tokens=10, last_event_at=1050.0)
    timer.tables[partition][scope] = later.encode()
    timer.due.track(scope, later, settings.trigger)

    assert timer.nudge_quiet_scopes(1120.0) == 0 and timer.nudged == []  # idle for 70 s only
    assert timer.nudge_quiet_scopes(1150.0) == 1 and timer.nudged == [scope]


def test_quiet_kafka_log_keeps_one_line_per_facility_and_interval(caplog):
    target = logging.getLogger("test.quiet")
    quiet = QuietKafkaLog(3600, target)
    with caplog.at_level(logging.INFO, logger="test.quiet"):
        for _ in range(50):
            quiet.log(logging.ERROR, "%s [%s] %s", "FAIL", "rdkafka#consumer-1", "Connect to ... refused")
        quiet.log(logging.ERROR, "%s [%s] %s", "ERROR", "rdkafka#consumer-1", "1/1 brokers are down")
    assert len(caplog.records) == 2


def test_broker_health_logs_once_per_interval_and_recovers(caplog):
    from confluent_kafka import KafkaError

    health = BrokerHealth(Settings(broker_retry_log_s=3600), logging.getLogger("test.health"))
    with caplog.at_level(logging.INFO, logger="test.health"):
        for _ in range(100):
            health.error(KafkaError(KafkaError._TRANSPORT, "Connection refused"))
        assert health.attempts == 100 and health.idle_sleep_s == 1.0
        health.ok()
    lines = [r.getMessage() for r in caplog.records]
    assert (
        len(lines) == 2 and "1 failed attempts so far" in lines[0] and "after" in lines[1] and "100 failed" in lines[1]
    )
    assert health.down_since is None and health.idle_sleep_s == 0.02


def test_changelog_keys_are_the_scope_as_a_json_string():
    assert changelog_key("acme/support-bot/u1") == b'"acme/support-bot/u1"'
    assert scope_of(b'"acme/support-bot/u1"') == "acme/support-bot/u1"
    assert scope_of(b'"a\\u00e9/b/c"') == "a\u00e9/b/c"
