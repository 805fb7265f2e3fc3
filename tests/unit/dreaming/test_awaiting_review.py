"""`dreamstream_generations_awaiting_review{tenant}` on every store backend (the embedded engine,
qdrant-client's local mode, a server when QDRANT_URL is set): counted while a quarantine waits, 0
after approve or reject, derived from the store after a restart, and brought in step with what
another process decided."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from prometheus_client import REGISTRY

from dreaming.awaiting_review import REFRESH_S, AwaitingReview
from dreaming.forget import forget_scope
from dreaming.store import AppliedJob, Diary, GenerationInfo, MemoryStore, TranscriptStore
from dreaming.store import quarantine as decisions
from dreaming.store.client import StoreClient
from schemas import MemoryRecord

T0 = datetime(2026, 3, 5, tzinfo=UTC)
DIMS = 8


def embed(texts):
    return [[float(len(t) % (i + 3)) + 1.0 for i in range(DIMS)] for t in texts]


def gauge(tenant: str) -> float | None:
    return REGISTRY.get_sample_value("dreamstream_generations_awaiting_review", {"tenant": tenant})


class Process:
    """One process's stores on the shared Qdrant directory, with its own gauge tracker."""

    def __init__(self, client: StoreClient, kept: int = 4) -> None:
        self.memories = MemoryStore(client, "test", DIMS, embed, generations_kept=kept)
        self.transcripts = TranscriptStore(client, "test", DIMS, embed)
        self.diary = Diary(client, "test")
        self.review = AwaitingReview()
        self.memories.on_state = self.review.observe

    def write(self, scope: str, status: str) -> int:
        state = self.memories.state(scope)
        number = state.next_generation
        record = MemoryRecord(
            scope=scope, memory_id="m1", text=f"fact {number}", origin="transcript", created_at=T0, updated_at=T0
        )
        self.memories.write_candidate(scope, number, [record])
        info = GenerationInfo(generation=number, job_id=f"job-{number}", status=status, created_at=T0, reason="[x] y")
        applied = AppliedJob(job_id=f"job-{number}", outcome="completed", generation=number)
        if status == "active":
            self.memories.promote(state, info, applied)
        else:
            self.memories.record_quarantine(state, info, applied)
        return number


@pytest.fixture
def client(store_client):
    return store_client


def test_a_quarantine_counts_while_it_waits_and_approve_or_reject_bring_it_to_zero(client):
    worker = Process(client)
    worker.review.load(worker.memories)
    worker.write("rev-a/bot/u1", "active")
    assert gauge("rev-a") == 0  # a tenant seen gets its series at 0
    first = worker.write("rev-a/bot/u1", "quarantined")
    second = worker.write("rev-a/bot/u2", "quarantined")
    assert gauge("rev-a") == 2
    decisions.approve(
        worker.memories, worker.transcripts, worker.diary, "rev-a/bot/u1", first, "oncall", "checked", force=True
    )
    assert gauge("rev-a") == 1
    decisions.reject(worker.memories, worker.diary, "rev-a/bot/u2", second, "oncall", "not the user's")
    assert gauge("rev-a") == 0
    assert worker.review.by_tenant() == {"rev-a": 0}


def test_after_a_restart_the_gauge_is_derived_from_the_store(client):
    before = Process(client)
    before.write("rev-b/bot/u1", "active")
    before.write("rev-b/bot/u1", "quarantined")
    before.write("rev-b/bot/u1", "quarantined")
    before.write("rev-c/bot/u1", "active")
    restarted = Process(client)
    restarted.review.load(restarted.memories)
    assert restarted.review.by_tenant() == {"rev-b": 2, "rev-c": 0}
    assert gauge("rev-b") == 2 and gauge("rev-c") == 0


def test_a_refresh_brings_in_another_processes_decision_and_keeps_this_ones_newer_writes(client):
    worker, cli = Process(client), Process(client)
    quarantined = worker.write("rev-d/bot/u1", "quarantined")
    worker.review.load(worker.memories)
    assert gauge("rev-d") == 1
    decisions.reject(cli.memories, cli.diary, "rev-d/bot/u1", quarantined, "cli-user", "spam")
    assert gauge("rev-d") == 0  # the other process's own tracker (the same registry in this test)
    worker.write("rev-d/bot/u2", "quarantined")  # the worker's own write: seen at once
    assert worker.review.by_tenant() == {"rev-d": 2}  # u1's reject not seen yet by the worker
    assert worker.review.due(now=REFRESH_S * 10**6)
    worker.review.update(worker.memories)
    assert worker.review.by_tenant() == {"rev-d": 1}
    assert not worker.review.due()


def test_a_write_during_a_refresh_is_not_undone_by_what_the_refresh_read(client):
    worker = Process(client)
    worker.review.load(worker.memories)
    real = worker.memories.awaiting_review

    def read_then_race():
        seen = real()
        worker.write("rev-e/bot/u1", "quarantined")  # lands after the store was read
        return seen

    worker.memories.awaiting_review = read_then_race  # type: ignore[method-assign]
    worker.review.refresh(worker.memories)
    assert worker.review.by_tenant()["rev-e"] == 1


def test_forget_and_dropped_generations_leave_nothing_waiting(client):
    worker = Process(client, kept=2)
    worker.review.load(worker.memories)
    worker.write("rev-f/bot/u1", "quarantined")
    worker.write("rev-f/bot/u2", "active")
    worker.write("rev-f/bot/u2", "quarantined")
    assert gauge("rev-f") == 2
    forget_scope(client, worker.memories, worker.transcripts, worker.diary, "rev-f/bot/u1")
    assert gauge("rev-f") == 1
    worker.write("rev-f/bot/u2", "active")
    worker.write("rev-f/bot/u2", "active")  # generations_kept=2: the quarantined one is dropped
    assert gauge("rev-f") == 0
    assert worker.memories.awaiting_review("rev-f") == {}
