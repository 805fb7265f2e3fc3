"""The stream worker process on real Kafka: the HTTP trigger (and its token), Faust's pages off,
the idle timer, consumer lag, and stopping loudly when most input is bad."""

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


def request(url: str, method: str = "POST", token: str | None = None, attempts: int = 60) -> tuple[int, bytes]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    for _ in range(attempts):
        try:
            with urllib.request.urlopen(
                urllib.request.Request(url, method=method, headers=headers), timeout=10
            ) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()
        except (ConnectionError, urllib.error.URLError):
            time.sleep(0.5)  # the web server starts with the worker
    raise AssertionError(f"nothing answered at {url}")


def post(url: str, token: str | None = None) -> dict:
    status, body = request(url, token=token)
    assert status == 202, (status, body)
    return json.loads(body)


def test_http_trigger_emits_a_manual_job(make_settings, workers):
    port = free_port()
    settings = make_settings(streams_web_port=port)
    worker = workers(settings, "web")
    answer = post(f"http://127.0.0.1:{port}/trigger/acme/support-bot/u1")
    for page in ("/table/signals/acme/support-bot/u1/", "/table/", "/router/"):
        status, _ = request(f"http://127.0.0.1:{port}{page}", method="GET")
        assert status == 404, f"Faust's {page} page must be off"
    jobs = TopicReader(settings, settings.topics.jobs)
    jobs.poll_until(lambda: jobs.values, 60, [worker])
    job = DreamJob.model_validate_json(jobs.values[0])
    assert job.scope == "acme/support-bot/u1" and job.trigger == "manual" and job.request_ids == (answer["request_id"],)
    jobs.close()


def test_http_trigger_needs_the_bearer_token_when_one_is_set(make_settings, workers):
    port = free_port()
    settings = make_settings(streams_web_port=port, api_token="s3cret-token-0123456789")
    worker = workers(settings, "web-token")
    url = f"http://127.0.0.1:{port}/trigger/acme/support-bot/u1"
    assert request(url)[0] == 401
    assert request(url, token="wrong")[0] == 401
    answer = post(url, token="s3cret-token-0123456789")
    jobs = TopicReader(settings, settings.topics.jobs)
    jobs.poll_until(lambda: jobs.values, 60, [worker])
    assert DreamJob.model_validate_json(jobs.values[0]).request_ids == (answer["request_id"],)
    jobs.close()


def test_consumer_lag_is_exported_for_every_input_topic(make_settings, workers):
    metrics_port = free_port()
    settings = make_settings(metrics_port=metrics_port)
    worker = workers(settings, "lag")
    produce_turns(settings, "acme/support-bot/lag", 0, 3)
    topics = settings.topics
    wanted = [topics.turns, topics.memory_adds, topics.control]
    deadline = time.monotonic() + 60
    while True:
        assert worker.poll() is None
        status, body = request(f"http://127.0.0.1:{metrics_port}/metrics", method="GET")
        text = body.decode()
        lag_lines = [line for line in text.splitlines() if line.startswith("dreamstream_consumer_lag{")]
        if all(any(f'topic="{t}"' in line for line in lag_lines) for t in wanted):
            break
        assert time.monotonic() < deadline, lag_lines
        time.sleep(1)
    assert "dreamstream_kafka_unreachable 0.0" in text


def test_idle_scope_dreams_without_a_new_event(make_settings, workers):
    settings = make_settings(
        trigger=TriggerPolicy(idle_s=2, cooldown_s=0, threshold_messages=1_000, threshold_signals=1_000),
        timer_interval_s=1,
    )
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
    from plumbing.kafka_io import flush_or_raise, make_producer

    producer, errors = make_producer(settings), []
    for _ in range(40):
        producer.produce(
            settings.topics.turns,
            key=b"acme/bot/u1",
            value=b"garbage",
            on_delivery=lambda err, msg: err and errors.append(str(err)),
        )
    flush_or_raise(producer, errors)
    worker.wait(timeout=90)
    assert worker.returncode != 0
    assert "of the last 20 events on partition" in (tmp_path / "storm.log").read_text()
