"""Agents write and correct memory against running workers on a real broker: the stream worker as
a process, the consolidation worker and its HTTP API in this one, embedded Qdrant.

- a posted memory is searchable at once (`consolidated: false`), and consolidated after a pass;
- a PATCH is a correction the next pass applies (it asks for that pass itself): a new generation,
  who and why in the diary and on the audit topic, `as_of` before and after it returns the old and
  the new value, the memory's history says when each value held; a DELETE retires it; rollback
  restores it;
- a protected memory needs the operator token;
- steering set through the API travels with the next job through the stream worker: the diary
  names it and the offline engine applies it.
"""

from __future__ import annotations

import json
import time
import urllib.parse
from datetime import UTC, datetime
from pathlib import Path

import pytest

from consumers.api import start_api
from consumers.protect import set_protected
from dreamstream_tools.pipeline import LocalPipeline
from schemas import MemoryChangeEvent
from tests.integration.test_api import call
from tests.integration.test_operations import free_port

pytestmark = pytest.mark.integration
AGENT, OPERATOR = "agents-token-0123456789", "operator-token-0123456789"
WAIT_S = 240.0  # a pass takes a few seconds on a quiet machine; shared 2-core machines are slower


@pytest.fixture(scope="module")
def live(kafka_bootstrap, tmp_path_factory):
    from tests.integration.kafka_env import unique_settings

    home = tmp_path_factory.mktemp("writes")
    settings = unique_settings(
        kafka_bootstrap, home, api_port=free_port(), api_token=AGENT, api_operator_token=OPERATOR
    )
    pipeline = LocalPipeline(settings).start()
    api = start_api(settings, pipeline.runtime, lambda: pipeline._worker.assigned)
    try:
        yield pipeline, api.url, home
    finally:
        api.stop()
        pipeline.stop()
        pipeline.runtime.close()


def send(url: str, method: str, body: object | None = None, token: str = AGENT) -> tuple[int, dict]:
    return call(url, method, json.dumps(body).encode() if body is not None else None, token=token)


def search(url: str, scope: str, q: str, **extra: str) -> list[dict]:
    query = urllib.parse.urlencode({"q": q, **extra})
    status, body = call(f"{url}/scopes/{scope}/memories/search?{query}", token=AGENT)
    assert status == 200, body
    return body["results"]


def memories(url: str, scope: str, **query: str) -> dict[str, str]:
    status, body = call(f"{url}/scopes/{scope}/memories?{urllib.parse.urlencode(query)}", token=AGENT)
    assert status == 200, body
    return {m["memory_id"]: m["text"] for m in body["memories"]}


def dream(pipeline: LocalPipeline, url: str, scope: str) -> None:
    status, body = send(f"{url}/scopes/{scope}/trigger", "POST", {"reason": "test"})
    assert status == 202, body
    [done] = pipeline.wait_for([body["request_id"]], timeout_s=WAIT_S)
    assert done.status == "completed", done


def wait_correction(pipeline: LocalPipeline, correction_id: str, status: str = "completed"):
    [done] = pipeline.wait_for([correction_id], timeout_s=WAIT_S)
    assert done.status == status, done
    return done


def searchable_after(url: str, scope: str, text: str) -> float:
    """Seconds from a POST's 202 until search returns the memory-add (not consolidated yet)."""
    status, added = send(f"{url}/scopes/{scope}/memories", "POST", {"text": text})
    assert status == 202
    posted, deadline = time.monotonic(), time.monotonic() + 60
    while True:
        hits = [h for h in search(url, scope, text) if h["memory"]["memory_id"] == added["memory_id"]]
        if hits:
            assert hits[0]["consolidated"] is False
            return time.monotonic() - posted
        assert time.monotonic() < deadline, "the memory-add never became searchable"
        time.sleep(0.02)


