"""A scope's pointer: which generation readers see, the kept generations and the jobs the scope
has run. Plain models, apart from the store that keeps them (dreaming/store/memories.py), so a
reader over the HTTP API (the CLI) uses them without loading a Qdrant client."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

GenerationStatus = Literal["active", "retired", "quarantined", "rejected"]


class OperatorDecision(BaseModel):
    """Who decided what about a generation, and why (dreaming/store/quarantine.py)."""

    model_config = ConfigDict(frozen=True)

    action: Literal["approved", "rejected", "rolled-back"]
    by: str
    reason: str = ""
    at: datetime


class GenerationInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    generation: int
    job_id: str
    status: GenerationStatus
    created_at: datetime
    reason: str = ""
    memories_active: int = 0
    decisions: tuple[OperatorDecision, ...] = ()
    """Operator decisions about this generation (approve, reject, rollback to it), oldest first."""
    based_on: int | None = None
    """The generation it was built from (the active one when its pass ran; 0: none). Readers follow
    these links for what a memory said before an in-place change (`dreaming/store/validity.py`).
    None on generations written before it was recorded."""


class AppliedJob(BaseModel):
    model_config = ConfigDict(frozen=True)

    job_id: str
    outcome: str
    generation: int | None = None
    audit_emitted: bool = False
    watermarks: dict[str, int] = {}
    """The input positions the job covered; messages past them are new to the next pass."""


class ScopeState(BaseModel):
    """The pointer: which generation readers see, and which jobs this scope has already run."""

    model_config = ConfigDict(frozen=True)

    scope: str
    tenant: str
    active_generation: int = 0
    next_generation: int = 1
    generations: tuple[GenerationInfo, ...] = ()
    applied_jobs: tuple[AppliedJob, ...] = ()

    def applied(self, job_id: str) -> AppliedJob | None:
        return next((j for j in self.applied_jobs if j.job_id == job_id), None)

    def covered_offset(self, topic: str) -> int:
        """How far into `topic` (this scope's partition) the last pass that wrote memory read."""
        done = [j.watermarks.get(topic, 0) for j in self.applied_jobs if j.outcome in ("completed", "no-op")]
        return max(done, default=0)

    def generation(self, number: int) -> GenerationInfo | None:
        return next((g for g in self.generations if g.generation == number), None)
