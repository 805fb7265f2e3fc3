"""Counts of things done so far (`language.running_totals`), on sentences written for this test."""

from __future__ import annotations

import pytest

from language.running_totals import done_count, grows, running_total, tells_earlier_moment


@pytest.mark.parametrize(
    ("sentence", "said", "total"),
    [
        ("Noor has already finished 14 sudoku puzzles.", "14", True),
        ("Noor's speed went up after solving 9 puzzles.", "9", True),
        ("Noor has logged 40 hours of flight time so far.", "40", True),
        ("Noor finished 14 sudoku puzzles on the train.", "14", False),  # one event, or a batch
        ("Noor wants to finish 20 puzzles by May.", "20", False),
        ("Noor has 3 puzzle books.", "3", False),
    ],
)
def test_a_running_total_counts_everything_done_up_to_a_moment(sentence: str, said: str, total: bool) -> None:
    assert running_total(sentence, said) is total


def test_a_count_of_things_done_may_be_an_event() -> None:
    assert done_count("Noor finished 14 sudoku puzzles on the train.", "14")
    assert not done_count("Noor wants to finish 20 puzzles by May.", "20")


def test_a_larger_count_of_the_same_things_done_is_the_total_now() -> None:
    old = "Noor has solved 9 logic puzzles this month."
    assert grows("Noor recently solved 14 logic puzzles.", "14", old, "9")
    assert not grows("Noor recently solved 6 logic puzzles.", "6", old, "9"), "smaller: a batch"
    assert not grows("Noor recently built 14 birdhouses.", "14", old, "9"), "other things"
    assert not grows("Noor solved 14 logic puzzles.", "14", "Noor solved 9 logic puzzles on Monday.", "9"), (
        "two events: the older count is no running total"
    )


def test_a_smaller_running_total_later_tells_an_earlier_moment() -> None:
    newer = "Noor has completed 12 drills, and her accuracy has gone from 60% to 80%."
    assert tells_earlier_moment(newer, "Noor has already completed 18 drills with 92% accuracy.")
    assert not tells_earlier_moment(newer, "Noor has already completed 10 drills with 70% accuracy.")
    assert not tells_earlier_moment(newer, "Noor has already completed 18 essays.")  # other things
