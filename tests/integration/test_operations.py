"""Operating the pipeline on real Kafka and Qdrant: metrics on both workers, and forget."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from confluent_kafka import Consumer, TopicPartition
from prometheus_client.parser import text_string_to_metric_families

from dreamstream_tools.pipeline import LocalPipeline, settings_env

pytestmark = pytest.mark.integration
AVA = "demo/travel-assistant/ava"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def scrape(port: int) -> dict[tuple[str, tuple], float]:
    for _ in range(40):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
                text = response.read().decode()
            break
        except (ConnectionError, OSError):
            time.sleep(0.5)
    else:
        raise AssertionError(f"no metrics endpoint on port {port}")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def total(samples, name: str, **labels) -> float:
    return sum(v for (n, ls), v in samples.items() if n == name and all((k, w) in ls for k, w in labels.items()))


@pytest.fixture(scope="module")
def running(kafka_bootstrap, tmp_path_factory, fixtures_dir):
    from tests.integration.kafka_env import unique_settings

    consolidation_port, stream_port = free_port(), free_port()
    settings = unique_settings(kafka_bootstrap, tmp_path_factory.mktemp("ops"), metrics_port=consolidation_port)
    pipeline = LocalPipeline(settings, stream_metrics_port=stream_port).start()
    try:
        pipeline.produce_raw(settings.topics.turns, AVA.encode(), b"not json at all")
        pipeline.replay([fixtures_dir / "events.jsonl", fixtures_dir / "memory_adds.jsonl"])
        pipeline.wait_until_read()
        scopes = sorted(
            {json.loads(line)["scope"] for line in (fixtures_dir / "events.jsonl").read_text().splitlines()}
        )
        pipeline.wait_for(pipeline.trigger(scopes), timeout_s=180)
        yield pipeline, consolidation_port, stream_port
    finally:
        pipeline.stop()
        pipeline.runtime.close()


def test_both_workers_export_non_zero_counters(running):
    pipeline, consolidation_port, stream_port = running
    streams = scrape(stream_port)
    assert total(streams, "dreamstream_events_total", outcome="accepted") >= 41
    assert total(streams, "dreamstream_events_total", outcome="dead_lettered") >= 1
    assert total(streams, "dreamstream_dead_letters_total") >= 1
    assert total(streams, "dreamstream_jobs_emitted_total", trigger="manual", outcome="emitted") >= 6
    consolidation = scrape(consolidation_port)
    assert total(consolidation, "dreamstream_indexed_total", kind="turn") >= 35
    assert total(consolidation, "dreamstream_passes_total", outcome="completed") >= 6
    assert total(consolidation, "dreamstream_memory_changes_total", change="superseded") >= 2
    assert total(consolidation, "dreamstream_phase_duration_seconds_count", phase="propose") >= 6
    assert total(consolidation, "dreamstream_pass_memories_count", when="after") >= 6


def test_forget_leaves_no_trace_in_qdrant_or_the_signal_table(running, tmp_path):
    pipeline, *_ = running
    settings = pipeline.settings
    assert pipeline.runtime.memories.active_records(AVA)
    env = {**os.environ, **settings_env(settings)}
    run = subprocess.run(
        [sys.executable, "-m", "dreamstream.cli", "forget", AVA, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    tombstone = json.loads(run.stdout)
    assert (
        tombstone["type"] == "forgotten"
        and tombstone["deleted"]["memories"] > 0
        and tombstone["deleted"]["transcripts"] == 10
    )

    client = pipeline.runtime.client
    runtime = pipeline.runtime
    for collection in (
        runtime.memories.memories,
        runtime.memories.manifests.collection,
        runtime.memories.scopes,
        runtime.transcripts.transcripts,
        runtime.transcripts.inbox,
        runtime.diary.collection,
    ):
        points, _ = client.scroll(collection, limit=10_000, with_payload=True)
        assert not [p for p in points if p.payload.get("scope") == AVA], collection
    assert pipeline.runtime.memories.active_records("acme/support-bot/u1"), "other scopes are untouched"
    assert latest_changelog_value(settings, AVA) is None, "the signals row is deleted (tombstoned)"


def latest_changelog_value(settings, scope: str):
    consumer = Consumer(
        {**settings.kafka_client_config(), "group.id": f"changelog-{time.time_ns()}", "enable.auto.commit": False}
    )
    consumer.assign([TopicPartition(settings.topics.signals_changelog, p, 0) for p in range(settings.partitions)])
    latest, seen, deadline = "missing", False, time.monotonic() + 15
    while time.monotonic() < deadline:
        batch = consumer.consume(500, timeout=1.0)
        if not batch and seen:
            break
        for msg in batch:
            if not msg.error() and msg.key() is not None and json.loads(msg.key()) == scope:
                latest, seen = msg.value(), True
    consumer.close()
    return latest
