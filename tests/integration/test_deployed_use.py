"""Using a running deployment the way agents, operators and subscribers do, on real Kafka and
embedded Qdrant: both workers, the fixtures replayed and dreamed on, the HTTP API served.

- agents: the Python client and the MCP server (driven through the `mcp` package's own stdio
  client) search a scope's memory, and another tenant's scope gives nothing of it;
- operators: a rollback and a quarantine decision through the API publish `operator` audit
  events that validate against the checked-in JSON Schema; every audit record the consolidation
  side writes carries the CloudEvents binary-mode headers;
- metrics: every series the dashboard and the alert rules use is exported by a running worker.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import time
import urllib.request
from pathlib import Path

import jsonschema
import pytest
from confluent_kafka import Consumer, TopicPartition

from consumers.api import start_api
from dreamstream.client import AsyncClient, Client, DreamstreamError, NotFound
from dreamstream_tools.pipeline import LocalPipeline, settings_env
from schemas.cloudevents import header_map
from tests.integration.test_operations import free_port, scrape

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
AVA = "demo/travel-assistant/ava"
GLOBEX = "globex/support-bot/u1"
PRIVATE = "acme/support-bot/u9"
QUESTION = "which seat does Ava like"
TOKEN = "agent-token-0123456789abcdef"


@pytest.fixture(scope="module")
def deployment(kafka_bootstrap, tmp_path_factory, fixtures_dir):
    """Both workers with the fixtures dreamed on, one scope quarantined (privacy block), the API up."""
    from tests.integration.kafka_env import unique_settings

    home = tmp_path_factory.mktemp("deployed")
    consolidation_port, stream_port = free_port(), free_port()
    settings = unique_settings(
        kafka_bootstrap,
        home,
        metrics_port=consolidation_port,
        api_port=free_port(),
        api_token=TOKEN,
        privacy_mode="block",
    )
    extra = home / "private.jsonl"
    extra.write_text(
        json.dumps(
            {
                "scope": PRIVATE,
                "session_id": "s",
                "message_id": "u9#0",
                "role": "user",
                "content": "My email is jo.private@example.com, please remember I prefer morning calls.",
                "ts": "2026-03-06T10:00:00+00:00",
            }
        )
        + "\n"
    )
    pipeline = LocalPipeline(settings, stream_metrics_port=stream_port).start()
    api = None
    try:
        pipeline.produce_raw(settings.topics.turns, AVA.encode(), b"not json at all")  # one dead letter
        pipeline.replay([fixtures_dir / "events.jsonl", fixtures_dir / "memory_adds.jsonl", extra])
        pipeline.wait_until_read()
        scopes = sorted(
            {json.loads(line)["scope"] for line in (fixtures_dir / "events.jsonl").read_text().splitlines()}
        )
        finished = pipeline.wait_for(pipeline.trigger([*scopes, PRIVATE]), timeout_s=240)
        # A second pass on Ava's scope, so there is a generation to roll back to.
        later = home / "later.jsonl"
        later.write_text(
            json.dumps(
                {
                    "scope": AVA,
                    "session_id": "ava-s9",
                    "message_id": "ava-s9#0",
                    "role": "user",
                    "content": "Please remember that I am vegetarian and want a vegetarian meal on every flight.",
                    "ts": "2026-03-20T08:00:00+00:00",
                }
            )
            + "\n"
        )
        pipeline.replay([later])
        pipeline.wait_until_read()
        second = pipeline.wait_for(pipeline.trigger([AVA]), timeout_s=120)
        assert [e.status for e in second] == ["completed"], second
        api = start_api(settings, pipeline.runtime, lambda: pipeline._worker.assigned)
        yield {
            "pipeline": pipeline,
            "settings": settings,
            "api": api.url,
            "finished": finished,
            "ports": (consolidation_port, stream_port),
        }
    finally:
        if api is not None:
            api.stop()
        pipeline.stop()
        pipeline.runtime.close()


# --- agents
def test_the_python_client_finds_the_aisle_memory_and_nothing_of_it_for_another_tenant(deployment):
    with Client(deployment["api"], token=TOKEN) as memory:
        hits = memory.search(AVA, QUESTION, k=3)
        assert hits and "aisle" in hits[0].memory.text.lower(), [h.memory.text for h in hits]
        assert all(h.memory.scope == AVA for h in hits)
        assert not any("window" in h.memory.text.lower() and "aisle" not in h.memory.text.lower() for h in hits), (
            "the superseded window preference is not served"
        )
        other = memory.search(GLOBEX, QUESTION, k=10)
        assert all(h.memory.scope == GLOBEX for h in other)
        assert not [h for h in other if "aisle" in h.memory.text.lower() or "ava" in h.memory.text.lower()]

        top = hits[0].memory
        one = memory.memory(AVA, top.memory_id)
        assert one.memory == top and any(v.record == top for v in one.versions)
        everything = memory.memories(AVA, limit=1000).memories
        paged = list(memory.all_memories(AVA, page_size=2))
        assert paged == list(everything) and len(paged) >= 3
        with pytest.raises(ValueError, match="tenant part"):  # refused before any request
            memory.search("../etc/passwd", QUESTION)
        with pytest.raises(NotFound):
            memory.memory(AVA, "no-such-memory")


def test_the_async_client_is_the_same_implementation(deployment):
    async def run():
        async with AsyncClient(deployment["api"], token=TOKEN) as memory:
            return await memory.search(AVA, QUESTION, k=1)

    (hit,) = asyncio.run(run())
    assert "aisle" in hit.memory.text.lower()
    with Client(deployment["api"], token="wrong-token-0123456789") as intruder, pytest.raises(DreamstreamError) as err:
        intruder.search(AVA, QUESTION)
    assert err.value.status == 401


def test_the_mcp_server_over_stdio_serves_only_its_scopes(deployment):
    from mcp import Client as McpClient
    from mcp.client.stdio import StdioServerParameters

    env = {**os.environ, **settings_env(deployment["settings"]), "PYTHONPATH": str(REPO)}

    def server(*scopes: str) -> StdioServerParameters:
        args = ["-m", "dreamstream.cli", "mcp", "--api", deployment["api"]]
        for scope in scopes:
            args += ["--scope", scope]
        return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(REPO))

    async def run():
        async with McpClient(server(AVA)) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            found = await client.call_tool("search_memory", {"query": QUESTION, "k": 3})
            listed = await client.call_tool("list_memories", {"limit": 2})
            refused = await client.call_tool("search_memory", {"query": QUESTION, "scope": GLOBEX})
            triggered = await client.call_tool("trigger_dream", {"reason": "test"})
        async with McpClient(server(GLOBEX)) as client:
            other = await client.call_tool("search_memory", {"query": QUESTION, "k": 10})
        return names, found, listed, refused, triggered, other

    names, found, listed, refused, triggered, other = asyncio.run(asyncio.wait_for(run(), 120))
    assert {"search_memory", "list_memories", "trigger_dream", "list_scopes"} <= names
    assert not found.is_error, found
    results = found.structured_content["results"]
    assert results and "aisle" in results[0]["text"].lower()
    assert listed.structured_content["scope"] == AVA and len(listed.structured_content["memories"]) == 2
    assert listed.structured_content["next_cursor"]
    assert refused.is_error and "not served here" in refused.content[0].text
    assert triggered.structured_content["request_id"].startswith("req-")
    assert not other.is_error
    texts = [r["text"].lower() for r in other.structured_content["results"]]
    assert not [t for t in texts if "aisle" in t or "ava" in t], texts


# --- operators and subscribers
def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def _audit_records(settings, timeout_s: float = 20.0, until=lambda records: False) -> list:
    consumer = Consumer(
        {**settings.kafka_client_config(), "group.id": f"audit-check-{time.time_ns()}", "enable.auto.commit": False}
    )
    consumer.assign([TopicPartition(settings.topics.audit, p, 0) for p in range(settings.partitions)])
    records, deadline = [], time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            records += [m for m in consumer.consume(1000, timeout=1.0) if not m.error()]
            if until(records):
                break
    finally:
        consumer.close()
    return records


@pytest.fixture(scope="module")
def decided(deployment):
    """A rollback of Ava's scope and the approval of the quarantined generation, through the API."""
    api = deployment["api"]
    quarantined = [e for e in deployment["finished"] if e.scope == PRIVATE]
    assert quarantined and quarantined[0].status == "quarantined", quarantined
    generation = quarantined[0].generation
    with Client(api, token=TOKEN) as memory:
        before = {m.memory_id: m for m in memory.all_memories(AVA)}
    rolled = _post(f"{api}/scopes/{AVA}/rollback", {"by": "oncall", "reason": "bad pass in test"})
    approved = _post(
        f"{api}/scopes/{PRIVATE}/generations/{generation}/approve",
        {"by": "privacy-team", "reason": "the address is the user's own, kept on request"},
    )
    assert approved["active_generation"] == generation
    return before, rolled, generation


