"""An operator protects a memory (the function the CLI/API call): a new generation that differs in
the one flag, promoted, recorded in the diary with who and why; a plan may not touch it after."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from consumers.protect import ProtectRefused, set_protected
from consumers.runtime import open_runtime
from schemas import ConversationTurn
from schemas.settings import Settings
from tests.unit.feed import Feed

SCOPE = "acme/support-bot/u1"


def say(index: int, content: str) -> ConversationTurn:
    return ConversationTurn(
        scope=SCOPE,
        session_id="s",
        message_id=f"s#{index}",
        role="user",
        content=content,
        ts=datetime(2026, 5, 1, 10, index, tzinfo=UTC),
    )


@pytest.fixture
def runtime(tmp_path: Path):
    rt = open_runtime(Settings(home=tmp_path))
    yield rt
    rt.close()


def test_an_operator_protects_a_memory_and_the_pass_cannot_change_it(runtime):
    feed = Feed(runtime, SCOPE)
    feed.turns([say(0, "I prefer window seats")])
    assert feed.run().status == "completed"
    [memory] = runtime.memories.active_records(SCOPE)
    generation = runtime.memories.state(SCOPE).active_generation

    entry = set_protected(runtime, SCOPE, memory.memory_id, True, by="oncall@acme", reason="customer asked")

    state = runtime.memories.state(SCOPE)
    assert state.active_generation == generation + 1 and entry.generation == state.active_generation
    [now] = runtime.memories.active_records(SCOPE)
    assert now.protected and now.text == memory.text
    assert "by oncall@acme: customer asked" in runtime.diary.get(SCOPE, entry.job_id).reason
    feed.turns([say(1, "No, aisle, not window.")])
    result = feed.run()
    assert result.status in ("quarantined", "completed", "no-op"), result.reason
    assert any(
        m.memory_id == memory.memory_id and m.protected and m.is_active for m in runtime.memories.active_records(SCOPE)
    )
    again = set_protected(runtime, SCOPE, memory.memory_id, True, by="oncall@acme")
    assert again.generation is None and "already protected" in again.notes[0]


def test_protecting_needs_an_operator_and_a_memory(runtime):
    with pytest.raises(ProtectRefused, match="operator"):
        set_protected(runtime, SCOPE, "m1", True, by=" ")
    with pytest.raises(ProtectRefused, match="no active memory"):
        set_protected(runtime, SCOPE, "m1", True, by="ops")
