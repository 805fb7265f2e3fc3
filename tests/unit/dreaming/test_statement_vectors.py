"""A pass makes its new messages' transcript vectors from the statements it made of them
(`dreaming/statement_vectors.py`): no message is embedded on its own when a statement came from
it, verify still finds what a message of an earlier pass says, and a failed or replayed pass
writes nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from consumers.runtime import Runtime, open_runtime
from dreaming.embedding.minilm import MiniLMEmbedder
from dreaming.engine.offline.verifier import verify_claims
from dreaming.passes.apply import apply_plan
from dreaming.snapshot import Snapshot
from dreaming.store.client import point_id
from dreaming.store.scope_transcript import unit_mean
from dreaming.store.search import embedding_text
from schemas import ActionPlan, ConversationTurn, DreamJob, MemoryRecord
from schemas.settings import Settings
from tests.unit.feed import Feed

SCOPE = "acme/travel-bot/ava"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
FIRST = (
    ("user", "Hi, I'm Ava. I always sit by the window on long flights."),
    ("assistant", "Noted, a window seat for the Lisbon trip."),
    ("user", "My sister Dora lives in Porto and teaches chemistry."),
    ("user", "What time does the pottery studio open?"),
)

SEATS = (
    ("user", "Hi, I'm Ava. I always sit by the window on long flights."),
    ("assistant", "Window seat booked for the Lisbon trip."),
    ("user", "No, it's aisle, not window."),
    ("user", "My sister Dora lives in Porto and teaches chemistry."),
)


def turns(lines, start: int = 0) -> list[ConversationTurn]:
    return [
        ConversationTurn(
            scope=SCOPE,
            session_id="s1",
            message_id=f"m{start + i}",
            role=role,
            content=text,
            ts=T0 + timedelta(minutes=start + i),
        )
        for i, (role, text) in enumerate(lines)
    ]


@pytest.fixture
def rt(tmp_path: Path):
    runtime = open_runtime(Settings(home=tmp_path, embedder="hashing"))
    yield runtime
    runtime.close()


def record_messages(rt: Runtime) -> list[str]:
    """Spy on the transcript store's own model calls (a message embedded from its text)."""
    embedded: list[str] = []
    inner = rt.transcripts._embed

    def counting(texts):
        embedded.extend(texts)
        return inner(texts)

    rt.transcripts._embed = counting
    return embedded


def stored(rt: Runtime, message_id: str) -> tuple[np.ndarray, str]:
    found = rt.client.retrieve(
        rt.transcripts.transcripts, [point_id("turn", SCOPE, message_id)], with_payload=True, with_vectors=True
    )
    return np.asarray(found[0].vector, dtype=np.float32), found[0].payload["vector_from"]


def test_a_pass_gives_each_new_message_the_mean_of_its_statements_vectors(rt: Runtime) -> None:
    embedded = record_messages(rt)
    feed = Feed(rt, SCOPE)
    feed.turns(turns(FIRST))
    assert feed.run().status == "completed"
    assert embedded == [], "a first pass searches nothing: no message is embedded on its own"
    memories = rt.memories.active_records(SCOPE)
    vectors = rt.memories.active_vectors(SCOPE)
    cited = {i for m in memories for i in m.evidence_message_ids}
    assert {"m0", "m2"} <= cited
    for message_id in sorted(cited):
        vector, origin = stored(rt, message_id)
        made = [vectors[embedding_text(m.text)] for m in memories if message_id in m.evidence_message_ids]
        assert origin == "statements"
        assert np.allclose(vector, unit_mean(np.stack(made)), atol=1e-5), message_id
    assert stored(rt, "m3")[1] == "none", "a question made no statement: owed until a search needs it"


def test_a_message_no_statement_came_from_is_embedded_when_searched_and_found(rt: Runtime) -> None:
    feed = Feed(rt, SCOPE)
    feed.turns(turns(FIRST))
    feed.run()
    embedded = record_messages(rt)
    question = FIRST[3][1]
    hits = rt.transcripts.search(SCOPE, question, 1)
    assert hits[0][0].message_id == "m3"
    assert embedded == [question, question], "the owed message once, then the query"
    rt.transcripts.search(SCOPE, question, 1)
    assert embedded == [question] * 3, "made once"


