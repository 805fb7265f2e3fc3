"""The interface both engines implement."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from consumers.snapshot import Snapshot
from schemas import ActionPlan, Motive


class EngineError(RuntimeError):
    """The engine could not produce a valid plan (e.g. malformed model output). The pass fails
    and memory stays as it was; it is never read as "no changes"."""


@dataclass(frozen=True)
class EngineResult:
    plan: ActionPlan
    motives: tuple[Motive, ...] = ()
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Human-readable remarks for the dream diary (e.g. an ignored prompt injection)."""


class Engine(Protocol):
    name: str

    def propose(self, snapshot: Snapshot) -> EngineResult:
        """Read the snapshot, return the actions that would curate it. Must not mutate anything."""
        ...
