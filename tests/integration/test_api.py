"""The consolidation worker's HTTP API on a free loopback port, over a runtime on embedded Qdrant
with two promoted generations, a quarantined one and diary entries; triggers go to real Kafka."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime

import pytest
from confluent_kafka import Consumer, TopicPartition

from consumers.api import start_api
from consumers.runtime import open_runtime
from dreaming.store import AppliedJob, DiaryEntry, GenerationInfo
from schemas import ControlEvent, MemoryRecord

pytestmark = pytest.mark.integration
SCOPE = "acme/support-bot/u1"
OTHER = "globex/support-bot/u1"
T0 = datetime(2026, 3, 5, tzinfo=UTC)
TOKEN = "s3cret-token-0123456789"


def record(scope: str, memory_id: str, text: str, status: str = "active") -> MemoryRecord:
    return MemoryRecord(
        scope=scope,
        memory_id=memory_id,
        text=text,
        origin="transcript",
        status=status,
        evidence_message_ids=("m1",),
        created_at=T0,
        updated_at=T0,
    )


def seed(runtime) -> None:
    store = runtime.memories
    for number, records, job in (
        (1, [record(SCOPE, "a", "likes green")], "job-1"),
        (2, [record(SCOPE, "a", "likes green", "superseded"), record(SCOPE, "b", "likes blue")], "job-2"),
    ):
        state = store.state(SCOPE)
        store.write_candidate(SCOPE, number, records)
        info = GenerationInfo(generation=number, job_id=job, status="active", created_at=T0, memories_active=1)
        store.promote(state, info, AppliedJob(job_id=job, outcome="completed", generation=number))
        runtime.diary.write(
            DiaryEntry(
                scope=SCOPE,
                job_id=job,
                trigger="manual",
                status="completed",
                written_at=T0.replace(day=number),
                generation=number,
                reason="1 change",
            )
        )
    state = store.state(SCOPE)
    store.write_candidate(SCOPE, 3, [record(SCOPE, "c", "mail me at x@example.com")])
    info = GenerationInfo(generation=3, job_id="job-3", status="quarantined", created_at=T0, reason="contains email")
    store.record_quarantine(state, info, AppliedJob(job_id="job-3", outcome="quarantined", generation=3))
    other = store.state(OTHER)
    store.write_candidate(OTHER, 1, [record(OTHER, "a", "likes red")])
    store.promote(
        other,
        GenerationInfo(generation=1, job_id="job-x", status="active", created_at=T0),
        AppliedJob(job_id="job-x", outcome="completed", generation=1),
    )


@pytest.fixture
def served(make_settings):
    """Start an API (token or not) on a free port; everything is stopped afterwards."""
    started = []

    def start(token: str | None = None):
        settings = make_settings(api_port=0, **({"api_token": token} if token else {}))
        runtime = open_runtime(settings)
        seed(runtime)
        readiness = {"assigned": True}
        lock = threading.RLock()
        server = start_api(settings, runtime, lambda: readiness["assigned"], lock=lock)
        started.append((server, runtime))
        start.runtime = runtime  # the last one started, for tests that write to its store
        return server, settings, readiness, lock

    yield start
    for server, runtime in started:
        server.stop()
        runtime.close()


def call(url: str, method: str = "GET", body: bytes | None = None, token: str | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, method=method)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_health_and_readiness(served):
    server, _, readiness, lock = served()
    assert call(f"{server.url}/healthz") == (200, {"status": "ok"})
    status, body = call(f"{server.url}/readyz")
    assert status == 200 and body == {"ready": True, "consumer_assigned": True, "store_reachable": True}
    readiness["assigned"] = False
    status, body = call(f"{server.url}/readyz")
    assert status == 503 and body["consumer_assigned"] is False and body["ready"] is False
    readiness["assigned"] = True
    with lock:  # the worker is using the store: it is reachable, and readiness does not wait for it
        started = time.monotonic()
        assert call(f"{server.url}/readyz")[0] == 200
        assert time.monotonic() - started < 5


def test_memories_of_the_active_and_of_a_kept_generation(served):
    server, *_ = served()
    status, body = call(f"{server.url}/scopes/{SCOPE}/memories")
    assert status == 200 and body["generation"] == 2
    assert [(m["memory_id"], m["text"]) for m in body["memories"]] == [("b", "likes blue")]
    status, body = call(f"{server.url}/scopes/{SCOPE}/memories?generation=2&include_inactive=true")
    assert status == 200 and {m["memory_id"]: m["status"] for m in body["memories"]} == {
        "a": "superseded",
        "b": "active",
    }
    status, body = call(f"{server.url}/scopes/{SCOPE}/memories?generation=1")
    assert status == 200 and [m["text"] for m in body["memories"]] == ["likes green"]
    status, body = call(f"{server.url}/scopes/{OTHER}/memories")
    assert [m["text"] for m in body["memories"]] == ["likes red"]


def test_diary_and_generations(served):
    server, *_ = served()
    status, body = call(f"{server.url}/scopes/{SCOPE}/diary")
    assert status == 200 and [e["job_id"] for e in body["entries"]] == ["job-1", "job-2"]
    status, body = call(f"{server.url}/scopes/{SCOPE}/generations")
    assert status == 200 and body["active_generation"] == 2
    assert [(g["generation"], g["status"]) for g in body["generations"]] == [
        (1, "retired"),
        (2, "active"),
        (3, "quarantined"),
    ]
    assert "applied_jobs" not in body
    status, body = call(f"{server.url}/scopes")
    assert status == 200 and body["scopes"] == sorted([SCOPE, OTHER])
    assert call(f"{server.url}/scopes?tenant=globex")[1]["scopes"] == [OTHER]


def test_unknown_scopes_generations_and_routes_are_404(served):
    server, *_ = served()
    for what in ("memories", "diary", "generations"):
        status, body = call(f"{server.url}/scopes/acme/support-bot/nobody/{what}")
        assert status == 404 and "unknown" in body["error"], (what, body)
    status, body = call(f"{server.url}/scopes/{SCOPE}/memories?generation=9")
    assert status == 404 and "no generation 9" in body["error"]
    assert call(f"{server.url}/nowhere")[0] == 404


def test_invalid_scopes_and_parameters_are_400(served):
    server, *_ = served()
    status, body = call(f"{server.url}/scopes/acme/bad!agent/u1/memories")
    assert status == 400 and "agent part 'bad!agent'" in body["error"]
    status, body = call(f"{server.url}/scopes/{SCOPE}/memories?generation=two")
    assert status == 400 and "generation must be an integer" in body["error"]
    status, body = call(f"{server.url}/scopes/{SCOPE}/memories?include_inactive=maybe")
    assert status == 400
    status, body = call(f"{server.url}/scopes/{SCOPE}/trigger", "POST", b"{not json")
    assert status == 400 and "JSON" in body["error"]
    status, body = call(f"{server.url}/scopes/acme/bad!agent/u1/trigger", "POST")
    assert status == 400
    status, body = call(f"{server.url}/scopes/{SCOPE}/trigger", "POST", json.dumps({"reason": "x" * 5000}).encode())
    assert status == 400 and body["error"].startswith("reason:")
    status, body = call(f"{server.url}/scopes/{SCOPE}/trigger", "POST", json.dumps({"reason": 7}).encode())
    assert status == 400 and "string" in body["error"]


def test_reads_never_wait_for_the_worker_and_a_decision_held_too_long_is_503(served, monkeypatch):
    monkeypatch.setattr("consumers.api.guard.STORE_WAIT_S", 0.3)
    server, _, _, lock = served()
    decision = json.dumps({"by": "ops", "reason": "test"}).encode()
    with lock:  # the worker is in the middle of a pass
        assert call(f"{server.url}/scopes/{SCOPE}/generations")[0] == 200
        assert call(f"{server.url}/scopes/{SCOPE}/memories/search?q=seat")[0] == 200
        status, body = call(f"{server.url}/scopes/{SCOPE}/rollback", "POST", decision)
    assert status == 503 and "busy" in body["error"]
    assert call(f"{server.url}/scopes/{SCOPE}/generations")[0] == 200
    status, body = call(f"{server.url}/scopes/{SCOPE}/trigger")
    assert status == 405 and body["error"] == "Method Not Allowed"


def test_trigger_produces_a_control_event_with_the_request_id(served):
    server, settings, *_ = served()
    status, body = call(f"{server.url}/scopes/{SCOPE}/trigger", "POST", json.dumps({"reason": "from a test"}).encode())
    assert status == 202 and body["scope"] == SCOPE and body["request_id"].startswith("req-")
    status, second = call(f"{server.url}/scopes/{SCOPE}/trigger", "POST")
    assert status == 202 and second["request_id"] != body["request_id"]
    events = read_control(settings, expect=2)
    by_id = {e.request_id: e for e in events}
    assert by_id[body["request_id"]].action == "trigger" and by_id[body["request_id"]].reason == "from a test"
    assert by_id[second["request_id"]].scope == SCOPE and by_id[second["request_id"]].reason == "manual"


def test_a_token_is_required_when_set(served):
    server, *_ = served(token=TOKEN)
    url = f"{server.url}/scopes/{SCOPE}/memories"
    status, body = call(url)
    assert status == 401 and "token" in body["error"]
    assert call(url, token="wrong")[0] == 401
    assert call(f"{server.url}/scopes/{SCOPE}/trigger", "POST")[0] == 401
    assert call(f"{server.url}/scopes")[0] == 401
    status, body = call(url, token=TOKEN)
    assert status == 200 and body["memories"]
    assert call(f"{server.url}/healthz")[0] == 200  # probes stay open
    assert call(f"{server.url}/readyz")[0] == 200


def test_the_api_binds_loopback_by_default(served):
    server, settings, *_ = served()
    assert settings.api_host == "127.0.0.1" and server.url.startswith("http://127.0.0.1:")


def read_control(settings, expect: int, timeout_s: float = 20.0) -> list[ControlEvent]:
    consumer = Consumer(
        {
            **settings.kafka_client_config(),
            "group.id": f"reader-{time.time_ns()}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    consumer.assign([TopicPartition(settings.topics.control, p, 0) for p in range(settings.partitions)])
    found: list[ControlEvent] = []
    deadline = time.monotonic() + timeout_s
    while len(found) < expect and time.monotonic() < deadline:
        found += [
            ControlEvent.model_validate_json(m.value()) for m in consumer.consume(100, timeout=0.5) if not m.error()
        ]
    consumer.close()
    return found


# --- issue 12: strict parameters, search, one memory, paging, operator decisions
def test_unknown_or_repeated_query_parameters_are_400(served):
    server, *_ = served()
    status, body = call(f"{server.url}/scopes?tenant[]=acme")
    assert status == 400 and "unknown query parameter 'tenant[]'" in body["error"]
    status, body = call(f"{server.url}/scopes?tenant=acme&tenant=globex")
    assert status == 400 and "more than once" in body["error"]
    for empty in ("tenant=", "tenant=%20"):  # issue 17: `?tenant=` listed every tenant's scopes
        status, body = call(f"{server.url}/scopes?{empty}")
        assert status == 400 and "'tenant' is empty" in body["error"], body
    status, body = call(f"{server.url}/scopes/{SCOPE}/memories?limit=")
    assert status == 400 and "'limit' is empty" in body["error"]
    status, body = call(f"{server.url}/scopes/{SCOPE}/memories?q=blue")
    assert status == 400 and "'q'" in body["error"], "?q= on the list is no longer silently ignored"
    status, body = call(f"{server.url}/scopes/{SCOPE}/diary?limit=3")
    assert status == 400 and "takes none" in body["error"]
    assert call(f"{server.url}/healthz?x=1")[0] == 400


def test_search_is_scoped_and_validated(served):
    server, *_ = served()
    status, body = call(f"{server.url}/scopes/{SCOPE}/memories/search?q=blue&k=5")
    assert status == 200 and body["results"], body
    top = body["results"][0]
    assert top["memory"]["text"] == "likes blue" and isinstance(top["score"], float)
    assert top["consolidated"] is True and top["tier"] in ("core", "archive")
    assert {r["memory"]["scope"] for r in body["results"]} == {SCOPE}
    status, body = call(f"{server.url}/scopes/{OTHER}/memories/search?q=blue")
    assert status == 200 and {r["memory"]["text"] for r in body["results"]} <= {"likes red"}
    for query, message in (
        ("", "q (the search text) is required"),
        ("q=blue&k=0", "k must be between 1 and 100"),
        ("q=blue&k=abc", "k must be an integer"),
        (f"q={'x' * 1001}", "at most 1000"),
    ):
        status, body = call(f"{server.url}/scopes/{SCOPE}/memories/search?{query}")
        assert status == 400 and message in body["error"], (query, body)


def test_one_memory_with_its_history(served):
    server, *_ = served()
    status, body = call(f"{server.url}/scopes/{SCOPE}/memories/a")
    assert status == 200 and body["memory"]["status"] == "superseded" and body["active_generation"] == 2
    assert [(v["generation"], v["record"]["status"] if v["record"] else None) for v in body["history"]] == [
        (1, "active"),
        (2, "superseded"),
        (3, None),
    ]
    status, body = call(f"{server.url}/scopes/{SCOPE}/memories/nope")
    assert status == 404 and "no kept generation" in body["error"]
    assert call(f"{server.url}/scopes/{OTHER}/memories/b")[0] == 404, "a memory id of another scope is not found"


def test_paging_follows_a_cursor_on_one_generation(served):
    server, *_ = served()
    base = f"{server.url}/scopes/{SCOPE}/memories?include_inactive=true&limit=1"
    status, first = call(base)
    assert status == 200 and first["total"] == 2 and len(first["memories"]) == 1 and first["next_cursor"] == "2:1"
    status, second = call(f"{base}&cursor={first['next_cursor']}")
    assert status == 200 and second["next_cursor"] is None
    assert {m["memory_id"] for m in first["memories"] + second["memories"]} == {"a", "b"}
    assert call(f"{base}&cursor=garbage")[0] == 400
    assert call(f"{server.url}/scopes/{SCOPE}/memories?limit=0")[0] == 400


def _metric(name: str, **labels: str) -> float:
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value(name, labels or None) or 0.0


def test_operator_decisions_happen_in_the_worker_are_counted_and_published(served):
    from schemas import OperatorDecisionEvent, audit_event_adapter
    from schemas.cloudevents import header_map, unframe

    server, settings, *_ = served(token=TOKEN)
    rollbacks, approvals = (
        _metric("dreamstream_rollbacks_total"),
        _metric("dreamstream_quarantine_decisions_total", decision="approved"),
    )
    decide = json.dumps({"by": "oncall", "reason": "test"}).encode()
    status, body = call(f"{server.url}/scopes/{SCOPE}/rollback", "POST", decide, token=TOKEN)
    assert status == 200 and body["active_generation"] == 1
    status, body = call(f"{server.url}/scopes/{SCOPE}/generations/3/approve", "POST", decide, token=TOKEN)
    assert status == 200 and body["active_generation"] == 3
    assert _metric("dreamstream_rollbacks_total") == rollbacks + 1
    assert _metric("dreamstream_quarantine_decisions_total", decision="approved") == approvals + 1

    status, body = call(f"{server.url}/scopes/{SCOPE}/generations/2/reject", "POST", decide, token=TOKEN)
    assert status == 409 and "not quarantined" in body["error"]
    status, body = call(f"{server.url}/scopes/{SCOPE}/rollback", "POST", b'{"reason": "no name"}', token=TOKEN)
    assert status == 400 and "by is required" in body["error"]
    assert call(f"{server.url}/scopes/{SCOPE}/rollback", "POST", decide)[0] == 401

    consumer = Consumer(
        {**settings.kafka_client_config(), "group.id": f"audit-{time.time_ns()}", "enable.auto.commit": False}
    )
    consumer.assign([TopicPartition(settings.topics.audit, p, 0) for p in range(settings.partitions)])
    records, deadline = [], time.monotonic() + 20
    while len(records) < 2 and time.monotonic() < deadline:
        records += [m for m in consumer.consume(100, timeout=0.5) if not m.error()]
    consumer.close()
    events = [audit_event_adapter.validate_json(unframe(r.value())) for r in records]
    assert [type(e) for e in events] == [OperatorDecisionEvent] * 2
    rollback, approval = sorted(events, key=lambda e: e.ts)
    assert (rollback.action, rollback.previous_generation, rollback.active_generation) == ("rolled-back", 2, 1)
    assert [m.text for m in rollback.activated] == ["likes green"] and rollback.deactivated == ("b",)
    assert (approval.action, approval.generation, approval.by) == ("approved", 3, "oncall")
    assert [m.memory_id for m in approval.activated] == ["c"] and approval.deactivated == ("a",)
    for record, event in zip(records, events):
        headers = header_map(record.headers())
        assert headers["ce_id"] == event.event_id and headers["ce_type"] == "dev.dreamstream.audit.operator.v1"
        assert headers["ce_subject"] == SCOPE and headers["ce_source"].endswith("/operator")


def test_a_scope_whose_passes_wrote_nothing_is_not_listed(served):
    """A mistyped scope given to `trigger` gets a no-op pass and a pointer, but no generation."""
    server, *_ = served()
    runtime = served.runtime
    typo = "acme/support-bot/u1-typo"
    runtime.memories.record_job(runtime.memories.state(typo), AppliedJob(job_id="job-typo", outcome="no-op"))
    assert call(f"{server.url}/scopes")[1]["scopes"] == sorted([SCOPE, OTHER])
    assert call(f"{server.url}/scopes/{typo}/generations")[0] == 200, "still readable by name"
