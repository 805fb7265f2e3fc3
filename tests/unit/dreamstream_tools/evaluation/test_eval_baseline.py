"""The baseline: raw messages and raw memory-adds of a scope, dated as a retrieval tool shows them,
ranked by the memory side's ranker."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dreaming.embedding import LocalEmbedder
from dreaming.store.search import DEFER, day_words, evidence_diverse
from dreamstream_tools.evaluation.baseline import BaselineSearch, add_line, dated_add_item, message_line
from dreamstream_tools.evaluation.dataset import load_dataset
from dreamstream_tools.evaluation.metrics import answer_containment, evidence_recall, knowledge_update
from dreamstream_tools.evaluation.ranking import HybridIndex
from schemas import ConversationTurn, MemoryAdd

SCOPE = "acme/helpdesk/noor"
OTHER = "globex/helpdesk/noor"


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _turn(scope: str, message_id: str, content: str, minute: int) -> dict:
    return {
        "scope": scope,
        "session_id": "s1",
        "message_id": message_id,
        "role": "user",
        "content": content,
        "ts": f"2026-02-03T10:{minute:02d}:00+00:00",
    }


@pytest.fixture
def dataset(tmp_path):
    turns = [
        _turn(SCOPE, "m1", "My phone is a Pixel and the screen cracked.", 1),
        _turn(SCOPE, "m2", "I replaced the Pixel with a Fairphone last weekend.", 2),
        _turn(SCOPE, "m3", "Can you find a repair shop near the market hall?", 3),
        _turn(OTHER, "m1", "My phone is an iPhone.", 1),
    ]
    adds = [
        {
            "scope": SCOPE,
            "memory_id": "a1",
            "text": "Noor pays in Norwegian kroner",
            "source_message_ids": [],
            "ts": "2026-02-03T10:05:00+00:00",
        },
        {
            "scope": SCOPE,
            "memory_id": "a2",
            "text": "Noor has a Pixel phone",
            "source_message_ids": ["m1"],
            "ts": "2026-02-03T10:06:00+00:00",
        },
    ]
    questions = [
        {
            "scope": SCOPE,
            "question": "Which phone does Noor have?",
            "answer": "Fairphone",
            "evidence_message_ids": ["m2"],
            "stale_message_ids": ["m1"],
            "category": "knowledge_update",
        }
    ]
    return load_dataset(
        _write(tmp_path / "e.jsonl", turns), _write(tmp_path / "q.jsonl", questions), _write(tmp_path / "a.jsonl", adds)
    )


def test_the_baseline_holds_messages_and_memory_adds_with_their_provenance(dataset):
    search = BaselineSearch(dataset, LocalEmbedder(64))
    items = search.items[SCOPE]
    assert [i.key for i in items] == ["m1", "m2", "m3", "a1", "a2"]
    assert [i.provenance for i in items] == [("m1",), ("m2",), ("m3",), (), ("m1",)]
    assert [i.key for i in search.messages[SCOPE]] == ["m1", "m2", "m3"]
    assert [i.text for i in search.items[OTHER]] == ["[2026-02-03] user: My phone is an iPhone."]  # scopes apart


def test_each_item_reads_as_a_retrieval_tool_shows_it_with_its_own_date_and_speaker(dataset):
    texts = [i.text for i in BaselineSearch(dataset, LocalEmbedder(64)).items[SCOPE]]
    assert texts == [
        "[2026-02-03] user: My phone is a Pixel and the screen cracked.",
        "[2026-02-03] user: I replaced the Pixel with a Fairphone last weekend.",
        "[2026-02-03] user: Can you find a repair shop near the market hall?",
        "[2026-02-03] Noor pays in Norwegian kroner",
        "[2026-02-03] Noor has a Pixel phone",
    ]


def _turn_event(content: str, role: str = "user", ts: str = "2026-02-03T10:00:00+00:00") -> ConversationTurn:
    return ConversationTurn(scope=SCOPE, session_id="s1", message_id="x1", role=role, content=content, ts=ts)


@pytest.mark.parametrize(
    ("content", "role", "ts", "line"),
    [
        # a named speaker is the speaker, never doubled
        (
            "Ilse: We adopted a grey cat.",
            "user",
            "2026-02-03T10:00:00+00:00",
            "[2026-02-03] Ilse: We adopted a grey cat.",
        ),
        ("  Mary Ann: see you at noon", "user", "2026-02-03T10:00:00+00:00", "[2026-02-03] Mary Ann: see you at noon"),
        # no name: the role speaks, on the message's own day
        (
            "Try a 20 minute walk.",
            "assistant",
            "2025-11-30T23:59:00+00:00",
            "[2025-11-30] assistant: Try a 20 minute walk.",
        ),
        # "Note: ..." opens a sentence, it names nobody
        (
            "Note: the budget is 400 euros",
            "user",
            "2026-02-03T10:00:00+00:00",
            "[2026-02-03] user: Note: the budget is 400 euros",
        ),
    ],
)
def test_a_message_line_is_dated_with_its_speaker_or_role(content, role, ts, line):
    assert message_line(_turn_event(content, role, ts)) == line


def test_a_memory_add_line_carries_the_date_it_was_written():
    add = MemoryAdd(scope=SCOPE, memory_id="a9", text="Ilse's cat is called Pepper", ts="2026-01-09T08:00:00+00:00")
    assert add_line(add) == "[2026-01-09] Ilse's cat is called Pepper"
    assert dated_add_item(add).text == add_line(add) and dated_add_item(add).key == "a9"


@pytest.mark.parametrize("built", [True, False])
def test_the_baseline_ranks_the_raw_contents_exactly_as_the_shared_hybrid_ranker(dataset, built):
    embedder = LocalEmbedder(64)
    search = BaselineSearch(dataset, embedder)
    if built:
        search.build()
    # ranked on what was said (no date line), as memories are ranked without their stamps; the
    # lexical side reads the day too, and an item citing only what a better one cites waits
    turns, adds = dataset.turns_of(SCOPE), dataset.adds_of(SCOPE)
    raw = [t.content for t in turns] + [a.text for a in adds]
    days = [day_words(text, x.ts.date()) for text, x in zip(raw, [*turns, *adds], strict=True)]
    items = search.items[SCOPE]
    for query in ("Which phone does Noor have?", "currency kroner", "repair shop", "what happened on 2026-01-09"):
        ranked = [items[i] for i, _ in HybridIndex(embedder, raw, lexical=days).search(query, 100)]
        expected = [i.text for i in evidence_diverse(ranked, lambda i: i.provenance, DEFER)[:3]]
        vector = embedder.embed_array([query])[0] if built else None
        assert [i.text for i in search.search(SCOPE, query, 3, vector)] == expected
    assert len(search.search(SCOPE, "phone", 100)) == 5  # past the scope's size: all of it, ranked
    assert search.search("acme/helpdesk/nobody", "phone", 3) == []


def test_a_fact_only_a_memory_add_holds_is_found_by_the_baseline(dataset):
    search = BaselineSearch(dataset, LocalEmbedder(64))
    top = search.search(SCOPE, "In which currency does Noor pay?", 5)
    assert answer_containment("Norwegian kroner", top)


def test_a_stale_memory_add_counts_against_the_baseline_as_a_stale_message_does(dataset):
    search = BaselineSearch(dataset, LocalEmbedder(64))
    question = dataset.questions[0]
    everything = search.search(SCOPE, question.question, 5)  # k = every item: the stale ones are in
    assert evidence_recall(question.evidence_message_ids, everything) == 1.0
    assert knowledge_update(question.answer, question.stale_message_ids, everything) is False
    fresh_only = [i for i in everything if i.key in ("m2", "m3")]
    assert knowledge_update(question.answer, question.stale_message_ids, fresh_only) is True


def test_build_embeds_every_text_once_in_one_batch(dataset):
    class Counting(LocalEmbedder):
        def embed_array(self, texts):
            self.calls.append(len(texts))
            return super().embed_array(texts)

    embedder = Counting(64)
    embedder.calls = []
    search = BaselineSearch(dataset, embedder)
    search.build()
    assert embedder.calls == [6]  # 5 items of one scope, 1 of the other
    search.search(SCOPE, "phone", 2, np.ones(64, np.float32) / 8)
    assert embedder.calls == [6]  # a given query vector: nothing embedded again
