"""A scope's memory search (`dreaming.store.search`): ranked on the statement's meaning and words,
and on the day each memory was said; on sentences written for this test."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from dreaming.embedding import HashingEmbedder
from dreaming.embedding.cache import VectorCache
from dreaming.embedding.hybrid import HybridIndex
from dreaming.embedding.minilm import MiniLMEmbedder
from dreaming.store.search import ScopeSearch, embedding_text, evidence_diverse, lexical_text
from schemas import MemoryRecord

T0 = datetime(2025, 1, 2, tzinfo=UTC)


def record(memory_id: str, text: str, valid_from: datetime | None = None) -> MemoryRecord:
    return MemoryRecord(
        scope="t/a/s",
        memory_id=memory_id,
        text=text,
        origin="transcript",
        evidence_message_ids=(memory_id,),
        created_at=T0,
        updated_at=T0,
        valid_from=valid_from,
    )


# Three memories that say nearly the same thing on three days: only the day tells them apart.
DAYS = [
    record("a", "[2024-03-02] Tomas showed his friends a new drawing of the harbour."),
    record("b", "[2024-05-09] Tomas showed his friends a new drawing of the windmill."),
    record("c", "[2024-07-21] Tomas showed his friends a new drawing of the lighthouse."),
]
# The rest of the scope, as in any real one: other things said on other days.
OTHERS = [
    record("o1", "[2024-02-11] Greta repaired the bicycle chain herself."),
    record("o2", "[2024-04-30] The bakery on Elm Street closes at six on Sundays."),
    record("o3", "[2024-06-14] Greta booked a week of sailing lessons."),
    record("o4", "[2024-08-03] Tomas is allergic to walnuts."),
    record("o5", "[2024-10-19] The choir meets in the school hall on Thursdays."),
]


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(cache=VectorCache(1_000))


@pytest.mark.parametrize(
    ("query", "wanted"),
    [
        ("What drawing did Tomas show his friends on 9 May 2024?", "b"),
        ("Which drawing did Tomas show on July 21, 2024?", "c"),
        ("What did Tomas draw in March 2024?", "a"),
    ],
)
def test_a_question_naming_a_day_finds_the_memory_said_that_day(
    minilm: MiniLMEmbedder, query: str, wanted: str
) -> None:
    ranked = ScopeSearch(minilm).rank(DAYS + OTHERS, query, 3)
    assert ranked[0][0].memory_id == wanted, [(r.memory_id, s) for r, s in ranked]
    assert ranked[0][1] > ranked[1][1]


def test_without_the_day_the_same_memories_tie_on_their_words() -> None:
    # The control: ranked on the statements alone (as before), the day in the question finds nothing.
    texts = [embedding_text(r.text) for r in DAYS]
    top = HybridIndex(HashingEmbedder(64), texts, fusion="bm25").search("What did Tomas show on 9 May 2024?", 3)
    assert top[0][1] == top[1][1] == top[2][1]


def test_the_day_is_the_stamp_or_else_when_the_memory_became_true() -> None:
    assert lexical_text(DAYS[1]) == "Tomas showed his friends a new drawing of the windmill. 2024-05-09"
    assert lexical_text(record("d", "Tomas sold a drawing (said on 2024-08-01)")) == "Tomas sold a drawing 2024-08-01"
    unstamped = record("e", "Tomas likes ink more than charcoal.", valid_from=datetime(2024, 9, 30, tzinfo=UTC))
    assert lexical_text(unstamped) == "Tomas likes ink more than charcoal. 2024-09-30"
    assert lexical_text(record("f", "Tomas lives by the sea.")) == "Tomas lives by the sea. 2025-01-02"


def test_lexical_texts_come_one_per_text() -> None:
    with pytest.raises(ValueError, match="1 lexical texts for 2 texts"):
        HybridIndex(HashingEmbedder(64), ["alpha", "beta"], lexical=["alpha"])


def cited(memory_id: str, *messages: str) -> tuple[MemoryRecord, float]:
    return record(memory_id, f"[2024-01-01] Memory {memory_id}.").model_copy(
        update={"evidence_message_ids": messages}
    ), 1.0


def cited_ids(found: tuple[MemoryRecord, float]) -> Sequence[str]:
    return found[0].evidence_message_ids


def order(ranked: list[tuple[MemoryRecord, float]]) -> list[str]:
    return [r.memory_id for r, _ in ranked]


def test_a_memory_resting_only_on_evidence_already_read_moves_behind_fresh_ones() -> None:
    # "a2" says what "a1" already cites (an agent's note and the message's own memory): it is
    # read after two memories that bring other messages, and nothing is dropped.
    ranked = [cited("a1", "m1"), cited("a2", "m1"), cited("b", "m2"), cited("c", "m3"), cited("d", "m4")]
    assert order(evidence_diverse(ranked, cited_ids, defer=2)) == ["a1", "b", "c", "a2", "d"]
    assert order(evidence_diverse(ranked, cited_ids, defer=0)) == order(ranked)


def test_new_evidence_or_none_is_never_deferred() -> None:
    ranked = [cited("a", "m1"), cited("ab", "m1", "m2"), cited("none"), cited("none2"), cited("b", "m2")]
    assert order(evidence_diverse(ranked, cited_ids, defer=3)) == ["a", "ab", "none", "none2", "b"]
    assert order(evidence_diverse(ranked[:2] + [cited("b", "m2")], cited_ids, defer=3)) == ["a", "ab", "b"]


def test_search_returns_k_after_deferring(minilm: MiniLMEmbedder) -> None:
    twins = [record(f"t{i}", f"[2024-05-0{i}] Tomas baked rye bread, loaf {i}.") for i in range(1, 4)]
    twins = [t.model_copy(update={"evidence_message_ids": ("same",)}) for t in twins]
    search = ScopeSearch(minilm)
    question = "What bread did Tomas bake?"
    plain = [
        (twins + OTHERS)[i]
        for i, _ in HybridIndex(minilm, [embedding_text(t.text) for t in twins + OTHERS]).search(question, 3)
    ]
    assert all(r.memory_id.startswith("t") for r in plain)  # ranked alone, the three wordings lead
    found = search.search("t/a/s", 1, lambda: (twins + OTHERS, None), question, 4)
    ids = [r.memory_id for r, _ in found]
    assert len(ids) == 4 and ids[0].startswith("t") and not any(i.startswith("t") for i in ids[1:])
