"""Paraphrase merges and supersessions through the whole dream pass, with the pass boundaries in
different places: one pass over a chat, one pass per message, and passes of two and three
messages. The active memories (text and evidence) and what superseded what must be the same
whichever pass read which message (issue 18: merging used to depend on the boundaries, since
only memories an earlier pass wrote were ever merged)."""

from __future__ import annotations

from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from consumers.runtime import open_runtime
from dreamstream_tools.evaluation.dataset import Dataset
from dreamstream_tools.evaluation.runner import dream_directly
from language.dates import without_stamp
from schemas import ConversationTurn
from schemas.settings import Settings
from tests.unit.dreaming.test_corrections_across_passes import conversation

SCOPE = "probe/workshop/tomas"
CHAT = [
    ("Tomas", "I restore old motorbikes in my garage on weekends."),
    ("Ines", "That sounds like a lovely hobby. I paint watercolours of harbours."),
    None,
    ("Tomas", "My garage is on Elm Street, behind the bakery."),
    ("Ines", "I paint harbours in watercolour, mostly at dawn."),
    None,
    ("Tomas", "I restore old motorbikes in my garage on weekends, right now a 1972 Honda."),
    ("Ines", "My sister lives in Lisbon and teaches chemistry."),
    None,
    ("Tomas", "My cousin lives in Lisbon and teaches chemistry."),
    ("Ines", "I paint watercolours of harbours."),
    None,
    ("Tomas", "Actually, the garage is on Birch Street now, not Elm Street."),
    ("Ines", "Good luck with the move."),
]
Outcome = tuple[frozenset[tuple[str, tuple[str, ...]]], frozenset[tuple[str, str]]]
"""(text, evidence) of the active memories; (old text, new text) of each supersession."""


def dream(tmp_path: Path, turns: list[ConversationTurn], pass_every: int, scope: str = SCOPE) -> Outcome:
    runtime = open_runtime(Settings(home=tmp_path, embedder="minilm"), client=QdrantClient(location=":memory:"))
    try:
        dream_directly(runtime, Dataset(tuple(turns), (), ()), pass_every)
        records = {m.memory_id: m for m in runtime.memories.active_records(scope, include_inactive=True)}
        active = frozenset((m.text, tuple(sorted(m.evidence_message_ids))) for m in records.values() if m.is_active)
        superseded = frozenset(
            (m.text, records[m.superseded_by].text)
            for m in records.values()
            if m.status == "superseded" and m.superseded_by in records
        )
        return active, superseded
    finally:
        runtime.close()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Outcome]:
    turns = conversation(SCOPE, CHAT, named=True)
    return {every: dream(tmp_path_factory.mktemp(f"every{every}"), turns, every) for every in (0, 1, 2, 3)}


def test_the_store_is_the_same_wherever_the_pass_boundaries_fall(runs: dict[int, Outcome]) -> None:
    one_pass = runs[0]
    for every, outcome in runs.items():
        assert outcome == one_pass, f"a pass every {every} messages ended otherwise"


def test_a_paraphrase_said_in_a_later_pass_grows_the_memory_an_earlier_one_wrote(runs: dict[int, Outcome]) -> None:
    active, _ = runs[2]
    bikes = [(text, evidence) for text, evidence in active if "motorbikes" in text]
    assert len(bikes) == 1, bikes
    [(text, evidence)] = bikes
    assert "1972 Honda" in text, "the value the paraphrase adds is kept"
    assert evidence == ("c0:0", "c2:0")
    painting = sorted(e for t, e in active if "watercolour" in t)
    # "…, mostly at dawn" says more than the memory beyond its values: merged, a reader would lose it.
    assert painting == [("c0:1",), ("c1:1",)], "a rewording that says more keeps its own memory"


def test_statements_about_different_people_are_not_merged(runs: dict[int, Outcome]) -> None:
    active, _ = runs[1]
    lisbon = sorted(without_stamp(text) for text, _ in active if "Lisbon" in text)
    assert lisbon == [
        "Ines's sister lives in Lisbon and teaches chemistry.",
        "Tomas's cousin lives in Lisbon and teaches chemistry.",
    ]


def test_a_correction_supersedes_the_memory_whichever_pass_wrote_it(runs: dict[int, Outcome]) -> None:
    for every, (active, superseded) in runs.items():
        assert [old for old, new in superseded if "Elm Street" in old and "Birch Street" in new], every
        assert not [t for t, _ in active if "Elm Street" in t and "Birch Street" not in t], every