def test_rollback_and_quarantine_decisions_reach_the_audit_topic_with_cloudevents_headers(deployment, decided):
    settings, api = deployment["settings"], deployment["api"]
    before, rolled, generation = decided

    schema = json.loads((REPO / "schemas" / "json" / "audit_event.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)

    def operator_events(records):
        return [json.loads(r.value()) for r in records if b'"type":"operator"' in r.value()]

    records = _audit_records(settings, until=lambda rs: len(operator_events(rs)) >= 2)
    decisions = {e["action"]: e for e in operator_events(records)}
    assert set(decisions) == {"rolled-back", "approved"}, decisions
    for event in decisions.values():
        validator.validate(event)

    rollback = decisions["rolled-back"]
    assert rollback["scope"] == AVA and rollback["by"] == "oncall" and rollback["reason"] == "bad pass in test"
    assert rollback["active_generation"] == rolled["active_generation"] < rollback["previous_generation"]
    with Client(api, token=TOKEN) as memory:
        after = {m.memory_id: m for m in memory.all_memories(AVA)}
    # A subscriber that applies the event to its mirror of `before` ends up with what readers see.
    mirror = {k: v for k, v in before.items() if k not in rollback["deactivated"]}
    mirror.update({m["memory_id"]: m for m in rollback["activated"]})
    assert set(mirror) == set(after)
    assert rollback["activated"] or rollback["deactivated"], "the rollback changed what readers see"

    approval = decisions["approved"]
    assert approval["generation"] == generation and approval["by"] == "privacy-team"
    assert any("morning" in m["text"].lower() for m in approval["activated"])

    # Every audit record carries the CloudEvents attributes: the consolidation side's and the
    # stream worker's (a job's `pending` event).
    ours = [json.loads(r.value()) for r in records]
    assert len(ours) >= 10 and any(e["type"] == "job" and e["status"] == "pending" for e in ours)
    for record in records:
        event = json.loads(record.value())
        headers = header_map(record.headers())
        assert headers["ce_specversion"] == "1.0" and headers["ce_id"] == event["event_id"]
        assert headers["ce_subject"] == event["scope"] == record.key().decode()
        assert headers["ce_type"] == f"dev.dreamstream.audit.{event['type']}.v1"
        assert headers["ce_source"].startswith(f"/dreamstream/{settings.topic_prefix}/")
        assert headers["ce_time"] and headers["content-type"] == "application/json"
        assert headers["ce_dataschema"] == schema["$id"]


def test_every_metric_of_the_dashboard_and_the_alerts_is_exported_by_a_running_worker(deployment, decided):
    consolidation_port, stream_port = deployment["ports"]
    dashboard = (REPO / "helm" / "dreamstream" / "dashboards" / "dreamstream.json").read_text()
    rules = (REPO / "helm" / "dreamstream" / "templates" / "prometheusrule.yaml").read_text()
    used = set(re.findall(r"dreamstream_[a-z_]+", dashboard + rules))
    topics = deployment["settings"].topics
    wanted_lag = {topics.turns, topics.memory_adds, topics.jobs}
    deadline = time.monotonic() + 3 * deployment["settings"].timer_interval_s
    while True:  # lag is refreshed once per timer tick; the stream worker exports the same metric name
        samples = scrape(consolidation_port)
        exported = {name for name, _ in samples} | {name for name, _ in scrape(stream_port)}
        missing = {m for m in used if not ({m, f"{m}_total", f"{m}_bucket", f"{m}_count"} & exported)}
        lag_topics = {dict(labels)["topic"] for (name, labels) in samples if name == "dreamstream_consumer_lag"}
        if (not missing and wanted_lag <= lag_topics) or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert used and not missing, f"used by the dashboard or alerts but exported by no worker: {sorted(missing)}"
    assert {topics.turns, topics.memory_adds, topics.jobs} <= lag_topics
    assert sum(v for (n, _), v in samples.items() if n == "dreamstream_rollbacks_total") >= 1
    assert (
        sum(
            v
            for (n, ls), v in samples.items()
            if n == "dreamstream_quarantine_decisions_total" and ("decision", "approved") in ls
        )
        >= 1
    )
    for port in (consolidation_port, stream_port):
        for probe in ("healthz", "readyz"):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/{probe}", timeout=5) as response:
                assert response.status == 200