def test_add_search_dream_correct_as_of_delete_and_roll_back(live):
    pipeline, url, _ = live
    scope = "acme/notes-bot/mira"
    posted = time.monotonic()
    status, added = send(f"{url}/scopes/{scope}/memories", "POST", {"text": "Mira keeps her bike in the hallway"})
    assert status == 202
    memory_id = added["memory_id"]
    deadline = time.monotonic() + 60
    while not (hits := [h for h in search(url, scope, "where is the bike") if h["memory"]["memory_id"] == memory_id]):
        assert time.monotonic() < deadline, "the memory-add never became searchable"
        time.sleep(0.05)
    print(f"searchable {time.monotonic() - posted:.2f}s after the 202 (the first event of a new worker)")
    assert hits[0]["consolidated"] is False

    dream(pipeline, url, scope)
    [hit] = [h for h in search(url, scope, "where is the bike") if h["memory"]["memory_id"] == memory_id]
    assert hit["consolidated"] is True
    print(
        f"searchable {searchable_after(url, scope, 'Mira rents a parking space by the station'):.2f}s after the 202 "
        "(the worker settled)"
    )

    before = datetime.now(UTC)
    time.sleep(0.01)
    fix = {"text": "Mira keeps her bike in the cellar", "by": "mira-agent", "reason": "she moved it"}
    status, corrected = send(f"{url}/scopes/{scope}/memories/{memory_id}", "PATCH", fix)
    assert status == 202 and corrected["memory_id"] == memory_id
    done = wait_correction(pipeline, corrected["correction_id"])  # the correction asked for its pass
    after = datetime.now(UTC)
    assert memories(url, scope)[memory_id] == "Mira keeps her bike in the cellar"
    assert done.generation == 2
    assert memories(url, scope, as_of=before.isoformat())[memory_id] == "Mira keeps her bike in the hallway"
    assert memories(url, scope, as_of=after.isoformat())[memory_id] == "Mira keeps her bike in the cellar"
    old = search(url, scope, "where is the bike", as_of=before.isoformat())[0]["memory"]
    assert old["text"] == "Mira keeps her bike in the hallway" and old["valid_to"] is not None

    status, one = call(f"{url}/scopes/{scope}/memories/{memory_id}", token=AGENT)
    held = [(h["record"]["text"], h["valid_from"] is not None, h["valid_to"] is not None) for h in one["history"]]
    assert held == [
        ("Mira keeps her bike in the hallway", True, True),
        ("Mira keeps her bike in the cellar", True, False),
    ]
    assert one["history"][0]["valid_to"] == one["history"][1]["valid_from"]

    [entry] = [e for e in call(f"{url}/scopes/{scope}/diary", token=AGENT)[1]["entries"] if e["generation"] == 2]
    [change] = [e for e in entry["events"] if e["type"] == "memory" and e["memory_id"] == memory_id]
    assert change["correction_id"] == corrected["correction_id"] and change["by"] == "mira-agent"
    assert "she moved it" in change["reason"]
    published = [e for e in pipeline.audit_events if isinstance(e, MemoryChangeEvent) and e.correction_id]
    assert [e.correction_id for e in published] == [corrected["correction_id"]], "on the audit topic too"

    gone_at = datetime.now(UTC)
    status, deleted = send(
        f"{url}/scopes/{scope}/memories/{memory_id}", "DELETE", {"by": "mira-agent", "reason": "sold it"}
    )
    assert status == 202
    wait_correction(pipeline, deleted["correction_id"])
    assert memory_id not in memories(url, scope)
    assert memory_id in memories(url, scope, as_of=gone_at.isoformat()), "it held until the DELETE"
    assert send(f"{url}/scopes/{scope}/memories/{memory_id}", "DELETE", {"by": "a", "reason": "b"})[0] == 404

    status, _ = send(f"{url}/scopes/{scope}/rollback", "POST", {"by": "ops", "reason": "the agent was wrong"}, OPERATOR)
    assert status == 200
    assert memories(url, scope)[memory_id] == "Mira keeps her bike in the cellar", "rollback restores it"


def test_a_protected_memory_needs_the_operator_token(live):
    pipeline, url, _ = live
    scope = "acme/notes-bot/ravi"
    status, added = send(f"{url}/scopes/{scope}/memories", "POST", {"text": "Ravi's legal name is Ravi Menon"})
    assert status == 202
    dream(pipeline, url, scope)
    set_protected(pipeline.runtime, scope, added["memory_id"], True, by="ops", reason="identity")
    path = f"{url}/scopes/{scope}/memories/{added['memory_id']}"
    fix = {"text": "Ravi's legal name is Ravi K. Menon", "by": "someone", "reason": "middle initial"}
    status, body = send(path, "PATCH", fix)
    assert status == 403 and "operator" in body["error"]
    status, body = send(path, "PATCH", fix, token=OPERATOR)
    assert status == 202
    wait_correction(pipeline, body["correction_id"])
    status, one = call(path, token=AGENT)
    assert one["memory"]["text"] == "Ravi's legal name is Ravi K. Menon" and one["memory"]["protected"] is True


def test_steering_travels_with_the_next_job_through_the_stream_worker(live):
    pipeline, url, home = live
    scope = "acme/travel-desk/omar"
    status, _ = send(
        f"{url}/scopes/{scope}/steering", "PUT", {"text": "drop anything about pets", "by": "ops"}, OPERATOR
    )
    assert status == 202
    status, _ = send(f"{url}/tenants/acme/steering", "PUT", {"text": "keep dietary needs", "by": "ops"}, OPERATOR)
    assert status == 202
    lines = [
        "My cat Pixel is fourteen years old and sleeps on the piano all day.",
        "I can only eat gluten-free food, so please order gluten-free meals for me.",
    ]
    path = Path(home) / "omar.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "scope": scope,
                    "session_id": "o1",
                    "message_id": f"o1#{i}",
                    "role": "user",
                    "content": text,
                    "ts": f"2026-05-04T18:0{i}:00+00:00",
                }
            )
            + "\n"
            for i, text in enumerate(lines)
        )
    )
    pipeline.replay([path])
    pipeline.wait_until_read()
    dream(pipeline, url, scope)
    texts = " | ".join(memories(url, scope).values())
    assert "gluten" in texts.lower() and "Pixel" not in texts
    [entry] = [e for e in call(f"{url}/scopes/{scope}/diary", token=AGENT)[1]["entries"] if e["generation"]]
    notes = entry["notes"]
    assert any(n.startswith("steering (tenant, set by ops") and "keep dietary needs" in n for n in notes), notes
    assert any(n.startswith("steering (scope, set by ops") for n in notes) and any("not created" in n for n in notes)
    deadline = time.monotonic() + 30
    while call(f"{url}/scopes/{scope}/steering", token=AGENT)[1]["text"] != "drop anything about pets":
        assert time.monotonic() < deadline
        time.sleep(0.2)
