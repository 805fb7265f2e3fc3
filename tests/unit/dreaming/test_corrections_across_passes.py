"""Corrections and updates through the whole dream pass (engine, apply, verify, prune, gate) on a
real sentence model and an in-memory Qdrant, with the pass boundaries in different places: the
probe corpus (`correction_corpus`) in one pass, one pass per session and one pass per message,
and two longer conversations at several pass sizes. What memory holds at the end must not depend
on where the boundaries fell, and must be what each probe expects."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from consumers.runtime import open_runtime
from dreamstream_tools.evaluation.dataset import Dataset
from dreamstream_tools.evaluation.runner import dream_directly
from language.dates import without_stamp
from schemas import ConversationTurn
from schemas.settings import Settings
from tests.unit.correction_corpus import CORRECTIONS, LOOK_ALIKES, UPDATES, Probe

START = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
Final = dict[str, set[tuple[str, tuple[str, ...]]]]
"""scope -> the active memories at the end: (text, evidence)."""


def probe_turns(probe: Probe, scope: str) -> list[ConversationTurn]:
    turns = []
    for number, messages in enumerate((probe.earlier, probe.later)):
        day = START + timedelta(days=7 * number)
        for index, text in enumerate(messages):
            said = day + timedelta(minutes=2 * index)
            turns.append(turn(scope, f"s{number}", 2 * index, "user", text, said))
            if probe.other:
                turns.append(turn(scope, f"s{number}", 2 * index + 1, "user", f"{probe.other}: Oh, nice.", said))
            else:
                turns.append(turn(scope, f"s{number}", 2 * index + 1, "assistant", "Noted, thanks.", said))
    return turns


def turn(scope: str, session: str, index: int, role: str, content: str, ts: datetime) -> ConversationTurn:
    return ConversationTurn(
        scope=scope,
        session_id=session,
        message_id=f"{session}:{index}",
        role=role,
        content=content,
        ts=ts + timedelta(seconds=index),
    )


def dream(tmp_path: Path, turns: Iterable[ConversationTurn], pass_every: int | dict[str, int]) -> Final:
    """Final active memories per scope after dreaming `turns` with passes of `pass_every` events
    (per scope when a dict; 0 = one pass)."""
    turns = tuple(turns)
    runtime = open_runtime(Settings(home=tmp_path, embedder="minilm"), client=QdrantClient(location=":memory:"))
    try:
        scopes = sorted({t.scope for t in turns})
        for scope in scopes:
            size = pass_every.get(scope, 0) if isinstance(pass_every, dict) else pass_every
            dream_directly(runtime, Dataset(tuple(t for t in turns if t.scope == scope), (), ()), size)
        return {
            scope: {(m.text, tuple(sorted(m.evidence_message_ids))) for m in runtime.memories.active_records(scope)}
            for scope in scopes
        }
    finally:
        runtime.close()


PROBES = {f"probe/corpus/p{n}": p for n, p in enumerate((*CORRECTIONS, *UPDATES, *LOOK_ALIKES))}


@pytest.fixture(scope="module")
def corpus_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Final]:
    turns = [t for scope, probe in PROBES.items() for t in probe_turns(probe, scope)]
    per_session = {scope: 2 * len(probe.earlier) for scope, probe in PROBES.items()}
    return {
        "one pass": dream(tmp_path_factory.mktemp("one"), turns, 0),
        "a pass per session": dream(tmp_path_factory.mktemp("session"), turns, per_session),
        "a pass per message": dream(tmp_path_factory.mktemp("message"), turns, 1),
    }


def problems(probe: Probe, memories: set[tuple[str, tuple[str, ...]]]) -> list[str]:
    texts = [without_stamp(text).lower() for text, _ in memories]
    found = []
    if probe.stale and any(probe.stale.lower() in t and not (probe.fresh and probe.fresh.lower() in t) for t in texts):
        found.append(f"still states {probe.stale!r}")
    if probe.fresh and not any(probe.fresh.lower() in t for t in texts):
        found.append(f"lost the new value {probe.fresh!r}")
    found.extend(f"lost {kept!r}" for kept in probe.kept if not any(kept.lower() in t for t in texts))
    return found


@pytest.mark.parametrize("scope", list(PROBES), ids=[p.name for p in PROBES.values()])
def test_each_probe_ends_as_expected_wherever_the_passes_fall(corpus_runs: dict[str, Final], scope: str) -> None:
    probe = PROBES[scope]
    for boundaries, final in corpus_runs.items():
        assert problems(probe, final[scope]) == [], f"{boundaries}: {sorted(final[scope])}"
    one = corpus_runs["one pass"][scope]
    assert all(final[scope] == one for final in corpus_runs.values()), "the pass boundaries changed the outcome"


def test_a_correction_in_a_later_pass_replaces_the_memory_an_earlier_pass_wrote(
    corpus_runs: dict[str, Final],
) -> None:
    """The probe of the issue: "I always sit by the window" in one pass, "aisle, not window" in the next."""
    [scope] = [s for s, p in PROBES.items() if p.name == "seat"]
    [memory] = corpus_runs["a pass per session"][scope]
    assert "aisle" in memory[0] and "window seats" not in memory[0]
    assert memory[1] == ("s1:0",), "said in full, the correction is the memory and cites only itself"


def test_a_memory_holding_a_newer_value_says_the_one_it_replaced_and_cites_both(
    corpus_runs: dict[str, Final],
) -> None:
    """A new value said in a short aside names little of what it is a value of: the memory made
    from it also says the older statement, as what held before, and cites both messages — so a
    reader finds it by either's words and sees which value is current."""
    [scope] = [s for s, p in PROBES.items() if p.name == "climbing fee"]
    for boundaries, final in corpus_runs.items():
        [(text, evidence)] = [m for m in final[scope] if "$55" in m[0]]
        current, _, before = without_stamp(text).partition(" (previously, 2025-03-03: ")
        assert "$55" in current and "$48" not in current, boundaries
        assert "$48 monthly climbing gym fee" in before and evidence == ("s0:0", "s1:0"), boundaries
        assert not [m for m in final[scope] if "$55" not in m[0]], f"{boundaries}: the old memory left"


