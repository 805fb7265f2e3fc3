"""A message typed in lower case is read with the capitals the messages before it show
(`language.casing`), so the store is the same wherever the pass boundaries fall (sentences written
for these tests)."""

from __future__ import annotations

import pytest

from tests.unit.dreaming.test_corrections_across_passes import conversation
from tests.unit.dreaming.test_merges_across_passes import Outcome, dream

SCOPE = "probe/travel/noor"
CHAT = [
    ("Noor", "hey sven! i'm back from the trip. we stayed three nights near the harbour."),
    ("Sven", "Welcome back, Noor! Did you make it to Ghent in the end? My cousin loves Ghent."),
    ("Noor", "yes, ghent was the best part. i bought a print of the old canal there."),
    None,
    ("Sven", "I'm off to Porto next month with my cousin. Have you been to Porto?"),
    ("Noor", "not yet, but porto is on my list. my flight to lisbon got moved to friday though."),
    ("Sven", "Thanks, Noor. I'll send you photos from Porto."),
    ("Noor", "thanks, sven! have fun."),
]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Outcome]:
    turns = conversation(SCOPE, CHAT, named=True)
    return {every: dream(tmp_path_factory.mktemp(f"every{every}"), turns, every, SCOPE) for every in (0, 1, 3)}


def test_the_store_is_the_same_wherever_the_pass_boundaries_fall(runs: dict[int, Outcome]) -> None:
    for every, outcome in runs.items():
        assert outcome == runs[0], f"a pass every {every} messages ended otherwise"


def test_a_lower_case_message_reads_with_the_names_written_before_it(runs: dict[int, Outcome]) -> None:
    active, _ = runs[0]
    texts = " ".join(text for text, _ in active)
    assert "Noor bought a print of the old canal" in texts and "Ghent was the best part" in texts
    assert "Porto is on Noor's list" in texts  # Sven wrote "Porto" twice before Noor's message
    assert "flight to lisbon got moved to Friday" in texts  # nobody wrote "Lisbon": as typed
    assert " i " not in f" {texts} " and "Sven!" not in texts