def test_verify_finds_the_contradicting_message_of_an_earlier_pass(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = open_runtime(Settings(home=home))  # MiniLM: the search ranks by meaning
    try:
        feed = Feed(first, SCOPE)
        feed.turns(turns(SEATS))
        assert feed.run().status == "completed"
        assert stored(first, "m2")[1] == "statements"
    finally:
        first.close()
    later = open_runtime(Settings(home=home))  # another process: the vectors as stored
    try:
        claim = MemoryRecord(
            scope=SCOPE,
            memory_id="window",
            text="Ava prefers window seats",
            origin="memory_add",
            evidence_message_ids=("m0",),
            created_at=T0,
            updated_at=T0,
        )
        snapshot = Snapshot(
            job=DreamJob(job_id="job-v", scope=SCOPE, trigger="manual", requested_at=T0 + timedelta(hours=1)),
            generation=1,
            memories=(claim,),
            transcript=tuple(t for t, _ in later.transcripts.window(SCOPE, 100)),
            new_message_ids=frozenset({"m2"}),
        )
        candidate = apply_plan(snapshot, ActionPlan())
        search = later.transcripts.search  # the top hit besides the claim's own message must be the correction
        result = verify_claims(snapshot, candidate, search, top_k=2, embed=MiniLMEmbedder().embed_array)
        assert [(v.memory_id, v.finding.judgement, v.finding.message_id) for v in result.verdicts] == [
            ("window", "contradicted", "m2")
        ]
    finally:
        later.close()


def test_a_failed_pass_writes_no_vector_and_a_replay_changes_none(rt: Runtime, monkeypatch) -> None:
    feed = Feed(rt, SCOPE)
    feed.turns(turns(FIRST))

    def broken(*args, **kwargs):
        raise ValueError("the store refused the generation")

    with monkeypatch.context() as patched:
        patched.setattr(rt.memories, "write_candidate", broken)
        assert feed.run().status == "failed"
    assert {stored(rt, f"m{i}")[1] for i in range(len(FIRST))} == {"none"}
    job = feed.job()
    assert rt.dream_pass.run(job).status == "completed"
    after = {f"m{i}": stored(rt, f"m{i}") for i in range(len(FIRST))}
    assert rt.dream_pass.run(job).status == "duplicate"
    for message_id, (vector, origin) in after.items():
        again, origin_again = stored(rt, message_id)
        assert origin_again == origin and np.array_equal(again, vector)


def test_a_message_that_says_nothing_is_set_aside_never_embedded_and_never_ranked(rt: Runtime) -> None:
    lines = (*FIRST, ("assistant", "Got it, Ava, thanks (ref 4.2)."))
    feed = Feed(rt, SCOPE)
    feed.turns(turns(lines))
    assert feed.run().status == "completed"
    vector, origin = stored(rt, "m4")
    assert origin == "chatter" and not vector.any()
    assert stored(rt, "m3")[1] == "none", "a question says something: owed, not set aside"
    embedded = record_messages(rt)
    hits = rt.transcripts.search(SCOPE, lines[4][1], 10)
    assert "m4" not in {turn.message_id for turn, _ in hits}, "no search ranks it, even its own words"
    assert {turn.message_id for turn, _ in hits} == {"m0", "m1", "m2", "m3"}
    assert lines[4][1] in embedded and embedded.count(lines[4][1]) == 1, "only as the query, never as a message"


def test_a_later_pass_takes_its_memories_statements_from_the_store_not_the_model(rt: Runtime) -> None:
    feed = Feed(rt, SCOPE)
    feed.turns(turns(FIRST))
    assert feed.run().status == "completed"
    stored_texts = set(rt.memories.active_vectors(SCOPE))
    asked: list[str] = []
    inner = rt.dream_pass._engine.embedder.embed_array

    def spying(texts):
        asked.extend(texts)
        return inner(texts)

    rt.dream_pass._engine.embedder.embed_array = spying
    feed.turns(turns((("user", "My sister Dora moved to Braga last spring."),), start=len(FIRST)))
    assert feed.run().status == "completed"
    assert asked, "the new statement is embedded"
    assert not stored_texts & set(asked), "a statement the store holds a vector for is not embedded again"