GARDEN = [
    ("user", "Hi! I'm planning a garden renovation and my budget for it is $2,000."),
    ("assistant", "Great, a $2,000 budget leaves room for plants and a small patio."),
    ("user", "The patio will be 12 square metres, next to the kitchen door."),
    ("assistant", "Noted. Do you want paving or decking?"),
    ("user", "Decking, definitely. I also keep three chickens in the back corner."),
    ("assistant", "Chickens will like a sheltered run."),
    ("user", "My landscaper, Omar, starts work on May 6."),
    ("assistant", "I'll remind you the week before."),
    None,  # a week later
    ("user", "Quick update: we raised the garden budget to $2,600 because of the drainage work."),
    ("assistant", "Understood, $2,600 it is."),
    ("user", "Omar can't make it, so the start of the garden work got pushed to May 13."),
    ("assistant", "I moved the reminder."),
    ("user", "I try to look at the good side instead of the bad side of these delays."),
    ("assistant", "That's a healthy way to see it."),
    None,
    ("user", "The drainage pipe will be 15 metres long."),
    ("assistant", "That's a decent run."),
    ("user", "I ran 5 km on Saturday along the canal."),
    ("assistant", "Well done!"),
    ("user", "The patio will be 16 square metres now, we took space from the lawn."),
    ("assistant", "More room for chairs."),
]
NEIGHBOURS = [
    ("Lena", "I just adopted a cat called Miso, and my flat is on the fourth floor, so Miso stays indoors."),
    ("Raf", "Cute! My gym sessions are on Mondays at 7 PM, and I have two dogs."),
    None,
    ("Lena", "My flat is on the second floor now, we moved last week."),
    ("Raf", "Nice, easier for Miso. My gym sessions moved to Wednesdays at 7 PM."),
    None,
    ("Lena", "Rather than the stairs, I take the lift with the shopping."),
    ("Raf", "My brother runs 10 km with the dogs every Sunday."),
    None,
    ("Lena", "Miso weighs 4 kg already."),
    ("Raf", "I ran 12 km with them last Sunday, instead of my brother."),
]
"""Each person says one message a session: what one person tells over several messages of a
session is grown into one memory by the pass that reads them (h18x's extraction replaces that)."""


def conversation(scope: str, lines: list, named: bool) -> list[ConversationTurn]:
    turns, session, minute = [], 0, 0
    for line in lines:
        if line is None:
            session, minute = session + 1, 0
            continue
        who, text = line
        role = "user" if named else who
        content = f"{who}: {text}" if named else text
        said = START + timedelta(days=7 * session, minutes=minute)
        turns.append(turn(scope, f"c{session}", minute, role, content, said))
        minute += 1
    return turns


