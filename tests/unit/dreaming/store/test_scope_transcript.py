"""Transcript vectors made by the pass (`transcript_vectors=statements`): the index step embeds
nothing, a message takes its statements' vectors, a message no statement came from is embedded
when a search first needs it, and what was made is written back in one store write."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from dreaming.store import TranscriptStore, open_qdrant
from dreaming.store.client import point_id
from dreaming.store.scope_transcript import unit_mean
from schemas import ConversationTurn
from schemas.settings import Settings

SCOPE = "acme/kiln-bot/ines"
T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
DIMS = 8
LINES = (
    "My kiln in the garage reaches 1240 degrees now.",
    "I glaze the bowls with a blue ash recipe.",
    "Ha, fair enough.",
)


def turns() -> list[ConversationTurn]:
    return [
        ConversationTurn(
            scope=SCOPE, session_id="s1", message_id=f"m{i}", role="user", content=text, ts=T0 + timedelta(minutes=i)
        )
        for i, text in enumerate(LINES)
    ]


def unit(*values: float) -> np.ndarray:
    row = np.asarray(values, dtype=np.float32)
    return row / np.linalg.norm(row)


class CountingEmbed:
    """A deterministic embedder that records every text it is asked for."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts):
        self.texts.extend(texts)
        return [unit(*(1.0 + (len(t) * (i + 1)) % 5 for i in range(DIMS))).tolist() for t in texts]


class CountingClient:
    def __init__(self, inner) -> None:
        self.inner, self.calls = inner, Counter()

    def __getattr__(self, name):
        self.calls[name] += 1
        return getattr(self.inner, name)


@pytest.fixture
def client(tmp_path: Path):
    opened = open_qdrant(Settings(home=tmp_path))
    yield opened
    opened.close()


def stored(client, scope: str, message_id: str):
    found = client.retrieve(
        "t_transcripts", [point_id("turn", scope, message_id)], with_payload=True, with_vectors=True
    )
    return np.asarray(found[0].vector, dtype=np.float32), found[0].payload["vector_from"]


def test_the_index_step_embeds_nothing_and_flags_each_vector_as_owed(client) -> None:
    embed = CountingEmbed()
    store = TranscriptStore(client, "t", DIMS, embed, embed_on_index=False)
    store.index_turns([(t, i) for i, t in enumerate(turns())])
    assert embed.texts == []
    vector, origin = stored(client, SCOPE, "m0")
    assert origin == "none" and not vector.any()
    assert store.owed_messages(SCOPE) == {"m0", "m1", "m2"}
    assert [t.message_id for t, _ in store.window(SCOPE, 10)] == ["m0", "m1", "m2"], "the window needs no vector"
    assert embed.texts == []


def test_embed_mode_embeds_each_turn_at_indexing_as_before(client) -> None:
    embed = CountingEmbed()
    store = TranscriptStore(client, "t", DIMS, embed, embed_on_index=True)
    store.index_turns([(t, i) for i, t in enumerate(turns())])
    assert embed.texts == list(LINES)
    assert stored(client, SCOPE, "m0")[1] == "text" and store.owed_messages(SCOPE) == set()
    assert store.fill_from_statements(SCOPE, {"m0": np.stack([unit(*range(1, DIMS + 1))])}) == 0


def test_statements_fill_a_message_and_a_search_embeds_only_the_ones_left_once(client) -> None:
    embed = CountingEmbed()
    store = TranscriptStore(client, "t", DIMS, embed, embed_on_index=False)
    store.index_turns([(t, i) for i, t in enumerate(turns())])
    a, b = unit(*range(1, DIMS + 1)), unit(*range(DIMS, 0, -1))
    assert store.fill_from_statements(SCOPE, {"m0": np.stack([a, b]), "m1": np.stack([b]), "m9": np.stack([a])}) == 2
    assert store.owed_messages(SCOPE) == {"m2"}, "an unknown message id is no message of the scope"
    assert np.allclose(store.message_vectors(SCOPE, ["m0"])[0], unit_mean(np.stack([a, b])))
    assert embed.texts == ["Ha, fair enough."], "only the message no statement came from is embedded"
    hits = store.nearest(SCOPE, np.asarray(embed(["Ha, fair enough."])[0]), 1)
    assert hits[0][0].message_id == "m2", "a message with no statement is still found"
    embed.texts.clear()
    store.search(SCOPE, "blue ash glaze", 2)
    assert embed.texts == ["blue ash glaze"], "the owed vectors were made once"


def test_what_a_pass_made_is_written_in_one_store_write_and_read_back_as_made(client) -> None:
    counting = CountingClient(client)
    store = TranscriptStore(counting, "t", DIMS, CountingEmbed(), embed_on_index=False)
    store.index_turns([(t, i) for i, t in enumerate(turns())])
    a = unit(*range(1, DIMS + 1))
    store.fill_from_statements(SCOPE, {"m0": np.stack([a])})
    store.message_vectors(SCOPE, ["m1"])  # a search: m1 and m2 embedded from their text
    counting.calls.clear()
    assert store.flush_vectors(SCOPE) == 3
    assert counting.calls["upsert"] == 1
    assert store.flush_vectors(SCOPE) == 0, "nothing left to write"
    vector, origin = stored(client, SCOPE, "m0")
    assert origin == "statements" and np.allclose(vector, a, atol=1e-6)
    assert stored(client, SCOPE, "m2")[1] == "text"
    offsets = [o for _, o in store.window(SCOPE, 10)]
    embed = CountingEmbed()
    reopened = TranscriptStore(client, "t", DIMS, embed, embed_on_index=False)
    assert reopened.owed_messages(SCOPE) == set() and [o for _, o in reopened.window(SCOPE, 10)] == offsets
    reopened.nearest(SCOPE, a, 3)
    assert embed.texts == [], "vectors written back are not made again"


def test_vectors_never_written_are_dropped_and_made_again_when_needed(client) -> None:
    embed = CountingEmbed()
    store = TranscriptStore(client, "t", DIMS, embed, embed_on_index=False)
    store.index_turns([(t, i) for i, t in enumerate(turns())])
    store.fill_from_statements(SCOPE, {"m0": np.stack([unit(*range(1, DIMS + 1))])})
    store.forget_unflushed(SCOPE)
    assert stored(client, SCOPE, "m0")[1] == "none"
    assert store.owed_messages(SCOPE) == {"m0", "m1", "m2"}
    store.nearest(SCOPE, unit(*range(1, DIMS + 1)), 1)
    assert sorted(embed.texts) == sorted(LINES)


def test_evidence_memory_vectors_need_the_index_step_to_embed() -> None:
    assert not Settings().index_embeds_turns, "statements is the default"
    assert Settings(transcript_vectors="embed").index_embeds_turns
    assert Settings(memory_vectors="evidence").index_embeds_turns
