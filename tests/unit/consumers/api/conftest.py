"""The API application (`consumers.api.make_app`) served on a loopback port by aiohttp's test
server (its loop in a thread of its own, so any client can reach `api.url`), over a real runtime
on embedded Qdrant in a temporary directory; no Kafka (a trigger records its request instead of
producing it)."""

from __future__ import annotations

import asyncio
import json
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from consumers.api import ApiContext, StoreGuard, make_app
from consumers.runtime import open_runtime
from dreaming.store import AppliedJob, GenerationInfo
from dreaming.store.history import ScopeView
from schemas import MemoryAdd, MemoryRecord
from schemas.settings import Settings

T0 = datetime(2026, 3, 5, tzinfo=UTC)


def memory(scope: str, memory_id: str, text: str, **fields: Any) -> MemoryRecord:
    defaults: dict[str, Any] = {
        "origin": "transcript",
        "evidence_message_ids": ("m1",),
        "created_at": T0,
        "updated_at": T0,
    }
    return MemoryRecord(scope=scope, memory_id=memory_id, text=text, **{**defaults, **fields})


def memory_add(scope: str, memory_id: str, text: str, hours: int = 0, **fields: Any) -> MemoryAdd:
    return MemoryAdd(scope=scope, memory_id=memory_id, text=text, ts=T0 + timedelta(hours=hours), **fields)


class Api:
    """Blocking requests against the app: `get(path)` -> (status, body)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.runtime = open_runtime(settings)
        self.triggered: list[tuple[str, str]] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="api-under-test", daemon=True)
        self._thread.start()

        def trigger(scope: str, reason: str) -> str:
            self.triggered.append((scope, reason))
            return f"req-{len(self.triggered)}"

        self.app = make_app(
            ApiContext(
                settings,
                ScopeView(self.runtime.memories, self.runtime.diary),
                lambda: None,
                lambda: True,
                StoreGuard(self.runtime.lock),
                trigger,
                messages=self.runtime.transcripts.messages,
            )
        )

        async def start() -> TestClient:
            client = TestClient(TestServer(self.app))
            await client.start_server()
            return client

        self._client = self._run(start())
        self.url = str(self._client.make_url("")).rstrip("/")

    def _run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=60)

    def promote(self, scope: str, records: list[MemoryRecord]) -> int:
        store = self.runtime.memories
        state = store.state(scope)
        number = state.next_generation
        store.write_candidate(scope, number, records)
        job = f"job-{number}"
        info = GenerationInfo(generation=number, job_id=job, status="active", created_at=T0, memories_active=1)
        store.promote(state, info, AppliedJob(job_id=job, outcome="completed", generation=number))
        return number

    def add_pending(self, *adds: MemoryAdd) -> None:
        self.runtime.transcripts.add_pending(adds)

    def request(self, method: str, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
        async def call() -> tuple[int, Any]:
            data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
            response = await self._client.request(method, path, data=data, headers=headers)
            return response.status, await response.json()

        return self._run(call())

    def get(self, path: str, **headers: str) -> tuple[int, Any]:
        return self.request("GET", path, **headers)

    def close(self) -> None:
        self._run(self._client.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
        self.runtime.close()


@pytest.fixture
def make_api(tmp_path):
    made: list[Api] = []

    def make(**overrides: Any) -> Api:
        settings = Settings(home=tmp_path / f"home{len(made)}", embedder="hashing", **overrides)
        made.append(Api(settings))
        return made[-1]

    yield make
    for api in made:
        api.close()


@pytest.fixture
def api(make_api) -> Api:
    return make_api()
