"""The stream worker's logic, without Kafka: validation, signals, trigger policies, batches and the
storm guard."""

from __future__ import annotations

import json

import pytest

from schemas import JobLifecycleEvent
from schemas.policy import TriggerPolicy
from schemas.settings import Settings
from schemas.validation import home_partition
from streams.batch import Outputs
from streams.processor import Processor
from streams.signals import ScopeSignals
from streams.storm import BadInputStorm
from tests.kafka_record import Record

POLICY = TriggerPolicy(
    threshold_messages=3,
    threshold_signals=2,
    threshold_tokens=10_000,
    idle_s=300,
    schedule_s=3_600,
    cooldown_s=30,
    inflight_timeout_s=60,
    max_failures=3,
)
SETTINGS = Settings(trigger=POLICY)
TOPICS = SETTINGS.topics
SCOPE = "acme/support-bot/u1"


def turn(i: int, content: str | None = None, scope: str = SCOPE) -> bytes:
    return json.dumps(
        {
            "scope": scope,
            "session_id": "s",
            "message_id": f"m{i}",
            "role": "user",
            "content": content or f"message {i}",
            "ts": "2026-04-12T11:00:00+00:00",
        }
    ).encode()


def control(action: str, request_id: str = "r1") -> bytes:
    return json.dumps({"scope": SCOPE, "action": action, "request_id": request_id}).encode()


def feed(
    processor: Processor,
    signals: ScopeSignals,
    topic: str,
    offset: int,
    value: bytes,
    now: float = 1000.0,
    key: bytes | None = SCOPE.encode(),
) -> Outputs:
    """One record through the path production runs (`process_batch`), `signals` being the row of
    the key's scope before, and updated in place to the row after."""
    partition = home_partition(key, processor.settings.partitions) if key else 0
    scope = key.decode() if key else SCOPE
    batch = processor.process_batch(
        [Record(topic, partition, offset, key, value)], {partition: {scope: signals.encode()}}, now
    )
    row = batch.rows.get((partition, scope), signals)
    after = row if row is not None else ScopeSignals()  # None: forgotten, the row is deleted
    for name in ScopeSignals.__struct_fields__:
        setattr(signals, name, getattr(after, name))
    return batch


def finish(processor: Processor, signals: ScopeSignals, job_id: str, status: str, now: float) -> None:
    done = JobLifecycleEvent(
        event_id="e", scope=SCOPE, job_id=job_id, status=status, trigger="threshold", ts="2026-04-12T11:00:00+00:00"
    )
    processor.apply(done, TOPICS.audit, 0, 0, signals, now)


def test_threshold_emits_one_job_with_watermarks_then_waits_for_the_outcome():
    processor, signals = Processor(SETTINGS), ScopeSignals()
    outs = [feed(processor, signals, TOPICS.turns, i, turn(i)) for i in range(6)]
    jobs = [j for out in outs for j in out.jobs]
    assert len(jobs) == 1, "a second job must not start while one is in flight"
    job = jobs[0]
    assert job.trigger == "threshold" and job.watermarks == {TOPICS.turns: 3}
    assert [e.status for out in outs for e in out.events] == ["pending"]
    finish(processor, signals, job.job_id, "completed", 1001.0)
    assert signals.in_flight_job is None and signals.last_outcome == "completed"
    out = Outputs()
    processor.decide(SCOPE, signals, 1001.0 + POLICY.cooldown_s, out)
    assert out.jobs[0].watermarks == {TOPICS.turns: 6}


def test_cooldown_holds_automatic_triggers_but_not_manual_ones():
    processor, signals = Processor(SETTINGS), ScopeSignals(last_pass_at=995.0)
    for i in range(4):
        assert not feed(processor, signals, TOPICS.turns, i, turn(i), now=1000.0).jobs
    manual = feed(processor, signals, TOPICS.control, 0, control("trigger"), now=1000.0)
    assert manual.jobs[0].trigger == "manual"


def test_corrections_and_decisions_trigger_before_the_message_threshold():
    processor, signals = Processor(SETTINGS), ScopeSignals()
    assert not feed(processor, signals, TOPICS.turns, 0, turn(0, "No, it's aisle, not window.")).jobs
    out = feed(processor, signals, TOPICS.turns, 1, turn(1, "We decided to switch the warehouse to DuckDB."))
    job = out.jobs[0]
    assert job.trigger == "threshold" and {m.kind for m in job.motives} == {"correction", "decision"}


def test_context_pressure_triggers_on_tokens():
    processor, signals = (
        Processor(SETTINGS.model_copy(update={"trigger": POLICY.model_copy(update={"threshold_tokens": 50})})),
        ScopeSignals(),
    )
    out = feed(processor, signals, TOPICS.turns, 0, turn(0, "x" * 400))
    assert out.jobs[0].trigger == "pressure"


