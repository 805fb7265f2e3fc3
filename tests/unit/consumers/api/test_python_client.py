"""`dreamstream.client` against the API app on loopback (reads, filters, context, errors), and,
for the statuses this app cannot be made to answer here (429, 5xx) and the exact requests the
write methods send, against httpx's mock transport."""

from __future__ import annotations

import asyncio
import inspect
import json
from datetime import timedelta

import httpx
import pytest

from dreamstream.client import (
    AsyncClient,
    BadRequest,
    Busy,
    Client,
    Conflict,
    DreamstreamError,
    Filter,
    Forbidden,
    NotFound,
    ServerError,
    Unauthorized,
    Unreachable,
)
from tests.unit.consumers.api.conftest import T0, memory, memory_add

SCOPE = "acme/bot/u1"
TOKEN = "client-test-token-0123456789"


@pytest.fixture
def served(make_api):
    api = make_api(api_token=TOKEN)
    api.promote(
        SCOPE,
        [
            memory(SCOPE, "seat", "The user prefers aisle seats on long flights.", tier="core"),
            memory(
                SCOPE,
                "diet",
                "The user is vegetarian.",
                tier="archive",
                metadata={"channel": "email"},
                created_at=T0 + timedelta(days=2),
            ),
        ],
    )
    api.promote(SCOPE, [memory(SCOPE, "seat", "The user prefers aisle seats.", tier="core")])
    api.add_pending(memory_add(SCOPE, "fresh", "The user moved to Lisbon in March."))
    return api


def test_reads_and_filters_through_the_blocking_client(served):
    with Client(served.url, token=TOKEN) as memory_api:
        hits = memory_api.search(SCOPE, "where does the user live", k=5)
        assert {h.memory.memory_id for h in hits} == {"seat", "fresh"}
        fresh = next(h for h in hits if h.memory.memory_id == "fresh")
        assert fresh.consolidated is False and fresh.tier == "archive"
        assert [h.memory.memory_id for h in memory_api.search(SCOPE, "seat", where=Filter(consolidated=True))] == [
            "seat"
        ]
        page = memory_api.memories(SCOPE, limit=1)
        assert page.generation == 2 and page.total == 2 and page.next_cursor
        assert [m.memory_id for m in memory_api.all_memories(SCOPE, page_size=1)] == ["seat", "fresh"]
        old = memory_api.memories(SCOPE, generation=1, where=Filter(metadata={"channel": "email"}))
        assert [m.memory_id for m in old.memories] == ["diet"]
        about = memory_api.memories(SCOPE, where=Filter(about="Lisbon"))
        assert [m.memory_id for m in about.memories] == ["fresh"]
        history = memory_api.memory(SCOPE, "seat")
        assert history.memory is not None and history.memory.text == "The user prefers aisle seats."
        assert [(v.generation, v.record.text if v.record else None) for v in history.versions] == [
            (1, "The user prefers aisle seats on long flights."),
            (2, "The user prefers aisle seats."),
        ]
        context = memory_api.context(SCOPE, "Lisbon", budget_tokens=100)
        assert context.tokens <= 100 and "aisle" in context.text and "Lisbon" in context.text
        assert [(i.memory_id, i.section) for i in context.items] == [("seat", "core"), ("fresh", "related")]
        generations = memory_api.generations(SCOPE)
        assert generations.active_generation == 2 and [g.generation for g in generations.generations] == [1, 2]
        assert memory_api.diary(SCOPE) == []
        assert memory_api.scopes() == [SCOPE] and memory_api.scopes("globex") == []


def test_the_async_client_is_the_same_implementation(served):
    async def run():
        async with AsyncClient(served.url, token=TOKEN) as memory_api:
            return [m async for m in memory_api.all_memories(SCOPE, page_size=1)]

    assert [m.memory_id for m in asyncio.run(run())] == ["seat", "fresh"]
    public = {n for n, f in inspect.getmembers(AsyncClient, inspect.iscoroutinefunction) if not n.startswith("_")}
    assert public - {"aclose", "__aenter__", "__aexit__"} <= set(dir(Client)), (
        "every async method has its blocking twin"
    )


