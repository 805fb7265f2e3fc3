"""The process's stores take their width from the embedder the settings choose, never from a
separate setting that could disagree with the model."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from consumers.runtime import open_runtime
from dreamstream.cli_common import open_stores
from schemas import ConversationTurn
from schemas.settings import Settings


def widths(client, *collections: str) -> set[int]:
    return {client.get_collection(name).config.params.vectors.size for name in collections}


@pytest.mark.parametrize(("embedder", "expected"), [("minilm", 384), ("hashing", 64)])
def test_runtime_and_cli_stores_are_as_wide_as_the_embedder(tmp_path: Path, embedder: str, expected: int) -> None:
    settings = Settings(home=tmp_path, embedder=embedder, embedding_dims=64)
    runtime = open_runtime(settings)
    try:
        assert widths(runtime.client, runtime.memories.memories, runtime.transcripts.transcripts) == {expected}
    finally:
        runtime.close()
    stores = open_stores(settings.model_copy(update={"home": tmp_path / "cli"}))
    try:
        assert widths(stores.client, stores.memories.memories, stores.transcripts.transcripts) == {expected}
    finally:
        stores.close()


def test_transcript_search_finds_a_paraphrase_through_minilm(tmp_path: Path) -> None:
    runtime = open_runtime(Settings(home=tmp_path))  # the default embedder
    scope = "acme/helper/u7"
    said = [
        "I never eat meat, not even fish.",
        "The printer on floor two jams every morning.",
        "My daughter starts school in September.",
    ]
    turns = [
        (
            ConversationTurn(
                scope=scope,
                session_id="s1",
                message_id=f"m{i}",
                role="user",
                content=text,
                ts=datetime(2026, 4, 1, 9, i, tzinfo=UTC),
            ),
            i,
        )
        for i, text in enumerate(said)
    ]
    try:
        runtime.transcripts.index_turns(turns)
        hits = runtime.transcripts.search(scope, "Is the user vegetarian?", k=3)
        assert hits[0][0].message_id == "m0" and hits[0][1] > hits[1][1] + 0.2
    finally:
        runtime.close()
