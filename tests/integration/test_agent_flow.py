"""An agent's whole use of its memory against running workers on a real broker (the stream worker
as a process, the consolidation worker and its HTTP API in this one, embedded Qdrant), driven
three ways with one flow: through the official MCP SDK's `ClientSession` over stdio against
`dreamstream mcp` (a child process), through `dreamstream.client`, and through raw HTTP.

The flow: add a memory; find it fresh (`consolidated: false`); trigger a dream and find it
consolidated; correct it (the correction asks for its own pass); read its history, each value
with when it held (`valid_from` / `valid_to`); ask for context within a budget; and read what
held as of before and after the correction.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from consumers.api import start_api
from dreaming.passes.prune import estimated_tokens
from dreamstream.client import Client, Filter, NotFound
from dreamstream_tools.pipeline import LocalPipeline, settings_env
from tests.integration.test_api import call
from tests.integration.test_operations import free_port

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
TOKEN = "agent-flow-token-0123456789"
WAIT_S = 240.0  # a pass takes seconds on a quiet machine; this allows for a loaded 2-core one
FIND_S = 60.0  # a memory-add is indexed within a second or two of its 202 on a quiet machine
OLD, NEW = "keeps his kayak at the boathouse on Pier 9", "keeps his kayak in the garage behind his house"


@pytest.fixture(scope="module")
def live(kafka_bootstrap, tmp_path_factory):
    from tests.integration.kafka_env import unique_settings

    home = tmp_path_factory.mktemp("agent-flow")
    settings = unique_settings(kafka_bootstrap, home, api_port=free_port(), api_token=TOKEN)
    pipeline = LocalPipeline(settings).start()
    api = start_api(settings, pipeline.runtime, lambda: pipeline._worker.assigned)
    try:
        yield pipeline, api.url, settings
    finally:
        api.stop()
        pipeline.stop()
        pipeline.runtime.close()


# --- three ways to drive the same flow: each answers plain dicts of the API's (or the tool's) shape
@dataclass
class Hit:
    memory_id: str
    text: str
    consolidated: bool


class Http:
    """Raw HTTP with urllib, as any language would."""

    def __init__(self, url: str, scope: str) -> None:
        self.base, self.scope = url, scope

    def _get(self, path: str, **query: str) -> dict[str, Any]:
        status, body = call(f"{self.base}/scopes/{self.scope}/{path}?{urllib.parse.urlencode(query)}", token=TOKEN)
        assert status == 200, body
        return body

    def _send(self, method: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
        status, answer = call(f"{self.base}/scopes/{self.scope}/{path}", method, json.dumps(body).encode(), TOKEN)
        assert status == 202, answer
        return answer

    def add(self, text: str) -> str:
        return self._send("POST", "memories", {"text": text, "metadata": {"channel": "flow"}})["memory_id"]

    def search(self, query: str) -> list[Hit]:
        url = f"{self.base}/scopes/{self.scope}/memories/search?{urllib.parse.urlencode({'q': query, 'k': '5'})}"
        status, body = call(url, token=TOKEN)
        if status == 404 and "is unknown" in body["error"]:
            return []  # a new scope is known once its first memory-add is indexed
        assert status == 200, body
        return [Hit(r["memory"]["memory_id"], r["memory"]["text"], r["consolidated"]) for r in body["results"]]

    def trigger(self) -> str:
        return self._send("POST", "trigger", {"reason": "flow"})["request_id"]

    def correct(self, memory_id: str, text: str) -> str:
        fix = {"text": text, "by": "flow-agent", "reason": "he moved it"}
        return self._send("PATCH", f"memories/{memory_id}", fix)["correction_id"]

    def history(self, memory_id: str) -> list[tuple[str | None, str | None, str | None]]:
        versions = self._get(f"memories/{memory_id}")["history"]
        return [(v["record"]["text"] if v["record"] else None, v["valid_from"], v["valid_to"]) for v in versions]

    def context(self, query: str, budget: int) -> tuple[str, int]:
        body = self._get("context", q=query, budget_tokens=str(budget))
        return body["text"], body["tokens"]

    def as_of(self, at: datetime) -> dict[str, str]:
        return {m["memory_id"]: m["text"] for m in self._get("memories", as_of=at.isoformat())["memories"]}


class PythonClient:
    """`dreamstream.client.Client`."""

    def __init__(self, url: str, scope: str) -> None:
        self.client, self.scope = Client(url, token=TOKEN), scope

    def add(self, text: str) -> str:
        return self.client.add(self.scope, text, metadata={"channel": "flow"}).memory_id

    def search(self, query: str) -> list[Hit]:
        try:
            hits = self.client.search(self.scope, query, 5)
        except NotFound as err:
            assert "is unknown" in str(err), err
            return []  # a new scope is known once its first memory-add is indexed
        return [Hit(h.memory.memory_id, h.memory.text, h.consolidated) for h in hits]

    def trigger(self) -> str:
        return self.client.trigger(self.scope, "flow")

    def correct(self, memory_id: str, text: str) -> str:
        return self.client.correct(self.scope, memory_id, text, by="flow-agent", reason="he moved it").correction_id

    def history(self, memory_id: str) -> list[tuple[str | None, str | None, str | None]]:
        found = self.client.memory(self.scope, memory_id)
        return [(v.record.text if v.record else None, _iso(v.valid_from), _iso(v.valid_to)) for v in found.versions]

    def context(self, query: str, budget: int) -> tuple[str, int]:
        block = self.client.context(self.scope, query, budget)
        return block.text, block.tokens

    def as_of(self, at: datetime) -> dict[str, str]:
        page = self.client.memories(self.scope, where=Filter(metadata={"channel": "flow"}), as_of=at)
        return {m.memory_id: m.text for m in page.memories}

    def close(self) -> None:
        self.client.close()


class Mcp:
    """The official SDK's `ClientSession` over stdio against `dreamstream mcp`, a child process; its
    event loop runs in a thread of its own so the flow can call it step by step."""

    def __init__(self, url: str, scope: str, settings) -> None:
        self.scope = scope
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp-client", daemon=True)
        self._thread.start()
        self._ready = threading.Event()
        self._done: asyncio.Event | None = None
        env = {**os.environ, **settings_env(settings), "DREAMSTREAM_API_TOKEN": TOKEN, "PYTHONPATH": str(REPO)}
        self._args = ["-m", "dreamstream.cli", "mcp", "--api", url, "--scope", scope]
        self._env = env
        self._session: Any = None
        self._runner = asyncio.run_coroutine_threadsafe(self._serve(), self._loop)
        assert self._ready.wait(120), "the MCP server did not start"
        self.tools = {t.name: t for t in self._run(self._session.list_tools()).tools}
        self.server = self._session_info

    async def _serve(self) -> None:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(command=sys.executable, args=self._args, env=self._env, cwd=str(REPO))
        self._done = asyncio.Event()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            self._session_info = (await session.initialize()).server_info
            self._session = session
            self._ready.set()
            await self._done.wait()

    def _run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=120)

    def tool(self, name: str, **arguments: Any) -> dict[str, Any]:
        result = self._run(self._session.call_tool(name, arguments))
        assert not result.is_error, result.content
        return result.structured_content

    def add(self, text: str) -> str:
        return self.tool("add_memory", text=text, metadata={"channel": "flow"})["memory_id"]

    def search(self, query: str) -> list[Hit]:
        result = self._run(self._session.call_tool("search_memory", {"query": query}))
        if result.is_error and "is unknown" in result.content[0].text:
            return []  # a new scope is known once its first memory-add is indexed
        assert not result.is_error, result.content
        return [Hit(r["memory_id"], r["text"], r["consolidated"]) for r in result.structured_content["results"]]

    def trigger(self) -> str:
        return self.tool("trigger_dream", reason="flow")["request_id"]

    def correct(self, memory_id: str, text: str) -> str:
        return self.tool("correct_memory", memory_id=memory_id, text=text, by="flow-agent", reason="he moved it")[
            "correction_id"
        ]

    def history(self, memory_id: str) -> list[tuple[str | None, str | None, str | None]]:
        versions = self.tool("get_memory", memory_id=memory_id)["history"]
        return [(v["memory"]["text"] if v["memory"] else None, v["valid_from"], v["valid_to"]) for v in versions]

    def context(self, query: str, budget: int) -> tuple[str, int]:
        block = self.tool("memory_context", query=query, budget_tokens=budget)
        return block["text"], block["tokens"]

    def as_of(self, at: datetime) -> dict[str, str]:
        listed = self.tool("list_memories", limit=200, as_of=at.isoformat())
        return {m["memory_id"]: m["text"] for m in listed["memories"]}

    def close(self) -> None:
        if self._done is not None:
            self._loop.call_soon_threadsafe(self._done.set)
        self._runner.result(timeout=60)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def eventually(look: Callable[[], Any], what: str, timeout_s: float = FIND_S) -> Any:
    deadline = time.monotonic() + timeout_s
    while not (found := look()):
        assert time.monotonic() < deadline, what
        time.sleep(0.1)
    return found


def flow(driver, pipeline: LocalPipeline, person: str) -> None:
    memory_id = driver.add(f"{person} {OLD}")

    def fresh() -> list[Hit]:
        return [h for h in driver.search(f"where does {person} keep the kayak") if h.memory_id == memory_id]

    [hit] = eventually(fresh, "the memory-add never became searchable")
    assert hit.consolidated is False and OLD in hit.text

    [done] = pipeline.wait_for([driver.trigger()], timeout_s=WAIT_S)
    assert done.status == "completed", done
    [hit] = fresh()
    assert hit.consolidated is True, "the pass curated it, under the same id"

    before = datetime.now(UTC)
    time.sleep(0.05)
    [done] = pipeline.wait_for([driver.correct(memory_id, f"{person} {NEW}")], timeout_s=WAIT_S)
    assert done.status == "completed", done
    time.sleep(0.05)
    after = datetime.now(UTC)
    [hit] = fresh()
    assert NEW in hit.text and OLD not in hit.text

    history = [(text, start, end) for text, start, end in driver.history(memory_id) if text]
    assert [text for text, _, _ in history] == [f"{person} {OLD}", f"{person} {NEW}"]
    (_, old_from, old_to), (_, new_from, new_to) = history
    assert old_from and old_to and new_from and new_to is None, history
    assert old_to == new_from, "the old value held until the correction, the new one from then"

    text, tokens = driver.context(f"{person}'s kayak", 60)
    assert tokens <= 60 and estimated_tokens(text) <= 60, (tokens, text)
    assert NEW in text and OLD not in text

    assert driver.as_of(before)[memory_id] == f"{person} {OLD}"
    assert driver.as_of(after)[memory_id] == f"{person} {NEW}"


def test_the_flow_over_mcp_stdio(live):
    pipeline, url, settings = live
    driver = Mcp(url, "acme/kayak-bot/tomas", settings)
    try:
        assert driver.server.name == "dreamstream" and driver.server.version
        assert {"add_memory", "correct_memory", "memory_context", "get_memory"} <= set(driver.tools)
        flow(driver, pipeline, "Tomas")
    finally:
        driver.close()


def test_the_flow_through_the_python_client(live):
    pipeline, url, _ = live
    driver = PythonClient(url, "acme/kayak-bot/ines")
    try:
        flow(driver, pipeline, "Ines")
    finally:
        driver.close()


def test_the_flow_over_raw_http(live):
    pipeline, url, _ = live
    flow(Http(url, "acme/kayak-bot/oren"), pipeline, "Oren")
