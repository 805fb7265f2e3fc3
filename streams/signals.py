"""Per-scope signals, kept in a changelog-backed Faust table. Pure functions, cheap per event."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


def estimate_tokens(text: str) -> int:
    # ~4 characters per token for English; an estimate is all the trigger needs.
    return len(text) // 4 + 1


@dataclass
class ScopeSignals:
    messages: int = 0
    """Turns since the last job was emitted."""
    tokens: int = 0
    memory_adds: int = 0
    last_event_at: float = 0.0
    offsets: dict[str, int] = field(default_factory=dict)
    """Per input topic: the next offset after this scope's latest event (its partition)."""
    in_flight_job: str | None = None
    in_flight_since: float = 0.0
    waiting_requests: list[str] = field(default_factory=list)
    """Manual trigger request ids not yet covered by an emitted job."""
    last_pass_at: float = 0.0
    last_outcome: str = ""
    consecutive_failures: int = 0

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict | None) -> "ScopeSignals":
        return cls(**data) if data else cls()

    def saw_turn(self, topic: str, offset: int, content: str, at: float) -> None:
        self.messages += 1
        self.tokens += estimate_tokens(content)
        self._saw(topic, offset, at)

    def saw_memory_add(self, topic: str, offset: int, at: float) -> None:
        self.memory_adds += 1
        self._saw(topic, offset, at)

    def _saw(self, topic: str, offset: int, at: float) -> None:
        self.offsets[topic] = max(self.offsets.get(topic, 0), offset + 1)
        self.last_event_at = max(self.last_event_at, at)

    def job_emitted(self, job_id: str, at: float) -> None:
        self.in_flight_job = job_id
        self.in_flight_since = at
        self.messages = self.tokens = self.memory_adds = 0
        self.waiting_requests = []

    def job_finished(self, job_id: str, status: str, at: float) -> bool:
        """Clear the in-flight job if this is it; returns whether it was."""
        if self.in_flight_job != job_id:
            return False
        self.in_flight_job = None
        self.last_pass_at = at
        self.last_outcome = status
        self.consecutive_failures = self.consecutive_failures + 1 if status == "failed" else 0
        return True