def test_idle_and_schedule_fire_only_after_their_quiet_time():
    processor, signals = Processor(SETTINGS), ScopeSignals()
    feed(processor, signals, TOPICS.turns, 0, turn(0), now=1000.0)
    for now, expected in ((1100.0, None), (1000.0 + POLICY.idle_s, "idle")):
        out = Outputs()
        processor.decide(SCOPE, signals, now, out)
        assert [j.trigger for j in out.jobs] == ([expected] if expected else [])
    now = 20_000.0
    busy = ScopeSignals(messages=1, last_event_at=now - 10, last_pass_at=now - POLICY.schedule_s + 1)
    scheduled = ScopeSignals(messages=1, last_event_at=now - 10, last_pass_at=now - POLICY.schedule_s)
    for signals, expected in ((busy, []), (scheduled, ["schedule"])):
        out = Outputs()
        processor.decide(SCOPE, signals, now, out)
        assert [j.trigger for j in out.jobs] == expected
    quiet = ScopeSignals(last_event_at=0.0, last_pass_at=1.0)
    out = Outputs()
    processor.decide(SCOPE, quiet, 1e9, out)
    assert out.jobs == [], "a scope with nothing new never dreams on a timer"


def test_manual_trigger_waits_for_in_flight_job_and_is_not_lost():
    processor, signals = Processor(SETTINGS), ScopeSignals()
    signals.job_emitted("job-running", 1000.0)
    assert not feed(processor, signals, TOPICS.control, 0, control("trigger")).jobs
    assert signals.waiting_requests == ["r1"]
    finish(processor, signals, "job-running", "completed", 1001.0)
    out = Outputs()
    processor.decide(SCOPE, signals, 1001.0, out)
    assert out.jobs[0].trigger == "manual" and out.jobs[0].request_ids == ("r1",)


def test_in_flight_job_times_out_so_the_scope_is_not_stuck_forever():
    processor, signals = Processor(SETTINGS), ScopeSignals()
    signals.job_emitted("job-lost", 1000.0)
    signals.waiting_requests.append("r2")
    out = Outputs()
    processor.decide(SCOPE, signals, 1030.0, out)
    assert not out.jobs
    processor.decide(SCOPE, signals, 1000.0 + POLICY.inflight_timeout_s + 1, out)
    assert out.jobs[0].request_ids == ("r2",)


def test_three_failures_skip_the_scope_until_a_reset():
    processor, signals = Processor(SETTINGS), ScopeSignals()
    for n in range(3):
        signals.job_emitted(f"j{n}", 0)
        finish(processor, signals, f"j{n}", "failed", 1.0)
    assert signals.consecutive_failures == 3
    out = feed(processor, signals, TOPICS.control, 0, control("trigger", "r9"))
    assert not out.jobs and [e.status for e in out.events] == ["skipped"]
    assert out.events[0].request_ids == ("r9",), "the requester learns its request was skipped"
    feed(processor, signals, TOPICS.control, 1, control("reset", "r10"))
    out = feed(processor, signals, TOPICS.control, 2, control("trigger", "r11"))
    assert out.jobs and out.jobs[0].request_ids == ("r11",)


def test_success_resets_the_failure_count():
    processor, signals = Processor(SETTINGS), ScopeSignals()
    signals.job_emitted("j1", 0)
    finish(processor, signals, "j1", "failed", 1.0)
    signals.job_emitted("j2", 0)
    finish(processor, signals, "j2", "completed", 1.0)
    assert signals.consecutive_failures == 0


def test_per_tenant_policy_overrides_the_default():
    settings = Settings(trigger=POLICY, tenant_policies={"globex": {"threshold_messages": 1}})
    processor = Processor(settings)
    other = "globex/support-bot/u1"
    out = feed(processor, ScopeSignals(), TOPICS.turns, 0, turn(0, scope=other), key=other.encode())
    assert out.jobs and out.jobs[0].scope == other
    assert not feed(processor, ScopeSignals(), TOPICS.turns, 0, turn(0)).jobs


def test_replayed_input_gives_the_same_job_id():
    first, second = Processor(SETTINGS), Processor(SETTINGS)
    a, b = ScopeSignals(), ScopeSignals()
    jobs_a = [j for i in range(3) for j in feed(first, a, TOPICS.turns, i, turn(i), now=1000.0 + i).jobs]
    jobs_b = [j for i in range(3) for j in feed(second, b, TOPICS.turns, i, turn(i), now=5000.0 + i).jobs]
    assert jobs_a[0].job_id == jobs_b[0].job_id


