"""Feed a runtime's stores the way the consolidation worker does (turns with offsets, pending
memory-adds), and build jobs that cover everything fed so far."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from consumers.runtime import Runtime
from schemas import ConversationTurn, DreamJob, MemoryAdd

START = datetime(2026, 6, 1, tzinfo=UTC)


class Feed:
    def __init__(self, rt: Runtime, scope: str | None = None, start: datetime = START) -> None:
        self.rt = rt
        self.scope = scope
        self.start = start
        self.offset = 0
        self.jobs = 0

    def turns(self, turns: list[ConversationTurn]) -> None:
        self.rt.transcripts.index_turns([(t, self.offset + i) for i, t in enumerate(turns)])
        self.offset += len(turns)

    def adds(self, adds: list[MemoryAdd]) -> None:
        self.rt.transcripts.add_pending(adds)

    def job(self, scope: str | None = None, at: datetime | None = None) -> DreamJob:
        """A manual job covering everything indexed so far."""
        self.jobs += 1
        return DreamJob(
            job_id=f"job-{self.jobs}",
            scope=scope or self.scope,
            trigger="manual",
            requested_at=at or self.start + timedelta(minutes=self.jobs),
            watermarks={self.rt.settings.topics.turns: self.offset},
        )

    def run(self, scope: str | None = None):
        return self.rt.dream_pass.run(self.job(scope))
