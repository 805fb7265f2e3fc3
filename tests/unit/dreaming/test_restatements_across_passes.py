"""A statement that repeats, whole, what its speaker said earlier that day and says more grows that
memory instead of making a second one that says the same thing again; a restatement on another
day, or by someone else, keeps its own memory. The store is the same wherever the pass boundaries
fall (sentences written for these tests)."""

from __future__ import annotations

import pytest

from language.dates import without_stamp
from tests.unit.dreaming.test_corrections_across_passes import conversation
from tests.unit.dreaming.test_merges_across_passes import Outcome, dream

SCOPE = "probe/running/marta"
CHAT = [
    ("Marta", "I ran 3 half marathons this spring, and my best time was 1:52."),
    ("Ole", "Nice! I swim at the lido twice a week before work."),
    ("Marta", "Since I ran 3 half marathons this spring and my best time was 1:52, I signed up for a full one."),
    ("Ole", "I swim at the lido twice a week before work, and on Sundays I take my daughter along."),
    None,
    ("Marta", "I ran 3 half marathons this spring and my best time was 1:52, but my knee hurts now."),
    ("Ole", "Sorry to hear about the knee."),
    ("Marta", "I love horses."),
    ("Marta", "I love how my niece drew the horse for me."),
]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Outcome]:
    turns = conversation(SCOPE, CHAT, named=True)
    return {every: dream(tmp_path_factory.mktemp(f"every{every}"), turns, every, SCOPE) for every in (0, 1, 2)}


def test_the_store_is_the_same_wherever_the_pass_boundaries_fall(runs: dict[int, Outcome]) -> None:
    for every, outcome in runs.items():
        assert outcome == runs[0], f"a pass every {every} messages ended otherwise"


def test_a_restatement_that_day_grows_the_memory_it_repeats(runs: dict[int, Outcome]) -> None:
    active, _ = runs[1]
    same_day = [(without_stamp(text), evidence) for text, evidence in active if "c1:" not in str(evidence)]
    marathons = [(text, evidence) for text, evidence in same_day if "marathons" in text]
    assert marathons == [
        (
            "Since Marta ran 3 half marathons in spring 2025 (this spring) and Marta's best time was 1:52, "
            "Marta signed up for a full one.",
            ("c0:0", "c0:2"),
        )
    ]


def test_a_restatement_on_another_day_keeps_its_own_memory_and_date(runs: dict[int, Outcome]) -> None:
    active, _ = runs[0]
    later = [text for text, evidence in active if evidence == ("c1:0",)]
    assert len(later) == 1 and "knee" in later[0] and "3 half marathons" in later[0]


def test_each_speaker_restates_only_what_they_said(runs: dict[int, Outcome]) -> None:
    active, _ = runs[0]
    swims = sorted(evidence for text, evidence in active if "lido" in text)
    assert swims == [("c0:1", "c0:3")], "Ole's own restatement grows his memory"
    assert not [e for t, e in active if "marathons" in t and any(i in ("c0:1", "c0:3") for i in e)]


def test_a_few_words_in_common_are_no_restatement(runs: dict[int, Outcome]) -> None:
    """ "love horses" / "how my niece drew the horse": two words in common say nothing of each other."""
    active, _ = runs[0]
    assert sorted(e for t, e in active if "horse" in t) == [("c1:2",), ("c1:3",)]