def test_entity_counters_are_bounded():
    signals = ScopeSignals()
    processor = Processor(
        SETTINGS.model_copy(
            update={"trigger": POLICY.model_copy(update={"threshold_messages": 10_000, "threshold_signals": 10_000})}
        )
    )
    for i in range(200):
        feed(processor, signals, TOPICS.turns, i, turn(i, f"Talking about Widget{i} and Gadget{i} with Maria"))
    assert len(signals.entities) <= 12 and signals.entities["Maria"] == 200
    assert len(json.dumps(signals.to_json())) < 2048


def dead_letter_for(value: bytes, key: bytes | None = SCOPE.encode(), topic: str = TOPICS.turns) -> str:
    out = feed(Processor(SETTINGS), ScopeSignals(), topic, 42, value, key=key)
    assert not out.jobs and len(out.dead_letters) == 1
    letter = out.dead_letters[0]
    assert (letter.topic, letter.offset) == (topic, 42) and letter.original_value() == value
    return letter.reason


def test_bad_events_become_dead_letters_with_a_readable_reason():
    assert "not valid JSON" in dead_letter_for(b"{not json")
    assert "scope" in dead_letter_for(
        json.dumps({k: v for k, v in json.loads(turn(1)).items() if k != "scope"}).encode()
    )
    assert "content" in dead_letter_for(turn(1).replace(b'"message 1"', b"12345"))
    assert "schema_version" in dead_letter_for(turn(1).replace(b"{", b'{"schema_version": 9, ', 1))
    assert "disagrees" in dead_letter_for(turn(1), key=b"globex/support-bot/u1")


def test_oversized_payload_is_dead_lettered():
    out = feed(Processor(Settings(max_event_bytes=1024)), ScopeSignals(), TOPICS.turns, 1, b"x" * 2000, key=None)
    assert "exceeds the limit of 1024" in out.dead_letters[0].reason


def test_a_storm_of_bad_input_stops_the_worker():
    processor = Processor(Settings(bad_share_window=10, max_bad_share=0.5))
    signals = ScopeSignals()
    for i in range(0, 10, 2):
        feed(processor, signals, TOPICS.turns, i, b"garbage")
        feed(processor, signals, TOPICS.turns, i + 1, turn(i))
    with pytest.raises(BadInputStorm, match="of the last 10 events on partition .* were invalid"):
        for i in range(10, 20):
            feed(processor, signals, TOPICS.turns, i, b"garbage")


def test_the_storm_guard_judges_from_the_first_events_and_ignores_redeliveries():
    settings = Settings(bad_share_window=1_000, bad_share_min_events=20, max_bad_share=0.5)
    processor = Processor(settings)
    for i in range(10):
        feed(processor, ScopeSignals(), TOPICS.turns, i, turn(i))
    for _ in range(3):  # the same bad events again (redelivered) are counted once
        for i in range(10, 20):
            feed(processor, ScopeSignals(), TOPICS.turns, i, b"garbage")
    with pytest.raises(BadInputStorm, match="11 of the last 21 events"):
        feed(processor, ScopeSignals(), TOPICS.turns, 20, b"garbage")


def test_the_storm_window_survives_a_restart_through_its_changelog_row():
    settings = Settings(bad_share_window=20, max_bad_share=0.5)
    first = Processor(settings)
    partition = home_partition(SCOPE.encode(), settings.partitions)
    for i in range(10):
        feed(first, ScopeSignals(), TOPICS.turns, i, turn(i))
    for i in range(10, 20):
        feed(first, ScopeSignals(), TOPICS.turns, i, b"garbage")
    row = first.guard.partitions[partition].encode()
    restarted = Processor(settings)
    restarted.guard.restore(partition, row)
    with pytest.raises(BadInputStorm):
        feed(restarted, ScopeSignals(), TOPICS.turns, 20, b"garbage")
    fresh = Processor(settings)  # without the row, one bad event is no storm
    feed(fresh, ScopeSignals(), TOPICS.turns, 20, b"garbage")


def test_redelivered_events_are_not_counted_twice():
    processor, signals = (
        Processor(SETTINGS.model_copy(update={"trigger": POLICY.model_copy(update={"threshold_messages": 100})})),
        ScopeSignals(),
    )
    for i in range(5):
        feed(processor, signals, TOPICS.turns, i, turn(i))
    for i in range(5):  # a restart redelivers what was not yet committed
        feed(processor, signals, TOPICS.turns, i, turn(i))
    assert signals.messages == 5

    def error(self):
        return None


HOME = home_partition(SCOPE.encode(), SETTINGS.partitions)


