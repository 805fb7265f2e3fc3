"""A pass is a unit of failure: whatever goes wrong inside it (dates, engine, store data) ends it
as `failed` with the error as the reason, memory stays as it was, and the next job runs. Only a
store that cannot be reached escapes, as StoreUnavailable, for the worker to retry."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from qdrant_client.http.exceptions import ResponseHandlingException

from consumers.runtime import open_runtime
from dreaming.engine import EngineResult
from dreaming.store.transient import StoreUnavailable
from schemas import ConversationTurn, MemoryAdd
from schemas.settings import Settings
from tests.unit.feed import Feed

SCOPE, SIBLING = "acme/support-bot/u1", "acme/support-bot/u2"


def turn(scope: str, index: int, content: str, when: str) -> ConversationTurn:
    return ConversationTurn(
        scope=scope,
        session_id="s",
        message_id=f"s#{index}",
        role="user",
        content=content,
        ts=datetime.fromisoformat(when),
    )


@pytest.fixture
def runtime(tmp_path: Path):
    rt = open_runtime(Settings(home=tmp_path))
    yield rt
    rt.close()


def records(rt, scope):
    return rt.memories.active_records(scope, include_inactive=True)


# The dates of issue 10: each once crash-looped the worker with OverflowError.
POISON_TURNS = [
    ("9999-12-31T23:00:00+00:00", "I fly to Oslo tomorrow"),
    ("0001-01-01T00:30:00+00:00", "I flew to Oslo yesterday"),
    ("9999-12-25T10:00:00+00:00", "I move to Bergen in three weeks"),
    ("9999-12-31T10:00:00+00:00", "I start the new job next month"),
]


@pytest.mark.parametrize(("when", "content"), POISON_TURNS, ids=[w[:10] for w, _ in POISON_TURNS])
def test_an_out_of_range_date_fails_the_pass_not_the_worker(runtime, when, content):
    feed = Feed(runtime, SCOPE)
    feed.turns([turn(SCOPE, 0, "I prefer aisle seats", "2026-05-01T10:00:00+00:00")])
    assert feed.run().status == "completed"
    before = records(runtime, SCOPE)
    feed.turns([turn(SCOPE, 1, content, when)])

    result = feed.run()

    assert result.status in ("failed", "completed", "no-op"), result.reason
    if result.status == "failed":
        assert "out of range" in result.reason and result.reason.startswith("pass failed during")
        assert result.events[0].status == "failed" and len(result.events) == 1
        assert records(runtime, SCOPE) == before, "a failed pass leaves memory as it was"
        entry = runtime.diary.get(SCOPE, result.job.job_id)
        assert entry is not None and entry.status == "failed"
        assert runtime.memories.state(SCOPE).applied(result.job.job_id).outcome == "failed"
    # The next job (another scope, then this scope's redelivery) runs normally.
    sibling = Feed(runtime, SIBLING)
    sibling.offset = feed.offset
    sibling.turns([turn(SIBLING, 0, "I prefer window seats", "2026-05-01T10:00:00+00:00")])
    assert sibling.run().status == "completed"
    assert runtime.dream_pass.run(result.job).status == "duplicate"


def test_a_far_future_date_now_keeps_its_words_instead_of_failing(runtime):
    """The date layer no longer overflows (language.dates keeps the words it cannot place on the
    calendar); the failure path above stays covered by the exploding engines below."""
    feed = Feed(runtime, SCOPE)
    feed.turns([turn(SCOPE, 1, *reversed(POISON_TURNS[0]))])
    result = feed.run()
    assert result.status == "completed", result.reason
    assert any("tomorrow" in m.text for m in records(runtime, SCOPE))


def test_a_far_future_memory_add_fails_only_its_pass(runtime):
    feed = Feed(runtime, SCOPE)
    feed.adds(
        [
            MemoryAdd(
                scope=SCOPE,
                memory_id="add-1",
                text="Ava flies to Oslo tomorrow",
                ts=datetime.fromisoformat("9999-12-31T23:00:00+00:00"),
            )
        ]
    )
    result = feed.run()
    assert result.status in ("failed", "completed"), result.reason
    if result.status == "failed":
        assert records(runtime, SCOPE) == []


class ExplodingEngine:
    name = "exploding"

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def propose(self, snapshot, signals) -> EngineResult:
        raise self.error


@pytest.mark.parametrize(
    "error",
    [KeyError("memory_id"), ZeroDivisionError("division by zero"), RuntimeError("model answered in Klingon")],
    ids=lambda e: type(e).__name__,
)
def test_any_engine_exception_is_a_failed_outcome(tmp_path: Path, error):
    rt = open_runtime(Settings(home=tmp_path), engine=ExplodingEngine(error))
    try:
        feed = Feed(rt, SCOPE)
        feed.turns([turn(SCOPE, 0, "I prefer aisle seats", "2026-05-01T10:00:00+00:00")])
        result = feed.run()
        assert result.status == "failed" and type(error).__name__ in result.reason
        assert records(rt, SCOPE) == [] and rt.memories.state(SCOPE).active_generation == 0
    finally:
        rt.close()


def test_an_unreachable_store_is_raised_for_the_worker_to_retry(runtime, monkeypatch):
    feed = Feed(runtime, SCOPE)
    feed.turns([turn(SCOPE, 0, "I prefer aisle seats", "2026-05-01T10:00:00+00:00")])
    job = feed.job()

    def refused(*args, **kwargs):
        raise ResponseHandlingException(ConnectionRefusedError("connection refused"))

    with monkeypatch.context() as patch:
        patch.setattr(runtime.memories, "write_candidate", refused)
        with pytest.raises(StoreUnavailable, match="during write"):
            runtime.dream_pass.run(job)
    assert runtime.memories.state(SCOPE).applied(job.job_id) is None, "not recorded: the job is retried"
    assert runtime.dream_pass.run(job).status == "completed", "the retry runs it in full"
