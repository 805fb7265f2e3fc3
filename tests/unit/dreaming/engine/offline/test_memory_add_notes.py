"""A memory-add an agent wrote about a message, and the memory the message itself would make
(`transcript_pass._noted_already`, `housekeeping`): one memory of one fact, dated; on sentences
written for this test."""

from __future__ import annotations

import pytest

from dreaming.engine.offline import OfflineEngine
from dreaming.engine.offline.duplicates import words_beyond
from dreaming.engine.offline.transcript_pass import _adds_no_value
from dreaming.passes.gather import gather
from schemas import CreateAction, UpdateAction
from tests.unit.snapshot_factory import build_snapshot, turn_row

SCOPE = "t/agent/race-club"
DAY = "2024-06-12T18:00:00+00:00"


def chat() -> list[dict]:
    lines = [
        "Priya: Hey Jonas! I ran a half marathon in Leeds last Saturday and finished in two hours!",
        "Jonas: No way, congratulations! Who came along?",
        "Priya: My brother Tomasz came to watch, he flew in from Gdansk for it.",
        "Jonas: That is so kind of him.",
    ]
    return [turn_row(SCOPE, "s1", i, "user", text, DAY) for i, text in enumerate(lines)]


ADDS = [
    {
        "scope": SCOPE,
        "memory_id": "add-race",
        "text": "Priya ran a half marathon in Leeds last Saturday, finishing in 2 hours.",
        "ts": DAY,
        "source_message_ids": ["s1#0"],
    },
    {
        "scope": SCOPE,
        "memory_id": "add-family",
        "text": "Priya's brother came to watch her race.",
        "ts": DAY,
        "source_message_ids": ["s1#2"],
    },
]


@pytest.fixture(scope="module")
def plan():
    snapshot = build_snapshot(SCOPE, chat(), ADDS)
    return OfflineEngine().propose(snapshot, gather(snapshot)).plan


def test_a_message_its_memory_add_says_in_other_spellings_makes_no_second_memory(plan) -> None:
    # The add says "last Saturday" and "2 hours"; the message's own memory would say 2024-06-08
    # and "two hours": the same values, spelled otherwise.
    citing = [a for a in plan.actions if isinstance(a, CreateAction) and "s1#0" in a.evidence_message_ids]
    assert citing == [], [a.text for a in citing]


def test_a_message_stating_more_than_its_memory_add_keeps_its_own_memory(plan) -> None:
    # The add leaves out who the brother is and where he came from.
    citing = [a for a in plan.actions if isinstance(a, CreateAction) and "s1#2" in a.evidence_message_ids]
    assert len(citing) == 1 and "Tomasz" in citing[0].text and "Gdansk" in citing[0].text


def test_a_memory_add_citing_a_message_leads_with_its_day_and_resolves_its_relative_time(plan) -> None:
    updates = {a.target: a.text for a in plan.actions if isinstance(a, UpdateAction)}
    assert updates["add-race"].startswith("[2024-06-12] Priya ran a half marathon in Leeds on 2024-06-08")
    assert updates["add-family"] == "[2024-06-12] Priya's brother came to watch her race."


def test_a_memory_add_already_dated_is_left_as_it_is() -> None:
    dated = [{**ADDS[1], "text": "[2024-06-12] Priya's brother came to watch her race."}]
    snapshot = build_snapshot(SCOPE, chat(), dated)
    plan = OfflineEngine().propose(snapshot, gather(snapshot)).plan
    assert not [a for a in plan.actions if isinstance(a, UpdateAction) and a.target == "add-family"]


@pytest.mark.parametrize(
    ("fact", "noted", "same"),
    [
        ("Ines bought three lamps for 1,200 euros.", "Ines bought 3 lamps for 1200 euros.", True),
        ("Ines moved to Porto on 2023-09-01.", "Ines moved to Porto on 2023-09-01 with Rui.", True),
        ("Ines bought three lamps.", "Ines bought two lamps.", False),
        ("Ines moved to Porto with Rui.", "Ines moved to Porto.", False),
        ("Ines moved on 2023-09-01.", "Ines moved recently.", False),
    ],
)
def test_values_are_compared_as_meant_not_as_spelled(fact: str, noted: str, same: bool) -> None:
    assert _adds_no_value(fact, noted) is same


def test_a_message_saying_more_words_than_its_memory_add_keeps_them() -> None:
    """The add's paraphrase is not the words said: what it leaves out is still the message's."""
    said = "Ines waxes her skis every Sunday evening before the club race."
    assert {"wax", "club", "race"} <= words_beyond(said, "Ines takes care of her skis.")
    assert len(words_beyond(said, "Ines waxes her skis every Sunday evening before a club race.")) <= 1
    assert not words_beyond("Ines finished in two hours.", "Ines finished in 2 hours."), "a value spelled otherwise"
