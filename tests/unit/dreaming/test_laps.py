"""Phase timing: a pass of a group is not charged for the others' work."""

from __future__ import annotations

import pytest

from dreaming import laps
from dreaming.laps import Laps


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_paused_pass_is_not_charged_for_what_runs_meanwhile(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(laps.time, "perf_counter", clock)
    lap = Laps()
    clock.now += 1.0
    lap.pause()
    clock.now += 20.0  # another pass of the group
    lap.pause()  # pausing twice changes nothing
    lap.resume()
    lap.add(0.5)  # its share of the group's model call
    clock.now += 2.0
    lap("propose")
    assert lap.seconds["propose"] == pytest.approx(3.5)
    clock.now += 0.25
    lap("verify")
    assert lap.seconds["verify"] == pytest.approx(0.25), "the carried time goes to one step only"
    lap.pause()
    clock.now += 7.0
    lap("gate")
    assert lap.seconds["gate"] == pytest.approx(0.0), "a step that ends while paused is charged what ran before"
