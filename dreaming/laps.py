"""Wall time per named step, for phase metrics and run reports."""

from __future__ import annotations

import time


class Laps:
    """Call with a step's name when it ends; `seconds` maps each name to its duration."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._since = time.perf_counter()
        self._carried = 0.0
        self._paused = False

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        self.seconds[name] = self._carried + (0.0 if self._paused else now - self._since)
        self._since, self._carried, self._paused = now, 0.0, False

    def pause(self) -> None:
        """Other work runs now (another pass of a group): it is not timed until `resume`."""
        if not self._paused:
            self._carried += time.perf_counter() - self._since
            self._paused = True

    def resume(self) -> None:
        if self._paused:
            self._since, self._paused = time.perf_counter(), False

    def add(self, seconds: float) -> None:
        """This step's share of work done for several at once (a group's one model call)."""
        self._carried += seconds
