"""Scopes in every route (a malformed one is a 400, an unknown one a 404), the memory-adds no pass
has curated yet in list, search and get, and the filters of list and search."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from consumers.api.openapi import routes_of
from tests.unit.consumers.api.conftest import T0, memory, memory_add

SCOPE = "acme/bot/u1"
BASE = f"/scopes/{SCOPE}"
SAMPLES = {"memory_id": "m1", "generation": "1", "action": "approve"}


def scope_routes(api, tenant: str = "acme", agent: str = "bot", subject: str = "u1"):
    """(method, concrete path, required query) of every route under /scopes/{tenant}/{agent}/{subject}
    and the review page's /review/scopes/{tenant}/{agent}/{subject}."""
    document = api.get("/openapi.json")[1]
    values = {"tenant": tenant, "agent": agent, "subject": subject, **SAMPLES}
    for method, path, _ in routes_of(api.app):
        if not path.startswith(("/scopes/{tenant}", "/review/scopes/{tenant}")):
            continue
        op = document["paths"][path][method.lower()]
        query = "&".join(f"{p['name']}=x" for p in op["parameters"] if p["in"] == "query" and p["required"])
        concrete = re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)
        yield method, concrete, query


def seeded(api):
    api.promote(
        SCOPE,
        [
            memory(SCOPE, "seat", "The user prefers aisle seats on long flights.", tier="core"),
            memory(
                SCOPE,
                "diet",
                "The user is vegetarian.",
                tier="archive",
                origin="memory_add",
                metadata={"channel": "email", "ticket": 7},
                created_at=T0 + timedelta(days=3),
                updated_at=T0 + timedelta(days=3),
            ),
            memory(SCOPE, "old", "The user liked window seats.", status="superseded", superseded_by="seat"),
        ],
    )
    api.add_pending(memory_add(SCOPE, "fresh", "The user moved to Lisbon in March.", metadata={"channel": "chat"}))
    return api


def test_a_malformed_scope_is_a_400_naming_the_part_on_every_scope_route(api):
    routes = list(scope_routes(api, tenant="bad!tenant"))
    assert len(routes) >= 13
    for method, path, query in routes:
        body = {"by": "op", "reason": "test"} if method != "GET" else None
        status, body = api.request(method, f"{path}?{query}", body)
        assert status == 400 and "tenant part 'bad!tenant'" in body["error"], (method, path, body)


def test_an_unknown_scope_is_a_404_on_every_read(api):
    seeded(api)
    # Steering is the exception: an operator may set it before a scope's first event (a GET answers "not set").
    reads = [(m, p, q) for m, p, q in scope_routes(api, subject="nobody") if m == "GET" and not p.endswith("/steering")]
    names = {p.rsplit("/", 1)[-1] for _, p, _ in reads}
    assert names >= {"memories", "search", "m1", "diary", "generations", "context", "timeline", "diff", "1"}
    for _, path, query in reads:
        status, body = api.get(f"{path}?{query}")
        assert status == 404 and "unknown" in body["error"], (path, body)


def test_a_scope_holding_only_memory_adds_is_known_to_list_search_get_and_context(api):
    api.add_pending(memory_add(SCOPE, "fresh", "The user moved to Lisbon in March."))
    status, body = api.get(f"{BASE}/memories")
    assert status == 200 and body["generation"] == 0
    assert [(m["memory_id"], m["consolidated"]) for m in body["memories"]] == [("fresh", False)]
    status, body = api.get(f"{BASE}/memories/search?q=Lisbon")
    assert status == 200 and [r["memory"]["memory_id"] for r in body["results"]] == ["fresh"]
    assert body["results"][0]["consolidated"] is False
    status, body = api.get(f"{BASE}/memories/fresh")
    assert status == 200 and body["memory"]["text"].startswith("The user moved") and body["history"] == []
    assert api.get(f"{BASE}/context?q=Lisbon")[0] == 200
    assert api.get(f"{BASE}/generations")[0] == 404, "no pass has run: no generations to show"
    assert api.get(f"{BASE}/memories?generation=1")[0] == 404


