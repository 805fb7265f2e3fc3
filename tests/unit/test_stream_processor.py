"""The stream worker's per-event logic, without Kafka: validation, signals, triggers."""

from __future__ import annotations

import json

from schemas import JobLifecycleEvent
from schemas.settings import Settings
from streams.processor import Outputs, Processor
from streams.signals import ScopeSignals

SETTINGS = Settings(threshold_messages=3, threshold_tokens=10_000, inflight_timeout_s=60)
TOPICS = SETTINGS.topics
SCOPE = "acme/support-bot/u1"


def turn(i: int, scope: str = SCOPE) -> bytes:
    return json.dumps({"scope": scope, "session_id": "s", "message_id": f"m{i}", "role": "user",
                       "content": f"message {i}", "ts": "2026-04-12T11:00:00+00:00"}).encode()


def feed(processor: Processor, signals: ScopeSignals, topic: str, offset: int, value: bytes, now: float = 1000.0,
         key: bytes | None = SCOPE.encode()):
    out = Outputs()
    event = processor.decode(topic, 0, offset, key, value, out)
    job = None
    if event is not None:
        processor.apply(event, topic, offset, signals, now)
        job = processor.maybe_job(event.scope, signals, now)
    return out, job


def test_threshold_emits_one_job_with_watermarks_then_waits_for_the_outcome():
    processor, signals = Processor(SETTINGS), ScopeSignals()
    jobs = [feed(processor, signals, TOPICS.turns, i, turn(i))[1] for i in range(6)]
    emitted = [j for j in jobs if j is not None]
    assert len(emitted) == 1, "a second job must not start while one is in flight"
    job = emitted[0]
    assert job.trigger == "threshold" and job.watermarks == {TOPICS.turns: 3}
    assert signals.in_flight_job == job.job_id
    done = JobLifecycleEvent(event_id="e", scope=SCOPE, job_id=job.job_id, status="completed", trigger="threshold",
                             ts="2026-04-12T11:00:00+00:00")
    processor.apply(done, TOPICS.audit, 0, signals, 1001.0)
    assert signals.in_flight_job is None and signals.last_outcome == "completed"
    assert processor.maybe_job(SCOPE, signals, 1001.0).watermarks == {TOPICS.turns: 6}


def test_manual_trigger_waits_for_in_flight_job_and_is_not_lost():
    processor, signals = Processor(SETTINGS), ScopeSignals()
    signals.job_emitted("job-running", 1000.0)
    control = json.dumps({"scope": SCOPE, "action": "trigger", "request_id": "r1"}).encode()
    _, job = feed(processor, signals, TOPICS.control, 0, control)
    assert job is None and signals.waiting_requests == ["r1"]
    signals.job_finished("job-running", "completed", 1001.0)
    job = processor.maybe_job(SCOPE, signals, 1001.0)
    assert job.trigger == "manual" and job.request_ids == ("r1",)


def test_in_flight_job_times_out_so_the_scope_is_not_stuck_forever():
    processor, signals = Processor(SETTINGS), ScopeSignals()
    signals.job_emitted("job-lost", 1000.0)
    signals.waiting_requests.append("r2")
    assert processor.maybe_job(SCOPE, signals, 1030.0) is None
    assert processor.maybe_job(SCOPE, signals, 1061.0).request_ids == ("r2",)


def test_failures_are_counted_and_reset_by_success():
    signals = ScopeSignals()
    for n in range(2):
        signals.job_emitted(f"j{n}", 0)
        signals.job_finished(f"j{n}", "failed", 1)
    assert signals.consecutive_failures == 2
    signals.job_emitted("j3", 0)
    signals.job_finished("j3", "completed", 1)
    assert signals.consecutive_failures == 0


def test_replayed_input_gives_the_same_job_id():
    first, second = Processor(SETTINGS), Processor(SETTINGS)
    a, b = ScopeSignals(), ScopeSignals()
    jobs_a = [feed(first, a, TOPICS.turns, i, turn(i), now=1000.0 + i)[1] for i in range(3)]
    jobs_b = [feed(second, b, TOPICS.turns, i, turn(i), now=5000.0 + i)[1] for i in range(3)]
    assert jobs_a[-1].job_id == jobs_b[-1].job_id


def dead_letter_for(value: bytes, key: bytes | None = SCOPE.encode(), topic: str = TOPICS.turns):
    out, job = feed(Processor(SETTINGS), ScopeSignals(), topic, 42, value, key=key)
    assert job is None and len(out.dead_letters) == 1
    letter = out.dead_letters[0]
    assert (letter.topic, letter.offset) == (topic, 42) and letter.original_value() == value
    return letter.reason


def test_bad_events_become_dead_letters_with_a_readable_reason():
    assert "not valid JSON" in dead_letter_for(b"{not json")
    assert "scope" in dead_letter_for(json.dumps({k: v for k, v in json.loads(turn(1)).items() if k != "scope"}).encode())
    assert "content" in dead_letter_for(turn(1).replace(b'"message 1"', b"12345"))
    assert "schema_version" in dead_letter_for(turn(1).replace(b"{", b'{"schema_version": 9, ', 1))
    assert "disagrees" in dead_letter_for(turn(1), key=b"globex/support-bot/u1")


def test_oversized_payload_is_dead_lettered():
    small = Settings(max_event_bytes=1024)
    out = Outputs()
    Processor(small).decode(TOPICS.turns, 0, 1, None, b"x" * 2000, out)
    assert "exceeds the limit of 1024" in out.dead_letters[0].reason
