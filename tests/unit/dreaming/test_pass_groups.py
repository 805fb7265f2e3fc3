"""Passes run as a group (`DreamPass.run_many`, what a consolidation worker does with its ready
jobs): each pass writes what it writes alone, the engine's first embeddings of all of them are
made in one call, and one pass's failure is its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreaming.engine import ReadAhead
from dreaming.engine.offline import OfflineEngine
from schemas import DreamJob
from tests.unit.dreaming.test_dream_pass import fixture_adds, fixture_turns, runtime_for
from tests.unit.feed import Feed


class ReadingAheadEngine(OfflineEngine):
    """The offline engine, recording what it read ahead and each batch it embedded ahead; it
    raises for the scopes named, where asked."""

    def __init__(self, fail_reading: str = "", fail_proposing: str = "") -> None:
        super().__init__()
        self.read: dict[str, ReadAhead] = {}
        self.batches: list[list[str]] = []
        self.fail_reading, self.fail_proposing = fail_reading, fail_proposing

    def read_ahead(self, snapshot, signals):
        if snapshot.scope == self.fail_reading:
            raise OverflowError("date value out of range")
        self.read[snapshot.scope] = ahead = super().read_ahead(snapshot, signals)
        return ahead

    def embed_ahead(self, texts):
        self.batches.append(list(texts))
        super().embed_ahead(texts)

    def propose(self, snapshot, signals, ahead=None):
        if snapshot.scope == self.fail_proposing:
            raise ZeroDivisionError("no rate")
        return super().propose(snapshot, signals, ahead)


SCOPES = list(dict.fromkeys(t.scope for t in fixture_turns()))


def fed(tmp_path: Path, engine=None) -> tuple[Feed, list[DreamJob]]:
    feed = Feed(runtime_for(tmp_path, engine=engine))
    feed.turns(fixture_turns())
    feed.adds(fixture_adds())
    return feed, [feed.job(scope) for scope in SCOPES]


def memory(feed: Feed, scope: str) -> list[tuple[str, tuple[str, ...], str]]:
    records = feed.rt.memories.active_records(scope, include_inactive=True)
    return sorted((m.text, m.evidence_message_ids, m.status) for m in records)


@pytest.fixture(scope="module")
def alone_and_grouped(tmp_path_factory):
    alone, jobs = fed(tmp_path_factory.mktemp("alone"))
    alone_results = [alone.rt.dream_pass.run(job) for job in jobs]
    engine = ReadingAheadEngine()
    grouped, same_jobs = fed(tmp_path_factory.mktemp("grouped"), engine)
    assert same_jobs == jobs
    grouped_results = grouped.rt.dream_pass.run_many(same_jobs)
    yield alone, alone_results, grouped, grouped_results, engine
    alone.rt.close()
    grouped.rt.close()


def test_a_group_writes_what_each_pass_writes_alone(alone_and_grouped) -> None:
    alone, alone_results, grouped, grouped_results, _ = alone_and_grouped
    assert [r.status for r in grouped_results] == [r.status for r in alone_results]
    assert {r.status for r in grouped_results} == {"completed"}
    for scope in SCOPES:
        assert memory(grouped, scope) == memory(alone, scope), scope
    for a, g in zip(alone_results, grouped_results):
        assert [e.model_dump(exclude={"ts", "event_id"}) for e in g.events[1:]] == [
            e.model_dump(exclude={"ts", "event_id"}) for e in a.events[1:]
        ]


def test_the_groups_first_embeddings_are_one_call(alone_and_grouped) -> None:
    *_, engine = alone_and_grouped
    read = [scope for scope, ahead in engine.read.items() if ahead.texts]
    assert len(read) >= 3, engine.read
    [batch] = engine.batches
    assert batch == [text for scope in engine.read for text in engine.read[scope].texts]


def test_one_failing_pass_leaves_the_rest_of_its_group_alone(tmp_path: Path) -> None:
    engine = ReadingAheadEngine(fail_reading=SCOPES[0], fail_proposing=SCOPES[1])
    feed, jobs = fed(tmp_path, engine)
    results = feed.rt.dream_pass.run_many(jobs)
    assert results[0].status == "failed" and "OverflowError" in results[0].reason
    assert results[1].status == "failed" and "ZeroDivisionError" in results[1].reason
    assert {r.status for r in results[2:]} == {"completed"}
    assert feed.rt.memories.active_records(SCOPES[0]) == [] and feed.rt.memories.active_records(SCOPES[1]) == []
    assert len(engine.batches) == 1 and SCOPES[0] not in engine.read
    again = feed.rt.dream_pass.run_many([feed.job(SCOPES[2])])
    assert again[0].status == "no-op", "the completed passes were recorded"
    feed.rt.close()


def test_a_group_holds_one_pass_per_scope(tmp_path: Path) -> None:
    feed, jobs = fed(tmp_path)
    with pytest.raises(ValueError, match="one pass per scope"):
        feed.rt.dream_pass.run_many([jobs[0], feed.job(SCOPES[0])])
    feed.rt.close()


def test_each_pass_reads_its_messages_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the engine read ahead is what its walk uses: no message is read twice."""
    from dreaming.engine.offline import engine as offline_engine

    read: list[str] = []
    read_messages = offline_engine.read_messages

    def counting(turns, roles, consumed):
        read.append(turns[0].scope)
        return read_messages(turns, roles, consumed)

    monkeypatch.setattr(offline_engine, "read_messages", counting)
    engine = ReadingAheadEngine()
    feed, jobs = fed(tmp_path, engine)
    results = feed.rt.dream_pass.run_many(jobs)
    assert {r.status for r in results} == {"completed"}
    assert sorted(read) == sorted(engine.read) == sorted(SCOPES)
    feed.rt.close()