def test_list_shows_the_generation_then_the_memory_adds_not_curated_yet(api):
    seeded(api)
    status, body = api.get(f"{BASE}/memories")
    assert status == 200 and body["generation"] == 1
    assert [m["memory_id"] for m in body["memories"]] == ["seat", "diet", "fresh"]
    status, body = api.get(f"{BASE}/memories?generation=1")
    assert [m["memory_id"] for m in body["memories"]] == ["seat", "diet"], "a kept generation is its records only"
    first = api.get(f"{BASE}/memories?limit=2")[1]
    assert first["total"] == 3 and first["next_cursor"] == "1:2"
    second = api.get(f"{BASE}/memories?limit=2&cursor=1:2")[1]
    assert [m["memory_id"] for m in second["memories"]] == ["fresh"] and second["next_cursor"] is None


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("tier=core", ["seat"]),
        ("tier=archive", ["diet", "fresh"]),
        ("origin=memory_add", ["diet", "fresh"]),
        ("consolidated=true", ["seat", "diet"]),
        ("consolidated=false", ["fresh"]),
        ("created_after=2026-03-06", ["diet"]),
        ("created_before=2026-03-06T00:00:00Z", ["seat", "fresh"]),
        ("updated_after=2026-03-05T00:00:01%2B00:00", ["diet"]),
        ("meta.channel=email", ["diet"]),
        ("meta.ticket=7", ["diet"]),
        ("meta.channel=chat", ["fresh"]),
        ("meta.channel=chat&tier=core", []),
        ("include_inactive=true&tier=core", ["old", "seat"]),  # oldest first, then by id
        ("about=seat", ["seat"]),  # the plural too, and only what is active
        ("about=LISBON", ["fresh"]),  # any case, the memory-adds not curated yet too
        ("about=window+seat&include_inactive=true", ["old"]),
        ("about=Lis", []),  # whole words only
    ],
)
def test_list_filters(api, query, expected):
    seeded(api)
    status, body = api.get(f"{BASE}/memories?{query}")
    assert status == 200, body
    assert [m["memory_id"] for m in body["memories"]] == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", {"seat", "diet", "fresh"}),
        ("&tier=core", {"seat"}),
        ("&consolidated=false", {"fresh"}),
        ("&meta.channel=email", {"diet"}),
        ("&origin=transcript", {"seat"}),
        ("&created_after=2026-03-06", {"diet"}),
        ("&about=vegetarian", {"diet"}),
    ],
)
def test_search_filters(api, query, expected):
    seeded(api)
    status, body = api.get(f"{BASE}/memories/search?q=seats&k=10{query}")
    assert status == 200, body
    assert {r["memory"]["memory_id"] for r in body["results"]} == expected


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("tier=hot", "tier must be one of core, archive"),
        ("origin=web", "origin must be one of memory_add, transcript, motive"),
        ("consolidated=perhaps", "consolidated must be true or false"),
        ("created_after=last+week", "created_after must be an ISO-8601 time"),
        ("updated_before=2026-03-05T10:00:00", "updated_before must name its time zone"),
        ("created_after=2026-03-06&created_before=2026-03-05", "created_after must be earlier than created_before"),
        ("meta.a.b=1", "meta.a.b: a metadata filter key"),
        ("meta.=1", "unknown query parameter 'meta.'"),
        ("metadata=x", "unknown query parameter 'metadata'"),
        ("tier=core&tier=archive", "'tier' given more than once"),
        ("about=%3F%21", "about must name someone or something"),
        ("about=" + "x" * 101, "about must name someone or something in at most 100 characters"),
    ],
)
def test_a_bad_filter_is_a_400_naming_the_parameter(api, query, message):
    seeded(api)
    for path in (f"{BASE}/memories?{query}", f"{BASE}/memories/search?q=x&{query}"):
        status, body = api.get(path)
        assert status == 400 and message in body["error"], (path, body)
