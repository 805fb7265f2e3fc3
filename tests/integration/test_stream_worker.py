"""The Faust stream worker process on real Kafka: the HTTP trigger, the idle timer, and stopping
loudly when most input is bad."""

from __future__ import annotations

import json
import socket
import time
import urllib.request

import pytest

from schemas import DreamJob, JobLifecycleEvent
from schemas.policy import TriggerPolicy
from tests.integration.test_stream_faults import TopicReader, produce_turns

pytestmark = pytest.mark.integration


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def post(url: str, attempts: int = 60) -> dict:
    for _ in range(attempts):
        try:
            with urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=5) as response:
                assert response.status == 202
                return json.loads(response.read())
        except (ConnectionError, urllib.error.URLError):
            time.sleep(0.5)  # the web server starts with the worker
    raise AssertionError(f"nothing answered at {url}")


def test_http_trigger_emits_a_manual_job(make_settings, workers):
    port = free_port()
    settings = make_settings(streams_web_port=port)
    worker = workers(settings, "web")
    answer = post(f"http://127.0.0.1:{port}/trigger/acme/support-bot/u1")
    jobs = TopicReader(settings, settings.topics.jobs)
    jobs.poll_until(lambda: jobs.values, 60, [worker])
    job = DreamJob.model_validate_json(jobs.values[0])
    assert job.scope == "acme/support-bot/u1" and job.trigger == "manual" and job.request_ids == (answer["request_id"],)
    jobs.close()


def test_idle_scope_dreams_without_a_new_event(make_settings, workers):
    settings = make_settings(trigger=TriggerPolicy(idle_s=2, cooldown_s=0, threshold_messages=1_000, threshold_signals=1_000),
                             timer_interval_s=1)
    worker = workers(settings, "idle")
    produce_turns(settings, "acme/support-bot/quiet", 0, 2)
    jobs = TopicReader(settings, settings.topics.jobs)
    jobs.poll_until(lambda: jobs.values, 60, [worker])
    job = DreamJob.model_validate_json(jobs.values[0])
    assert job.trigger == "idle" and job.watermarks == {settings.topics.turns: 2}
    audit = TopicReader(settings, settings.topics.audit)
    audit.poll_until(lambda: audit.values, 30, [worker])
    assert JobLifecycleEvent.model_validate_json(audit.values[0]).status == "pending"
    jobs.close()
    audit.close()


def test_a_storm_of_bad_input_stops_the_worker_loudly(make_settings, workers, tmp_path):
    settings = make_settings(bad_share_window=20, max_bad_share=0.5)
    worker = workers(settings, "storm")
    from consumers.kafka_io import flush_or_raise, make_producer

    producer, errors = make_producer(settings), []
    for _ in range(40):
        producer.produce(settings.topics.turns, key=b"acme/bot/u1", value=b"garbage",
                         on_delivery=lambda err, msg: err and errors.append(str(err)))
    flush_or_raise(producer, errors)
    worker.wait(timeout=90)
    assert worker.returncode != 0
    assert "of the last 20 events were invalid" in (tmp_path / "storm.log").read_text()
