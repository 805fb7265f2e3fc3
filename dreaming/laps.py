"""Wall time per named step, for phase metrics and run reports."""

from __future__ import annotations

import time


class Laps:
    """Call with a step's name when it ends; `seconds` maps each name to its duration."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._since = time.perf_counter()

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        self.seconds[name] = now - self._since
        self._since = now