@pytest.mark.parametrize("pass_every", [3, 5, 8])
def test_longer_conversations_end_the_same_at_any_pass_size(tmp_path: Path, pass_every: int) -> None:
    turns = conversation("probe/garden/ana", GARDEN, named=False) + conversation(
        "probe/neighbours/lena", NEIGHBOURS, named=True
    )
    once = dream(tmp_path / "once", turns, 0)
    assert dream(tmp_path / "split", turns, pass_every) == once
    garden = " ".join(text for text, _ in once["probe/garden/ana"])
    # What holds now is said outside the "(previously, …)" history a newer value keeps of the old one.
    garden_now = " ".join(stated_now(text) for text, _ in once["probe/garden/ana"])
    assert "$2,600" in garden
    assert "16 square metres" in garden and "12 square metres" not in garden_now
    assert "May 13" in garden and "good side" in garden and "5 km" in garden and "three chickens" in garden
    neighbours = " ".join(text for text, _ in once["probe/neighbours/lena"])
    neighbours_now = " ".join(stated_now(text) for text, _ in once["probe/neighbours/lena"])
    assert "second floor" in neighbours and "fourth floor" not in neighbours_now
    assert "Wednesdays" in neighbours and "Mondays" not in neighbours_now
    assert "adopted a cat called Miso" in neighbours and "two dogs" in neighbours, "the rest of an updated memory stays"
    assert "10 km" in neighbours and "12 km" in neighbours, "the brother's runs and Raf's run are both kept"


def stated_now(text: str) -> str:
    """A memory's text without the "(previously, DAY: …)" history of the value it replaced."""
    return re.sub(r" \(previously, [^)]*\)", "", text)


SAVINGS = [
    ("user", "I want to build up some savings this year."),
    ("assistant", "Good idea. Would you like to set a target for your emergency fund?"),
    ("user", "Yes, that would be a 3-month emergency fund."),
    ("assistant", "A 3-month fund is a solid start."),
    None,
    ("user", "I've decided to raise my emergency fund target to 6 months of expenses."),
    ("assistant", "Six months gives you more room."),
]


@pytest.mark.parametrize("pass_every", [0, 2])
def test_a_reply_quoted_with_its_question_is_retired_by_a_newer_value_never_rewritten(
    tmp_path: Path, pass_every: int
) -> None:
    """'Asked "...", the user said: ...' is the user's words: a newer value must not put other
    words in their mouth ("the user said: ... a 6-month ...")."""
    final = dream(tmp_path, conversation("probe/savings/kai", SAVINGS, named=False), pass_every)
    texts = [without_stamp(text) for text, _ in final["probe/savings/kai"]]
    assert any("6 months" in t for t in texts), texts
    assert not any(t.startswith("Asked") and "6-month" in t for t in texts), texts
    assert not any("3-month emergency fund" in t for t in texts), texts
    assert all(t.startswith("Asked") for t in texts if "said:" in t), texts


STUDY = [
    (
        "user",
        "I'm trying to check my answer to the dice question: the chance of rolling two sixes is 1/6 x 1/6 = 1/36, "
        "and I want to be sure because I've finished 6 geometry proofs with 70% accuracy this month.",
    ),
    ("assistant", "Yes, 1/36 is right: the two rolls are independent."),
    (
        "user",
        "I'm trying to keep my gardening spending within my $50 budget for March, and I've already spent $42 "
        "on seeds and pots, so can I afford a $15 trellis?",
    ),
    ("assistant", "Not without going over: you have $8 left."),
    None,
    (
        "user",
        "I'm stuck on a proof about circles and I need help, I've recently stepped up my practice to 10 geometry "
        "proofs a day, which has boosted my confidence, can you walk me through the diagram?",
    ),
    ("assistant", "Sure, start from the centre and draw both radii."),
    (
        "user",
        "I'm choosing new plants, and I've increased my summer gardening budget to $120, which is more than my "
        "earlier budgets, and I'd like to spend some of it on roses.",
    ),
    ("assistant", "Roses are a good use of it."),
]


@pytest.mark.parametrize("pass_every", [1, 2, 4])
def test_a_later_message_is_judged_the_same_way_whichever_pass_reads_it(tmp_path: Path, pass_every: int) -> None:
    """The walk judges a new message's statements against every live memory, those of earlier
    passes included; the verify pass judging them again clause by clause retired memories a single
    pass keeps (the dice check for its proof count, March's budget for summer's)."""
    turns = conversation("probe/study/noor", STUDY, named=False)
    once = dream(tmp_path / "once", turns, 0)
    assert dream(tmp_path / "split", turns, pass_every) == once
    texts = " ".join(text for text, _ in once["probe/study/noor"])
    assert "1/36" in texts and "$50 budget for March" in texts
