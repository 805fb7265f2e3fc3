"""The storm guard: the stream worker stops when most recent input of a partition is invalid (a
broken producer, not bad luck) instead of dead-lettering the whole stream.

`Processor.process_batch` counts every verdict here before anything of the batch is folded, so
`BadInputStorm` leaves nothing of the crossing batch published; the window is written to the
signals changelog with every batch (`streams.steps.output`) and read back on assignment
(`streams.restore`).
"""

from __future__ import annotations

import json
from collections import deque

from schemas.settings import Settings


class BadInputStorm(RuntimeError):
    """Most recent input is invalid: a broken producer, not bad luck. Stop instead of
    dead-lettering the whole stream."""


class PartitionWindow:
    """The last `window` verdicts (bad or not) of one partition's input events, and how far into
    each topic they reach, so a redelivered event is not counted twice."""

    __slots__ = ("flags", "bad", "offsets")

    def __init__(self, window: int) -> None:
        self.flags: deque[bool] = deque(maxlen=window)
        self.bad = 0
        self.offsets: dict[str, int] = {}

    def encode(self) -> bytes:
        return json.dumps(
            {"flags": "".join("1" if f else "0" for f in self.flags), "offsets": self.offsets}, separators=(",", ":")
        ).encode()

    @classmethod
    def decode(cls, raw: bytes, window: int) -> PartitionWindow:
        data = json.loads(raw)
        restored = cls(window)
        restored.flags.extend(ch == "1" for ch in data.get("flags", "")[-window:])
        restored.bad = sum(restored.flags)
        restored.offsets = {str(k): int(v) for k, v in data.get("offsets", {}).items()}
        return restored


class StormGuard:
    """Stops the worker when the share of bad events over a partition's window passes the limit.

    The window is per partition and travels with it: it is written to the signals changelog
    (key `#guard/<partition>`) with every batch, before that batch's offsets are committed, and
    read back on assignment. A restart therefore resumes the same window, and re-reading the
    batch that crossed the limit crosses it again. It judges once the window holds
    `bad_share_min_events` events (or the whole window, when smaller)."""

    def __init__(self, settings: Settings) -> None:
        self.window = settings.bad_share_window
        self.limit = settings.max_bad_share
        self.min_events = min(settings.bad_share_min_events, self.window)
        self.partitions: dict[int, PartitionWindow] = {}

    @staticmethod
    def key(partition: int) -> str:
        return f"#guard/{partition}"

    def restore(self, partition: int, raw: bytes | None) -> None:
        self.partitions[partition] = PartitionWindow.decode(raw, self.window) if raw else PartitionWindow(self.window)

    def drop(self, partition: int) -> None:
        self.partitions.pop(partition, None)

    def count(self, topic: str, partition: int, offset: int, bad: bool) -> bool:
        """Record one verdict; False when this event was already counted. Raises BadInputStorm."""
        win = self.partitions.get(partition)
        if win is None:
            win = self.partitions[partition] = PartitionWindow(self.window)
        if offset < win.offsets.get(topic, 0):
            return False
        win.offsets[topic] = offset + 1
        flags = win.flags
        if len(flags) == self.window:
            win.bad -= flags[0]
        flags.append(bad)
        win.bad += bad
        if bad and len(flags) >= self.min_events and win.bad > self.limit * len(flags):
            raise BadInputStorm(
                f"{win.bad} of the last {len(flags)} events on partition {partition} were invalid "
                f"(limit {self.limit:.0%}); stopping before this batch is published or committed "
                f"instead of dead-lettering everything"
            )
        return True