def test_refusals_are_the_clients_own_exceptions(served):
    with Client(served.url, token=TOKEN) as memory_api:
        with pytest.raises(BadRequest, match="tenant part") as bad:
            memory_api.search("../etc/passwd", "x")
        assert bad.value.status == 400 and isinstance(bad.value, ValueError)
        with pytest.raises(BadRequest, match="tier must be one of"):
            memory_api.memories(SCOPE, where=Filter(tier="hot"))  # type: ignore[arg-type]
        with pytest.raises(NotFound, match="unknown") as missing:
            memory_api.search("acme/bot/nobody", "x")
        assert missing.value.status == 404 and isinstance(missing.value, LookupError)
        with pytest.raises(NotFound, match="no kept generation"):
            memory_api.memory(SCOPE, "no-such-memory")
    with Client(served.url, token="wrong-token-0123456789") as intruder, pytest.raises(Unauthorized) as denied:
        intruder.scopes()
    assert denied.value.status == 401
    with Client("http://127.0.0.1:9") as nowhere, pytest.raises(Unreachable, match="cannot reach the API") as away:
        nowhere.scopes()
    assert away.value.status == 0 and isinstance(away.value, DreamstreamError)


@pytest.mark.parametrize(
    ("status", "headers", "kind", "retry_after"),
    [
        (403, {}, Forbidden, None),
        (409, {}, Conflict, None),
        (429, {"Retry-After": "3"}, Busy, 3.0),
        (503, {"Retry-After": "1.5"}, Busy, 1.5),
        (503, {}, Busy, None),
        (500, {}, ServerError, None),
        (502, {}, ServerError, None),
        (418, {}, DreamstreamError, None),
    ],
)
def test_each_status_is_its_own_exception(status, headers, kind, retry_after):
    transport = httpx.MockTransport(lambda request: httpx.Response(status, json={"error": "no"}, headers=headers))

    async def run():
        async with AsyncClient("http://api.test", transport=transport) as memory_api:
            await memory_api.scopes()

    with pytest.raises(kind) as err:
        asyncio.run(run())
    assert type(err.value) is kind and err.value.status == status and err.value.retry_after == retry_after
    assert str(err.value) == f"GET /scopes: {status} no"


def test_write_and_operator_methods_send_the_route_contract():
    sent: list[tuple[str, str, object]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        sent.append((request.method, request.url.path, body))
        if request.url.path.endswith("/memories") and request.method == "POST":
            return httpx.Response(202, json={"scope": SCOPE, "memory_id": "add-1", "status": "accepted"})
        if request.method in ("PATCH", "DELETE"):
            return httpx.Response(202, json={"scope": SCOPE, "memory_id": "seat", "correction_id": "cor-1"})
        if request.url.path.endswith("steering"):
            return httpx.Response(200, json={"text": "keep travel", "by": "ops", "set_at": "2026-03-05T00:00:00Z"})
        return httpx.Response(
            200, json={"scope": SCOPE, "active_generation": 1, "next_generation": 3, "generations": []}
        )

    async def run():
        async with AsyncClient("http://api.test", transport=httpx.MockTransport(answer)) as c:
            added = await c.add(SCOPE, "Prefers tea", metadata={"source": "chat"}, source_message_ids=["m1"])
            corrected = await c.correct(SCOPE, "seat", "Prefers window seats", by="agent-7", reason="user said so")
            deleted = await c.delete(SCOPE, "seat", by="agent-7", reason="wrong")
            await c.rollback(SCOPE, by="ops", reason="bad pass", generation=1)
            await c.approve(SCOPE, 2, by="ops", reason="fine")
            await c.reject(SCOPE, 2, by="ops", reason="leaks")
            steering = await c.set_steering(SCOPE, "keep travel", by="ops")
            await c.set_tenant_steering("acme", "keep travel", by="ops")
            await c.tenant_steering("acme")
            return added, corrected, deleted, steering

    added, corrected, deleted, steering = asyncio.run(run())
    assert added.memory_id == "add-1" and corrected.correction_id == deleted.correction_id == "cor-1"
    assert steering.text == "keep travel"
    base = f"/scopes/{SCOPE}"
    assert sent == [
        (
            "POST",
            f"{base}/memories",
            {"text": "Prefers tea", "metadata": {"source": "chat"}, "source_message_ids": ["m1"]},
        ),
        ("PATCH", f"{base}/memories/seat", {"text": "Prefers window seats", "by": "agent-7", "reason": "user said so"}),
        ("DELETE", f"{base}/memories/seat", {"by": "agent-7", "reason": "wrong"}),
        ("POST", f"{base}/rollback", {"by": "ops", "reason": "bad pass", "generation": 1}),
        ("POST", f"{base}/generations/2/approve", {"by": "ops", "reason": "fine", "force": False}),
        ("POST", f"{base}/generations/2/reject", {"by": "ops", "reason": "leaks"}),
        ("PUT", f"{base}/steering", {"text": "keep travel", "by": "ops"}),
        ("PUT", "/tenants/acme/steering", {"text": "keep travel", "by": "ops"}),
        ("GET", "/tenants/acme/steering", None),
    ]
