"""The verify step's transcript search (`DreamPass._claim_search`): a claim is a stored memory, so
its search reuses the memory's stored vector instead of embedding its stamped text again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from consumers.runtime import open_runtime
from dreaming.store.search import embedding_text
from schemas import ConversationTurn
from schemas.settings import Settings
from tests.unit.feed import Feed

SCOPE = "acme/garden-bot/rui"
T0 = datetime(2026, 4, 2, 8, 0, tzinfo=UTC)
LINES = (
    "Hi, I'm Rui and I grow tomatoes on my balcony in Braga.",
    "My greenhouse heater broke during the frost on Monday.",
    "I water the basil every second morning before work.",
)


def turns(lines: tuple[str, ...], start: int = 0) -> list[ConversationTurn]:
    return [
        ConversationTurn(
            scope=SCOPE,
            session_id="s1",
            message_id=f"m{start + i}",
            role="user",
            content=text,
            ts=T0 + timedelta(minutes=start + i),
        )
        for i, text in enumerate(lines)
    ]


def test_a_stored_claim_is_searched_by_its_stored_vector_without_embedding(tmp_path: Path) -> None:
    rt = open_runtime(Settings(home=tmp_path, embedder="hashing"))
    try:
        feed = Feed(rt, SCOPE)
        feed.turns(turns(LINES))
        assert feed.run().status == "completed"
        memories = rt.memories.active_records(SCOPE)
        assert memories and all(m.text.startswith("[") for m in memories), "memory texts lead with their day"
        embedded: list[str] = []
        inner = rt.transcripts._embed

        def counting(texts):
            embedded.extend(texts)
            return inner(texts)

        rt.transcripts._embed = counting
        search = rt.dream_pass._claim_search(SCOPE, rt.memories.active_vectors(SCOPE))
        for m in memories:
            hits = search(SCOPE, m.text, 3)
            assert embedded == [], "a stored claim costs no embedding"
            expected = rt.transcripts.search(SCOPE, embedding_text(m.text), 3)  # its statement, embedded
            assert [t.message_id for t, _ in hits] == [t.message_id for t, _ in expected]
            assert np.allclose([s for _, s in hits], [s for _, s in expected], atol=1e-5)
            embedded.clear()
        search(SCOPE, "[2026-04-03] Rui bought a new heater for the greenhouse.", 3)
        assert embedded == ["Rui bought a new heater for the greenhouse."], "another text: its statement embedded"
        assert search("acme/garden-bot/other", memories[0].text, 3) == [], "another scope's messages only"
    finally:
        rt.close()


def test_a_later_pass_embeds_no_claim_text(tmp_path: Path) -> None:
    rt = open_runtime(Settings(home=tmp_path, embedder="hashing"))
    try:
        feed = Feed(rt, SCOPE)
        feed.turns(turns(LINES))
        assert feed.run().status == "completed"
        stamped = {m.text for m in rt.memories.active_records(SCOPE)}
        embedded: list[str] = []
        inner = rt.transcripts._embed

        def counting(texts):
            embedded.extend(texts)
            return inner(texts)

        rt.transcripts._embed = counting
        feed.turns(turns(("The new greenhouse heater keeps the tomatoes warm in Braga.",), start=len(LINES)))
        result = feed.run()
        assert result.status in ("completed", "no-op")
        assert not stamped & set(embedded), "no claim's stamped text was embedded"
        assert any("verify" in note and "claim" in note for note in result.notes), result.notes
    finally:
        rt.close()
