"""The write routes of the HTTP API on a real broker, without workers: what each route sends to
Kafka (the event, its key and partition, the API's producer header), what it refuses and why,
the agent and operator roles, steering, and `as_of` over a lineage of generations."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from confluent_kafka import Consumer, TopicPartition

from consumers.api import start_api
from consumers.runtime import open_runtime
from dreaming.store import AppliedJob, GenerationInfo
from plumbing.kafka_io import API_PRODUCER, PRODUCER_HEADER
from schemas import ControlEvent, MemoryAdd, MemoryRecord
from schemas.validation import home_partition
from tests.integration.test_api import call
from tests.unit.snapshot_factory import transcript_record

pytestmark = pytest.mark.integration
SCOPE = "acme/notes-bot/lea"
AGENT, OPERATOR = "agents-token-0123456789", "operator-token-0123456789"
T0 = datetime(2026, 3, 5, tzinfo=UTC)
SENT = T0 + timedelta(days=4)


def record(memory_id: str, text: str, since: datetime = T0, protected: bool = False) -> MemoryRecord:
    return transcript_record(SCOPE, memory_id, text, T0, protected=protected, valid_from=since)


def seed(runtime) -> None:
    """Generation 1; generation 2 built on it with a text corrected in place at SENT."""
    store = runtime.memories
    for number, records in (
        (1, [record("city", "Lea lives in Lyon"), record("name", "Lea's legal name is Lea Roux", protected=True)]),
        (
            2,
            [
                record("city", "Lea lives in Nantes", SENT),
                record("name", "Lea's legal name is Lea Roux", protected=True),
            ],
        ),
    ):
        state = store.state(SCOPE)
        store.write_candidate(SCOPE, number, records)
        info = GenerationInfo(
            generation=number, job_id=f"job-{number}", status="active", created_at=T0, based_on=number - 1
        )
        store.promote(state, info, AppliedJob(job_id=f"job-{number}", outcome="completed", generation=number))


@pytest.fixture
def api(make_settings):
    settings = make_settings(api_port=0, api_token=AGENT, api_operator_token=OPERATOR)
    runtime = open_runtime(settings)
    seed(runtime)
    server = start_api(settings, runtime, lambda: True, lock=threading.RLock())
    yield server.url, settings, runtime
    server.stop()
    runtime.close()


def send(url: str, method: str, body: object, token: str = AGENT) -> tuple[int, dict]:
    return call(url, method, json.dumps(body).encode(), token=token)


def read(settings, topic: str, expect: int, timeout_s: float = 30.0) -> list:
    consumer = Consumer(
        {**settings.kafka_client_config(), "group.id": f"reader-{time.time_ns()}", "enable.auto.commit": False}
    )
    consumer.assign([TopicPartition(topic, p, 0) for p in range(settings.partitions)])
    found: list = []
    deadline = time.monotonic() + timeout_s
    while len(found) < expect and time.monotonic() < deadline:
        found += [m for m in consumer.consume(100, timeout=0.5) if not m.error()]
    consumer.close()
    return found


def test_a_posted_memory_goes_to_the_memory_adds_topic_as_the_apis_own(api):
    url, settings, _ = api
    body = {"text": "Lea takes the night train", "metadata": {"channel": "chat"}, "source_message_ids": ["m1"]}
    status, answer = send(f"{url}/scopes/{SCOPE}/memories", "POST", body)
    assert status == 202 and answer["status"] == "accepted" and answer["scope"] == SCOPE
    [message] = read(settings, settings.topics.memory_adds, 1)
    add = MemoryAdd.model_validate_json(message.value())
    assert (add.memory_id, add.text, add.metadata, add.source_message_ids) == (
        answer["memory_id"],
        "Lea takes the night train",
        {"channel": "chat"},
        ("m1",),
    )
    assert message.key() == SCOPE.encode() and message.partition() == home_partition(SCOPE.encode(), 2)
    assert dict(message.headers())[PRODUCER_HEADER] == API_PRODUCER.encode()
    status, answer = send(f"{url}/scopes/{SCOPE}/memories", "POST", {"text": "Lea cycles", "memory_id": "lea-bike"})
    assert (status, answer["memory_id"]) == (202, "lea-bike")


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"text": ""}, 400, "text"),
        ({"text": "x", "protected": True}, 400, "unknown field 'protected'"),
        ({"text": "x", "metadata": {"a": {"nested": 1}}}, 400, "metadata.a"),
        ({"text": "x", "source_message_ids": "m1"}, 400, "source_message_ids"),
        ({"text": "x" * 20_001}, 400, "text"),
        ({"text": "x", "memory_id": "city"}, 409, "correct it with PATCH"),
        ({"metadata": {}}, 400, "text is required"),
        ([1, 2], 400, "JSON object"),
    ],
)
def test_a_bad_memory_is_refused_naming_the_field(api, body, status, words):
    url, *_ = api
    got, answer = send(f"{url}/scopes/{SCOPE}/memories", "POST", body)
    assert got == status and words in answer["error"], answer


def test_corrections_become_correct_control_events_and_name_unknown_memories(api):
    url, settings, _ = api
    status, answer = send(
        f"{url}/scopes/{SCOPE}/memories/city",
        "PATCH",
        {"text": "Lea lives in Brest", "by": "lea-bot", "reason": "moved"},
    )
    assert status == 202 and answer["memory_id"] == "city" and answer["correction_id"].startswith("cor-")
    status, deleted = send(f"{url}/scopes/{SCOPE}/memories/city", "DELETE", {"by": "lea-bot", "reason": "not true"})
    assert status == 202
    events = [ControlEvent.model_validate_json(m.value()) for m in read(settings, settings.topics.control, 2)]
    assert [(e.request_id, e.correction.op, e.correction.text, e.correction.role) for e in events] == [
        (answer["correction_id"], "update", "Lea lives in Brest", "agent"),
        (deleted["correction_id"], "retire", None, "agent"),
    ]
    assert events[0].reason == "moved" and events[0].correction.by == "lea-bot"
    status, body = send(f"{url}/scopes/{SCOPE}/memories/nope", "PATCH", {"text": "x", "by": "a", "reason": "b"})
    assert status == 404 and "nope" in body["error"]
    status, body = send(f"{url}/scopes/acme/notes-bot/other/memories/city", "DELETE", {"by": "a", "reason": "b"})
    assert status == 404
    status, body = send(f"{url}/scopes/{SCOPE}/memories/city", "PATCH", {"text": "x", "by": "a"})
    assert status == 400 and "reason is required" in body["error"]
    status, body = send(f"{url}/scopes/{SCOPE}/memories/city", "DELETE", {"by": "a", "reason": "b", "text": "x"})
    assert status == 400 and "unknown field 'text'" in body["error"]


def test_the_operator_role_guards_protected_memories_steering_and_decisions(api):
    url, settings, _ = api
    fix = {"text": "Lea's legal name is Lea Roux-Morel", "by": "ops", "reason": "married"}
    status, body = send(f"{url}/scopes/{SCOPE}/memories/name", "PATCH", fix)
    assert status == 403 and "operator" in body["error"]
    status, body = send(f"{url}/scopes/{SCOPE}/memories/name", "PATCH", fix, token=OPERATOR)
    assert status == 202
    [event] = [ControlEvent.model_validate_json(m.value()) for m in read(settings, settings.topics.control, 1)]
    assert event.correction.role == "operator"
    assert send(f"{url}/scopes/{SCOPE}/steering", "PUT", {"text": "keep travel", "by": "ops"})[0] == 403
    assert send(f"{url}/scopes/{SCOPE}/rollback", "POST", {"by": "ops", "reason": "r"})[0] == 403
    assert send(f"{url}/scopes/{SCOPE}/rollback", "POST", {"by": "ops", "reason": "r"}, token=OPERATOR)[0] == 200
    assert call(f"{url}/scopes/{SCOPE}/memories", token="wrong-token-0123456789")[0] == 401


def test_steering_of_a_scope_and_of_a_tenant_is_sent_kept_and_read_back(api):
    url, settings, _ = api
    assert call(f"{url}/scopes/{SCOPE}/steering", token=AGENT) == (200, {"text": "", "by": None, "set_at": None})
    status, put = send(f"{url}/scopes/{SCOPE}/steering", "PUT", {"text": "drop small talk", "by": "ops"}, OPERATOR)
    assert status == 202 and put["text"] == "drop small talk"
    assert call(f"{url}/scopes/{SCOPE}/steering", token=AGENT) == (200, put), "read back at once"
    status, tenant = send(
        f"{url}/tenants/acme/steering", "PUT", {"text": "keep contracts exact", "by": "ops"}, OPERATOR
    )
    assert status == 202 and call(f"{url}/tenants/acme/steering", token=AGENT) == (200, tenant)
    assert call(f"{url}/tenants/globex/steering", token=AGENT)[1]["text"] == ""
    events = [ControlEvent.model_validate_json(m.value()) for m in read(settings, settings.topics.control, 3)]
    scoped = [e for e in events if e.steering.applies_to == "scope"]
    copies = [e for e in events if e.steering.applies_to == "tenant"]
    assert [e.scope for e in scoped] == [SCOPE]
    assert sorted(home_partition(e.scope.encode(), 2) for e in copies) == [0, 1], "one copy per partition"
    assert all(e.scope.startswith("acme/") for e in copies)
    status, body = send(f"{url}/scopes/{SCOPE}/steering", "PUT", {"text": "x" * 2001, "by": "ops"}, OPERATOR)
    assert status == 400 and "text" in body["error"]
    assert send(f"{url}/tenants/-acme/steering", "PUT", {"text": "x", "by": "ops"}, OPERATOR)[0] == 400


def test_as_of_reads_what_held_then_along_the_lineage(api):
    url, *_ = api
    before = call(f"{url}/scopes/{SCOPE}/memories?as_of=2026-03-08T00:00:00Z", token=AGENT)[1]
    after = call(f"{url}/scopes/{SCOPE}/memories?as_of=2026-03-20", token=AGENT)[1]
    assert {m["memory_id"]: m["text"] for m in before["memories"]}["city"] == "Lea lives in Lyon"
    assert {m["memory_id"]: m["text"] for m in after["memories"]}["city"] == "Lea lives in Nantes"
    old = next(m for m in before["memories"] if m["memory_id"] == "city")
    assert old["valid_to"] == SENT.isoformat().replace("+00:00", "Z")
    status, hits = call(f"{url}/scopes/{SCOPE}/memories/search?q=where+does+Lea+live&as_of=2026-03-06", token=AGENT)
    assert status == 200 and hits["results"][0]["memory"]["text"] == "Lea lives in Lyon"
    status, body = call(f"{url}/scopes/{SCOPE}/memories?as_of=yesterday", token=AGENT)
    assert status == 400 and "as_of" in body["error"]
    status, body = call(f"{url}/scopes/{SCOPE}/memories?as_of=2026-03-06T10:00:00", token=AGENT)
    assert status == 400 and "time zone" in body["error"]
    status, body = call(f"{url}/scopes/{SCOPE}/memories?as_of=2026-03-06&generation=1", token=AGENT)
    assert status == 400 and "generation" in body["error"]
    history = call(f"{url}/scopes/{SCOPE}/memories/city", token=AGENT)[1]["history"]
    assert [(h["record"]["text"], h["valid_to"]) for h in history] == [
        ("Lea lives in Lyon", SENT.isoformat()),
        ("Lea lives in Nantes", None),
    ]
