"""The stream worker's timer (`streams.timer.nudge_quiet_scopes`) over a processor, tables and a
due index, with no Kafka client: the control events it would send are kept in `nudged`. The
timer's unit test and the benchmark's timer figures both drive it through this."""

from __future__ import annotations

from schemas import ControlEvent
from schemas.settings import Settings
from streams.due_index import DueIndex
from streams.processor import Processor
from streams.rows import SignalTables
from streams.timer import nudge_quiet_scopes


class TimerOnlyLoop:
    def __init__(
        self, settings: Settings, tables: dict[int, dict[str, bytes]] | None = None, due: DueIndex | None = None
    ) -> None:
        self.processor = Processor(settings)
        self.signal_tables = SignalTables(self.processor.policy, tables, due)
        self.tables, self.due = self.signal_tables.rows, self.signal_tables.due
        self.nudged: list[str] = []

    def send_control(self, event: ControlEvent, partition: int) -> None:
        event.model_dump_json()  # what sending would cost
        self.nudged.append(event.scope)

    def nudge_quiet_scopes(self, now: float) -> int:
        return nudge_quiet_scopes(self.processor, self.signal_tables, self.send_control, now)
