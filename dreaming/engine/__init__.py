"""Engines think; the pass decides. Both engines take a `Snapshot` and return an `ActionPlan`
(plus the motives they saw), and verify the claims the plan left alone; everything after that is
shared and engine-agnostic."""

from dreaming.engine.base import Engine, EngineError, EngineResult, ReadAhead, ReadsAhead, Search, Verified

__all__ = ["Engine", "EngineError", "EngineResult", "ReadAhead", "ReadsAhead", "Search", "Verified"]
