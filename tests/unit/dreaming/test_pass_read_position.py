"""A pass records how far it read, not how far its job asked: a job usually runs after the worker
indexed turns beyond its watermarks, and its pass reads those too. Were they still "new" to the
next pass, that pass would judge their memories again (merging paraphrases, rivals) where one pass
over the same messages does not: the store would depend on when the job ran."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from consumers.runtime import open_runtime
from schemas import ConversationTurn, DreamJob
from schemas.settings import Settings
from tests.unit.dreaming.test_dream_pass import CountingEngine
from tests.unit.feed import START, Feed

SCOPE = "test/journal/ines"
LINES = [
    "I started volunteering at the animal shelter on Saturdays.",
    "My sister Joana moved to Porto for her new job at a design studio.",
    "I have been learning to bake sourdough bread since the spring.",
    "Every Saturday I volunteer at the animal shelter down the road.",
    "I decided to adopt the grey cat from the shelter next month.",
    "Joana, my sister, relocated to Porto for a job at a design studio.",
    "Actually the studio is in Braga, not Porto: Joana commutes from Porto.",
    "Does anyone know a good vet near the shelter?",
]


def turns() -> list[ConversationTurn]:
    return [
        ConversationTurn(
            scope=SCOPE,
            session_id=f"s{i // 3}",
            message_id=f"m{i}",
            role="user",
            content=f"Ines: {line}",
            ts=START + timedelta(days=i // 3, minutes=i),
        )
        for i, line in enumerate(LINES)
    ]


def early_job(feed: Feed, covered: int) -> DreamJob:
    """A threshold job that fired after `covered` turns and runs once every turn is indexed."""
    return DreamJob(
        job_id="job-early",
        scope=SCOPE,
        trigger="threshold",
        requested_at=START,
        watermarks={feed.rt.settings.topics.turns: covered},
    )


def test_the_next_pass_finds_nothing_new_in_what_an_early_job_read(tmp_path: Path) -> None:
    engine = CountingEngine()
    rt = open_runtime(Settings(home=tmp_path / "late"), engine=engine)
    one = open_runtime(Settings(home=tmp_path / "one"))
    try:
        feed = Feed(rt, SCOPE)
        feed.turns(turns())
        first = rt.dream_pass.run(early_job(feed, covered=2))
        assert first.status == "completed"
        assert rt.memories.state(SCOPE).covered_offset(rt.settings.topics.turns) == len(LINES)
        calls = engine.calls
        second = feed.run()
        assert second.status == "no-op" and engine.calls == calls, second.reason

        reference = Feed(one, SCOPE)
        reference.turns(turns())
        assert reference.run().status == "completed"
        assert sorted((m.text, m.evidence_message_ids) for m in rt.memories.active_records(SCOPE)) == sorted(
            (m.text, m.evidence_message_ids) for m in one.memories.active_records(SCOPE)
        )
    finally:
        rt.close()
        one.close()
