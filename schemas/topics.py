"""The topic catalog. Every topic is keyed by scope and all share one partition count, so a
scope lands in the same partition number everywhere (co-partitioning): the worker that owns
partition p of the job topic also owns partition p of the transcripts it needs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TopicSpec:
    name: str
    purpose: str
    config: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class TopicCatalog:
    prefix: str
    partitions: int
    replication: int
    app_id: str

    @property
    def turns(self) -> str:
        return f"{self.prefix}.turns"

    @property
    def memory_adds(self) -> str:
        return f"{self.prefix}.memory-adds"

    @property
    def control(self) -> str:
        return f"{self.prefix}.control"

    @property
    def jobs(self) -> str:
        return f"{self.prefix}.jobs"

    @property
    def audit(self) -> str:
        return f"{self.prefix}.audit"

    @property
    def dead_letter(self) -> str:
        return f"{self.prefix}.dead-letter"

    @property
    def signals_changelog(self) -> str:
        """Faust names a table's changelog `<app id>-<table>-changelog`."""
        return f"{self.app_id}-signals-changelog"

    def specs(self) -> tuple[TopicSpec, ...]:
        compacted = (("cleanup.policy", "compact"),)
        return (
            TopicSpec(self.turns, "conversation turns (ConversationTurn)"),
            TopicSpec(self.memory_adds, "memories written by live agents (MemoryAdd)"),
            TopicSpec(self.control, "manual triggers and resets (ControlEvent)"),
            TopicSpec(self.jobs, "dream jobs (DreamJob)"),
            TopicSpec(self.audit, "job lifecycle and memory-change events (AuditEvent)"),
            TopicSpec(self.dead_letter, "invalid input with its reason and origin (DeadLetter)"),
            TopicSpec(self.signals_changelog, "per-scope signal table (Faust changelog)", compacted),
        )

    def inputs(self) -> tuple[str, ...]:
        return (self.turns, self.memory_adds)
