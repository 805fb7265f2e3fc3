"""The API's read path: its own bounded pool beside the worker (consumers/api/guard.py ReadPool),
a 429 with Retry-After at once when it is full, and reads that never wait for the worker's lock
on the embedded engine."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import UTC, datetime

import pytest
from aiohttp.test_utils import TestClient, TestServer

from consumers.api import ApiContext, StoreGuard, make_app
from consumers.api.guard import ReadPool, ReadsBusy
from dreaming.store import AppliedJob, Diary, GenerationInfo, MemoryStore
from dreaming.store.edge import EdgeClient
from dreaming.store.history import ScopeView
from schemas import MemoryRecord
from schemas.settings import Settings

SCOPE = "acme/bot/u1"
T0 = datetime(2026, 4, 1, tzinfo=UTC)
DIMS = 8


def embed(texts):
    return [[1.0 + (len(t) % (i + 2)) for i in range(DIMS)] for t in texts]


def test_a_full_pool_refuses_at_once_and_frees_its_places():
    async def scenario() -> None:
        pool = ReadPool(threads=1, queue=1)
        release = threading.Event()
        running = [asyncio.create_task(pool.run(release.wait)) for _ in range(2)]  # one runs, one waits
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        with pytest.raises(ReadsBusy):
            await pool.run(lambda: "never")
        assert time.perf_counter() - started < 0.05  # refused at once, not after a wait
        release.set()
        assert await asyncio.gather(*running) == [True, True]
        assert await pool.run(lambda: "answered") == "answered"
        assert pool.refused == 1
        pool.close()

    asyncio.run(scenario())


def test_a_read_that_would_wait_longer_than_the_budget_is_refused_at_once():
    async def scenario() -> None:
        pool = ReadPool(threads=1, queue=10, wait_s=0.05)
        await pool.run(lambda: time.sleep(0.2))  # reads take 0.2 s here
        release = threading.Event()
        running = asyncio.create_task(pool.run(release.wait))
        await asyncio.sleep(0.02)
        with pytest.raises(ReadsBusy):  # room in the queue, but it would wait ~0.2 s > 0.05 s
            await pool.run(lambda: "never")
        release.set()
        await running
        pool.close()

    asyncio.run(scenario())


@pytest.fixture
def view(tmp_path):
    client = EdgeClient(tmp_path / "edge")
    memories = MemoryStore(client, "test", DIMS, embed, generations_kept=3)
    records = [
        MemoryRecord(
            scope=SCOPE,
            memory_id=f"m{i}",
            text=f"fact number {i}",
            origin="transcript",
            evidence_message_ids=("x",),
            created_at=T0,
            updated_at=T0,
        )
        for i in range(30)
    ]
    for job in ("j1", "j2"):
        state = memories.state(SCOPE)
        memories.write_candidate(SCOPE, state.next_generation, records)
        info = GenerationInfo(generation=state.next_generation, job_id=job, status="active", created_at=T0)
        memories.promote(state, info, AppliedJob(job_id=job, outcome="completed", generation=info.generation))
    yield ScopeView(memories, Diary(client, "test"))
    client.close()


def _context(view: ScopeView, lock: threading.RLock, reads: ReadPool) -> ApiContext:
    return ApiContext(
        Settings(),
        view,
        lambda: None,
        lambda: True,
        StoreGuard(lock, wait_s=0.2),
        lambda scope, reason: "req-1",
        reads=reads,
    )


def test_reads_answer_while_the_worker_holds_its_lock_and_a_full_queue_is_429(view):
    lock = threading.RLock()
    release = threading.Event()

    async def scenario() -> None:
        reads = ReadPool(threads=1, queue=0)
        async with TestClient(TestServer(make_app(_context(view, lock, reads)))) as client:
            holder = threading.Thread(target=lambda: (lock.acquire(), release.wait(), lock.release()))
            holder.start()  # the worker, in the middle of a pass
            try:
                response = await client.get(f"/scopes/{SCOPE}/memories/m3")
                body = await response.json()
                assert response.status == 200 and body["memory"]["text"] == "fact number 3"
                assert [v["generation"] for v in body["history"]] == [1, 2]
                page = await (await client.get(f"/scopes/{SCOPE}/memories?limit=10&cursor=2:20")).json()
                assert [m["memory_id"] for m in page["memories"]] == sorted(f"m{i}" for i in range(30))[20:30]
                # Fill the one read thread; the next read is refused at once, with Retry-After.
                blocker = threading.Event()
                busy = asyncio.ensure_future(reads.run(blocker.wait))
                await asyncio.sleep(0.05)
                refused = await client.get(f"/scopes/{SCOPE}/generations")
                assert refused.status == 429 and refused.headers["Retry-After"] == "1"
                assert "retry" in (await refused.json())["error"]
                blocker.set()
                await busy
            finally:
                release.set()
                holder.join()
            reads.close()

    asyncio.run(scenario())