def test_a_batch_writes_each_changed_row_once_and_tags_outputs_with_their_partition():
    processor = Processor(SETTINGS)
    other = "acme/support-bot/u2"
    other_home = home_partition(other.encode(), SETTINGS.partitions)
    records = [Record(TOPICS.turns, HOME, i, SCOPE.encode(), turn(i)) for i in range(4)]
    records.append(Record(TOPICS.turns, other_home, 0, other.encode(), turn(0, scope=other)))
    batch = processor.process_batch(records, {}, 1000.0)
    assert set(batch.rows) == {(HOME, SCOPE), (other_home, other)}
    assert batch.rows[(HOME, SCOPE)].messages == 1, "the job at the 3rd turn consumed the signal; one since"
    assert [j.watermarks for j in batch.jobs] == [{TOPICS.turns: 3}] and batch.job_partitions == [HOME]
    assert batch.event_partitions == [HOME]
    assert batch.offsets[(TOPICS.turns, HOME)] == 4 and batch.counts[(TOPICS.turns, "accepted")] == 5
    # the same records again, with the rows as written: all duplicates, nothing emitted
    tables = {p: {} for p in range(SETTINGS.partitions)}
    for (p, scope), signals in batch.rows.items():
        tables[p][scope] = signals.encode()
    again = processor.process_batch(records, tables, 1001.0)
    assert not again.jobs and again.counts == {(TOPICS.turns, "duplicate"): 5}


def test_keyless_misplaced_and_mismatched_events_are_dead_lettered_and_the_rest_goes_on():
    processor = Processor(SETTINGS)
    wrong = (HOME + 1) % SETTINGS.partitions
    records = [
        Record(TOPICS.turns, HOME, 0, None, turn(0)),
        Record(TOPICS.turns, wrong, 0, SCOPE.encode(), turn(1)),
        Record(TOPICS.turns, HOME, 1, b"globex/support-bot/u1", turn(2)),
        *[Record(TOPICS.turns, HOME, 2 + i, SCOPE.encode(), turn(3 + i)) for i in range(3)],
    ]
    batch = processor.process_batch(records, {}, 1000.0)
    assert [d.error_type for d in batch.dead_letters] == ["no_key", "wrong_partition", "key_mismatch"]
    assert batch.letter_partitions == [HOME, wrong, HOME]
    assert [j.watermarks for j in batch.jobs] == [{TOPICS.turns: 5}], "the scope's own partition, its own events"
    assert batch.rows[(HOME, SCOPE)].offsets == {f"{TOPICS.turns}:{HOME}": 5}


def test_forget_in_a_batch_tombstones_the_row_and_later_events_start_afresh():
    processor = Processor(SETTINGS)
    records = [
        Record(TOPICS.turns, HOME, 0, SCOPE.encode(), turn(0)),
        Record(TOPICS.control, HOME, 0, SCOPE.encode(), control("forget", "f1")),
    ]
    batch = processor.process_batch(records, {HOME: {SCOPE: ScopeSignals(messages=1).encode()}}, 1000.0)
    assert batch.rows[(HOME, SCOPE)] is None and [j.trigger for j in batch.jobs] == ["forget"]
    later = processor.process_batch(
        records[:1] + [Record(TOPICS.turns, HOME, 1, SCOPE.encode(), turn(1))], {HOME: {}}, 1001.0
    )
    assert later.rows[(HOME, SCOPE)].messages == 2


def test_job_outcomes_from_the_audit_topic_clear_the_in_flight_job_but_never_resurrect_a_row():
    processor = Processor(SETTINGS)
    signals = ScopeSignals(partition=HOME)
    signals.job_emitted("job-1", 900.0)
    done = (
        JobLifecycleEvent(
            event_id="e",
            scope=SCOPE,
            job_id="job-1",
            status="completed",
            trigger="threshold",
            ts="2026-04-12T11:00:00+00:00",
        )
        .model_dump_json()
        .encode()
    )
    batch = processor.process_batch(
        [Record(TOPICS.audit, HOME, 7, SCOPE.encode(), done)], {HOME: {SCOPE: signals.encode()}}, 1000.0
    )
    assert batch.rows[(HOME, SCOPE)].in_flight_job is None and batch.rows[(HOME, SCOPE)].last_outcome == "completed"
    assert not processor.process_batch([Record(TOPICS.audit, HOME, 7, SCOPE.encode(), done)], {HOME: {}}, 1000.0).rows


def test_a_storming_batch_raises_before_anything_is_returned():
    processor = Processor(Settings(bad_share_window=20, max_bad_share=0.5))
    records = [Record(TOPICS.turns, HOME, i, SCOPE.encode(), turn(i)) for i in range(5)]
    records += [Record(TOPICS.turns, HOME, 5 + i, SCOPE.encode(), b"garbage") for i in range(30)]
    with pytest.raises(BadInputStorm):
        processor.process_batch(records, {}, 1000.0)
