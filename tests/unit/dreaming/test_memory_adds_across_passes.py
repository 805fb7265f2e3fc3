"""Memory-adds an agent sends just after the message they note, with the pass boundaries in
different places: the add in the same pass as its message, or in the next one. What the walk does
with an add it meets (a statement the add already says, no value more, is not made again) happens
too when the add comes a pass later (the statement's memory is folded into the add), and a memory
the walk made is never merged into a later add as a paraphrase, which one pass never does
(sentences written for these tests)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from consumers.runtime import open_runtime
from dreamstream_tools.evaluation.dataset import Dataset
from dreamstream_tools.evaluation.runner import dream_directly
from schemas import ConversationTurn, MemoryAdd
from schemas.settings import Settings
from tests.unit.dreaming.test_corrections_across_passes import conversation

SCOPE = "probe/shelter/rosa"
CHAT = [
    ("Rosa", "I started volunteering at the animal shelter on Saturdays."),
    ("Ben", "That's great. I coach a youth football team on Sundays."),
    ("Rosa", "I'm always here for you, no matter what happens with the team."),
    None,
    ("Rosa", "I support you fully, and I believe in you."),
    ("Ben", "Thanks, Rosa. I moved football practice to Tuesdays."),
]
NOTES = {
    "c0:0": "Rosa volunteers at the animal shelter on Saturdays.",
    "c1:0": "Rosa supports Ben and believes in him.",
    "c1:1": "Ben moved football practice to Tuesdays.",
}
Store = frozenset[tuple[str, tuple[str, ...], str]]
"""(text, evidence, origin) of the active memories."""


def adds_for(turns: list[ConversationTurn]) -> tuple[MemoryAdd, ...]:
    said = {t.message_id: t for t in turns}
    return tuple(
        MemoryAdd(
            scope=SCOPE,
            memory_id=f"add-{message_id}",
            text=text,
            ts=said[message_id].ts + timedelta(seconds=1),
            source_message_ids=(message_id,),
        )
        for message_id, text in NOTES.items()
    )


def dream(tmp_path: Path, pass_every: int) -> Store:
    turns = conversation(SCOPE, CHAT, named=True)
    runtime = open_runtime(Settings(home=tmp_path, embedder="minilm"), client=QdrantClient(location=":memory:"))
    try:
        dream_directly(runtime, Dataset(tuple(turns), adds_for(turns), ()), pass_every)
        return frozenset(
            (m.text, tuple(sorted(m.evidence_message_ids)), m.origin) for m in runtime.memories.active_records(SCOPE)
        )
    finally:
        runtime.close()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Store]:
    return {every: dream(tmp_path_factory.mktemp(f"every{every}"), every) for every in (0, 1, 2, 3)}


def test_the_store_is_the_same_wherever_the_pass_boundaries_fall(runs: dict[int, Store]) -> None:
    for every, store in runs.items():
        assert store == runs[0], f"a pass every {every} events ended otherwise"


def test_a_statement_the_add_says_is_one_memory_the_add(runs: dict[int, Store]) -> None:
    for store in runs.values():
        shelter = [(text, origin) for text, _, origin in store if "shelter" in text]
        assert len(shelter) == 1 and shelter[0][1] == "memory_add", shelter


def test_what_was_said_on_another_day_keeps_its_own_memory(runs: dict[int, Store]) -> None:
    for store in runs.values():
        assert [e for t, e, _ in store if "no matter what" in t] == [("c0:2",)]
