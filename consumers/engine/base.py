"""The interface both engines implement.

An engine reads the immutable snapshot and the signals the gather pass found in it (the motives:
why this scope is worth a pass) and proposes a plan. The pass has already decided that there is
something to do: an engine is never called for a scope without signal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from consumers.signals import Signals
from consumers.snapshot import Snapshot
from schemas import ActionPlan, Motive


class EngineError(RuntimeError):
    """The engine could not produce a valid plan (e.g. malformed model output). The pass fails
    and memory stays as it was; it is never read as "no changes"."""


@dataclass(frozen=True)
class EngineResult:
    plan: ActionPlan
    motives: tuple[Motive, ...] = ()
    """The motives the engine worked from (the gather pass's)."""
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Human-readable remarks for the dream diary (e.g. an ignored prompt injection)."""


class Engine(Protocol):
    name: str

    def propose(self, snapshot: Snapshot, signals: Signals) -> EngineResult:
        """Read the snapshot and its signals, return the actions that would curate it. Must not
        mutate anything."""
        ...
