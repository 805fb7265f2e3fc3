"""The MCP server (`dreamstream.mcp_server`) driven in-process by the official SDK's client, over
the API app on loopback: its tools, their descriptions, limits, hints and output schemas, the
scope allow-list, and the answers of the read tools."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import jsonschema
import pytest

from dreamstream.client import AsyncClient
from dreamstream.mcp_server import ScopeSet, build_server, package_version
from tests.unit.consumers.api.conftest import memory, memory_add

SCOPE = "acme/bot/u1"
OTHER = "globex/bot/u1"
TOOLS = {
    "search_memory",
    "get_memory",
    "memory_context",
    "add_memory",
    "correct_memory",
    "list_memories",
    "trigger_dream",
    "list_scopes",
}
READS = {"search_memory", "get_memory", "memory_context", "list_memories", "list_scopes"}


@pytest.fixture
def api(make_api):
    api = make_api()
    api.promote(SCOPE, [memory(SCOPE, "seat", "The user prefers window seats.", tier="core")])
    api.promote(SCOPE, [memory(SCOPE, "seat", "The user prefers aisle seats.", tier="core")])
    api.promote(OTHER, [memory(OTHER, "seat", "Globex user likes the front row.", tier="core")])
    api.add_pending(memory_add(SCOPE, "fresh", "The user moved to Lisbon in March."))
    return api


def session(api, *entries: str):
    """Run `body(client)` against a server for `entries` (default: SCOPE only)."""
    from mcp import Client

    def run(body):
        async def go():
            async with AsyncClient(api.url) as http:
                async with Client(build_server(http, ScopeSet(list(entries) or [SCOPE]))) as client:
                    return await body(client)

        return asyncio.run(asyncio.wait_for(go(), 60))

    return run


def structured(result) -> dict[str, Any]:
    assert not result.is_error, result.content
    return result.structured_content


def test_the_tools_are_described_limited_hinted_and_typed(api):
    async def body(client):
        return (await client.list_tools()).tools, client.server_info

    tools, info = session(api)(body)
    assert {t.name for t in tools} == TOOLS
    assert info.name == "dreamstream" and info.version == package_version() != ""
    for tool in tools:
        assert tool.description and len(tool.description) > 30, tool.name
        for name, schema in tool.input_schema["properties"].items():
            assert schema.get("description"), (tool.name, name)
        assert tool.output_schema and tool.output_schema["type"] == "object", tool.name
        assert tool.annotations.read_only_hint is (tool.name in READS), tool.name
    by_name = {t.name: t for t in tools}
    assert by_name["search_memory"].input_schema["properties"]["k"]["maximum"] == 100
    assert by_name["memory_context"].input_schema["properties"]["budget_tokens"]["maximum"] == 100_000
    assert by_name["correct_memory"].annotations.destructive_hint is True
    assert by_name["add_memory"].annotations.destructive_hint is False


@pytest.mark.parametrize(
    ("tool", "arguments", "complaint"),
    [
        ("search_memory", {"query": "seat", "k": 5000}, "less than or equal to 100"),
        ("search_memory", {"query": ""}, "at least 1 character"),
        ("memory_context", {"budget_tokens": 0}, "greater than or equal to 1"),
        ("list_memories", {"limit": 201}, "less than or equal to 200"),
        ("add_memory", {"text": "x" * 20_001}, "at most 20000 characters"),
        ("correct_memory", {"memory_id": "seat", "reason": "wrong"}, "either text"),
        ("correct_memory", {"memory_id": "seat", "reason": "wrong", "text": "a", "delete": True}, "either text"),
        ("search_memory", {"query": "seat", "scope": OTHER}, "not served here"),
        ("get_memory", {"memory_id": "seat", "scope": "../x/y"}, "tenant part"),
    ],
)
def test_limits_and_the_allow_list_are_enforced(api, tool, arguments, complaint):
    async def body(client):
        return await client.call_tool(tool, arguments)

    result = session(api)(body)
    assert result.is_error and complaint in result.content[0].text, result.content


def test_the_read_tools_answer_what_the_api_serves_in_their_schemas(api):
    async def body(client):
        tools = {t.name: t for t in (await client.list_tools()).tools}
        answers = {
            "search_memory": await client.call_tool("search_memory", {"query": "where does the user live", "k": 3}),
            "get_memory": await client.call_tool("get_memory", {"memory_id": "seat"}),
            "memory_context": await client.call_tool("memory_context", {"query": "Lisbon", "budget_tokens": 60}),
            "list_memories": await client.call_tool("list_memories", {"limit": 1}),
            "list_scopes": await client.call_tool("list_scopes", {}),
        }
        about = await client.call_tool("list_memories", {"about": "lisbon"})
        return tools, answers, about

    tools, answers, about = session(api)(body)
    assert [m["memory_id"] for m in structured(about)["memories"]] == ["fresh"], "what memory holds about Lisbon"
    for name, result in answers.items():
        jsonschema.validate(structured(result), tools[name].output_schema)
        assert json.loads(result.content[0].text) == structured(result), "text and structured content agree"
    found = structured(answers["search_memory"])["results"]
    assert {r["memory_id"]: r["consolidated"] for r in found} == {"seat": True, "fresh": False}
    detail = structured(answers["get_memory"])
    assert detail["memory"]["text"] == "The user prefers aisle seats."
    assert [v["memory"]["text"] for v in detail["history"]] == [
        "The user prefers window seats.",
        "The user prefers aisle seats.",
    ]
    assert all(v["memory"]["valid_from"] for v in detail["history"])
    context = structured(answers["memory_context"])
    assert context["tokens"] <= 60 and "aisle" in context["text"] and "Lisbon" in context["text"]
    listed = structured(answers["list_memories"])
    assert listed["total"] == 2 and listed["next_cursor"] and len(listed["memories"]) == 1
    assert structured(answers["list_scopes"]) == {"configured": [SCOPE], "scopes": [SCOPE]}


def test_a_pattern_serves_the_scopes_it_covers_and_nothing_else(api):
    async def body(client):
        return (
            await client.call_tool("list_scopes", {}),
            await client.call_tool("search_memory", {"query": "seat", "scope": SCOPE}),
            await client.call_tool("search_memory", {"query": "seat"}),
            await client.call_tool("search_memory", {"query": "seat", "scope": OTHER}),
        )

    scopes, named, unnamed, other = session(api, "acme/bot/*")(body)
    assert structured(scopes) == {"configured": ["acme/bot/*"], "scopes": [SCOPE]}
    assert structured(named)["scope"] == SCOPE
    assert unnamed.is_error and "name a scope" in unnamed.content[0].text
    assert other.is_error and "not served here" in other.content[0].text
    with pytest.raises(Exception, match="fixed tenant"):
        ScopeSet(["*/bot/u1"])
