"""The review page's JSON routes and static files, in process (aiohttp's test server) over a
runtime on embedded Qdrant whose scope went through real passes: one promoted, one the gate
quarantined (privacy block). Decisions need Kafka (their audit events): the integration tests and
the browser test drive them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr

from consumers.api import ApiContext, StoreGuard, make_app
from consumers.runtime import Runtime, open_runtime
from dreaming.store.history import ScopeView
from dreaming.store.review import gate_findings
from schemas import ConversationTurn
from schemas.settings import Settings
from tests.unit.feed import Feed

SCOPE = "acme/travel-bot/ines"
AGENT_TOKEN = "agent-token-0123456789"
OPERATOR_TOKEN = "operator-token-0123456789"
TOKEN_FIELDS = {"token": "api_token", "operator": "api_operator_token"}


def turn(index: int, text: str) -> ConversationTurn:
    return ConversationTurn(
        scope=SCOPE,
        session_id="s1",
        message_id=f"s1#{index}",
        role="user",
        content=text,
        ts=datetime(2026, 4, 2, 9, index, tzinfo=UTC),
    )


@pytest.fixture(scope="module")
def runtime(tmp_path_factory) -> Iterator[Runtime]:
    settings = Settings(home=tmp_path_factory.mktemp("review"), embedder="hashing", privacy_mode="block")
    rt = open_runtime(settings)
    feed = Feed(rt, SCOPE)
    feed.turns([turn(0, "I always book a window seat on long flights."), turn(1, "My cat Pixel hates trains.")])
    first = feed.run()
    assert first.status == "completed", first.reason
    feed.turns(
        [
            turn(2, "Actually I want an aisle seat, not a window seat."),
            turn(3, "My email is ines.r@example.org and I prefer calls in the morning."),
        ]
    )
    second = feed.run()
    assert second.status == "quarantined", second.reason
    yield rt
    rt.close()


def call(runtime: Runtime, requests: Callable[[TestClient], Any], **tokens: str) -> Any:
    secrets = {name: SecretStr(tokens[key]) if key in tokens else None for key, name in TOKEN_FIELDS.items()}
    settings = runtime.settings.model_copy(update=secrets)
    ctx = ApiContext(
        settings,
        ScopeView(runtime.memories, runtime.diary),
        lambda: None,
        lambda: True,
        StoreGuard(runtime.lock),
        lambda scope, reason: "req-test",
        messages=runtime.transcripts.messages,
    )

    async def run() -> Any:
        async with TestClient(TestServer(make_app(ctx))) as client:
            return await requests(client)

    return asyncio.run(run())


def get(runtime: Runtime, path: str, bearer: str | None = None, **tokens: str) -> tuple[int, Any, Any]:
    async def one(client: TestClient) -> tuple[int, Any, Any]:
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
        response = await client.get(path, headers=headers)
        is_json = response.content_type == "application/json"
        body = await response.json() if is_json else await response.text()
        return response.status, body, response.headers

    return call(runtime, one, **tokens)


def test_scopes_of_a_tenant_show_what_waits_for_review_and_the_last_pass(runtime):
    status, body, _ = get(runtime, "/review/tenants/acme/scopes")
    assert status == 200, body
    (summary,) = body["scopes"]
    assert summary["scope"] == SCOPE and summary["active_generation"] == 1
    assert summary["awaiting_review"] == [2]
    assert summary["last_pass"]["status"] == "quarantined" and summary["last_pass"]["generation"] == 2
    assert get(runtime, "/review/tenants")[1] == {"tenants": ["acme"]}
    assert get(runtime, "/review/tenants/nobody/scopes")[1]["scopes"] == []


def test_the_timeline_lists_passes_newest_first_with_their_generations_state(runtime):
    status, body, _ = get(runtime, f"/review/scopes/{SCOPE}/timeline")
    assert status == 200, body
    quarantined, completed = body["entries"]
    assert quarantined["status"] == "quarantined" and quarantined["generation_status"] == "quarantined"
    assert quarantined["reason"].startswith("[privacy]")
    assert completed["status"] == "completed" and completed["generation_status"] == "active"
    assert completed["changes"].get("created", 0) >= 1 and completed["trigger"] == "manual"
    assert [g["generation"] for g in body["generations"]] == [2, 1]


def test_a_quarantined_candidate_shows_the_rule_the_changes_it_judged_and_their_messages(runtime):
    status, case, _ = get(runtime, f"/review/scopes/{SCOPE}/quarantine/2")
    assert status == 200, case
    assert case["active_generation"] == 1 and case["generation"]["status"] == "quarantined"
    rules = {f["rule"] for f in case["findings"]}
    assert "privacy" in rules, case["findings"]
    privacy = next(f for f in case["findings"] if f["rule"] == "privacy")
    (flagged,) = [c for c in case["changes"] if c["memory_id"] in privacy["memory_ids"]]
    assert flagged["flagged"] and "example.org" in flagged["after"]["text"]
    (message,) = [m for m in flagged["evidence"] if m["message_id"] == "s1#3"]
    assert message == {
        "message_id": "s1#3",
        "found": True,
        "role": "user",
        "text": "My email is ines.r@example.org and I prefer calls in the morning.",
        "ts": "2026-04-02T09:03:00+00:00",
    }
    active_texts = " ".join(m["text"] for m in case["active"]).lower()
    assert "window" in active_texts and "example.org" not in active_texts
    assert any("example.org" in m["text"] for m in case["candidate"])
    assert case["diff"]["from"] == 1 and case["diff"]["to"] == 2
    status, body, _ = get(runtime, f"/review/scopes/{SCOPE}/quarantine/1")
    assert status == 404 and "was not quarantined" in body["error"]


def test_the_diff_names_what_replaced_a_superseded_record(runtime):
    status, body, _ = get(runtime, f"/review/scopes/{SCOPE}/diff?from=1&to=2")
    assert status == 200, body
    replaced = {r["memory_id"]: r for r in body["replaced"]}
    window = [r for r in replaced.values() if "window" in r["text"].lower()]
    assert window and window[0]["status"] == "superseded", body["replaced"]
    assert "aisle" in (window[0]["by"]["text"] or "").lower()
    assert get(runtime, f"/review/scopes/{SCOPE}/diff?from=x")[0] == 400
    assert get(runtime, f"/review/scopes/{SCOPE}/diff?to=9")[0] == 404


def test_search_returns_tier_validity_and_the_messages_behind_each_hit(runtime):
    status, body, _ = get(runtime, f"/review/scopes/{SCOPE}/search?q=cat+trains&k=3")
    assert status == 200, body
    top = body["results"][0]
    assert "Pixel" in top["memory"]["text"] and top["memory"]["tier"] in ("core", "archive")
    assert top["memory"]["valid_from"] == "2026-04-02T09:01:00Z"
    assert [m["text"] for m in top["evidence"]] == ["My cat Pixel hates trains."]
    assert get(runtime, f"/review/scopes/{SCOPE}/search")[0] == 400


def test_the_page_loads_without_a_token_and_every_json_route_needs_one(runtime):
    tokens = {"token": AGENT_TOKEN, "operator": OPERATOR_TOKEN}
    status, html, headers = get(runtime, "/ui/", **tokens)
    assert status == 200 and "<title>dreamstream · review</title>" in html
    assert "script-src 'self'" in headers["Content-Security-Policy"] and headers["X-Frame-Options"] == "DENY"
    assert get(runtime, "/ui/app.js", **tokens)[2]["Content-Type"].startswith("text/javascript")
    assert get(runtime, "/ui/..%2F..%2F..%2Fpyproject.toml", **tokens)[0] == 404  # names, never paths
    assert get(runtime, "/ui/../pyproject.toml", **tokens)[0] == 401  # /pyproject.toml: no such open path
    assert get(runtime, "/ui/missing.js", **tokens)[0] == 404
    assert get(runtime, "/review/session", **tokens)[0] == 401
    assert get(runtime, f"/review/scopes/{SCOPE}/timeline", **tokens)[0] == 401
    assert get(runtime, "/review/session", AGENT_TOKEN, **tokens)[1] == {"role": "agent", "decisions": False}
    assert get(runtime, "/review/session", OPERATOR_TOKEN, **tokens)[1]["role"] == "operator"


def test_gate_findings_name_only_the_memory_ids_their_text_names():
    reason = (
        "[privacy] memory m1 contains email; [retire-share] the plan retires 3 of 4 memories (more than 30%): "
        "['m10', 'm2', 'm3']; [protected] protected memory m-1 was changed"
    )
    findings = gate_findings(reason, ["m1", "m10", "m2", "m3", "m-1", "m4"])
    assert [(f["rule"], f["memory_ids"]) for f in findings] == [
        ("privacy", ["m1"]),
        ("retire-share", ["m10", "m2", "m3"]),
        ("protected", ["m-1"]),
    ]
    assert gate_findings("", ["m1"]) == []
