"""A StreamLoop with only the timer's state (processor, tables, due index) and no Kafka clients:
the control events it would send are kept in `nudged`. The timer's unit test and the benchmark's
timer figures both drive `nudge_quiet_scopes` through it."""

from __future__ import annotations

from typing import Any

from schemas import ControlEvent
from schemas.settings import Settings
from streams.due_index import DueIndex
from streams.loop import StreamLoop
from streams.processor import Processor


class TimerOnlyLoop(StreamLoop):
    def __init__(
        self, settings: Settings, tables: dict[int, dict[str, bytes]] | None = None, due: DueIndex | None = None
    ) -> None:
        self.processor = Processor(settings)
        self.tables = {} if tables is None else tables
        self.due = DueIndex() if due is None else due
        self.nudged: list[str] = []

    def send_control(self, event: ControlEvent, partition: int, on_delivery: Any = None) -> None:
        event.model_dump_json()  # what sending would cost
        self.nudged.append(event.scope)
