"""A memory-add citing messages that are not its scope's never becomes a memory (issue 17: one in
scope A citing a message of scope B became A's memory with that evidence)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from consumers.runtime import open_runtime
from schemas import ConversationTurn, MemoryAdd
from schemas.settings import Settings
from tests.unit.feed import Feed

MINE, THEIRS = "acme/travel-bot/kim", "acme/travel-bot/lou"
AT = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)


def say(scope: str, message_id: str, content: str) -> ConversationTurn:
    return ConversationTurn(scope=scope, session_id="s1", message_id=message_id, role="user", content=content, ts=AT)


def note(memory_id: str, text: str, cites: tuple[str, ...]) -> MemoryAdd:
    return MemoryAdd(scope=MINE, memory_id=memory_id, text=text, ts=AT, source_message_ids=cites)


def test_an_add_borrowing_another_scopes_message_is_not_written_and_leaves_the_inbox(tmp_path: Path):
    rt = open_runtime(Settings(home=tmp_path, embedder="hashing"))
    try:
        feed = Feed(rt)
        feed.turns([say(MINE, "kim#1", "I collect old train tickets."), say(THEIRS, "lou#1", "My PIN is 4711.")])
        feed.adds(
            [
                note("kim-own", "Kim collects old train tickets", ("kim#1",)),
                note("kim-borrowed", "Kim's PIN is 4711", ("lou#1",)),
                note("kim-invented", "Kim owns a castle", ("kim#99",)),
            ]
        )
        result = feed.run(MINE)
        assert result.status == "completed", result.reason
        memories = {m.memory_id: m for m in rt.memories.active_records(MINE, include_inactive=True)}
        assert "kim-own" in memories and "kim-borrowed" not in memories and "kim-invented" not in memories
        assert not any("lou#1" in m.evidence_message_ids for m in memories.values())
        assert rt.transcripts.pending(MINE) == [], "refused adds are cleared, not left to pile up"
        [entry] = rt.diary.entries(MINE)
        notes = " ".join(entry.notes)
        assert "kim-borrowed not written" in notes and "not this scope's" in notes and "kim-invented" in notes
    finally:
        rt.close()
