"""What the offline engine's tests ask of a plan: propose on a snapshot, then the actions of one kind,
the memory ids the plan touches, the memory a create action makes."""

from __future__ import annotations

from dreaming.engine.base import EngineResult
from dreaming.engine.offline import OfflineEngine
from dreaming.passes.gather import gather
from dreaming.snapshot import Snapshot
from schemas import CreateAction, MergeAction


def propose(snapshot: Snapshot) -> EngineResult:
    return OfflineEngine().propose(snapshot, gather(snapshot))


def of_kind(result: EngineResult, kind: type) -> list:
    return [a for a in result.plan.actions if isinstance(a, kind)]


def targeted_ids(result: EngineResult) -> set[str]:
    ids: set[str] = set()
    for action in result.plan.actions:
        if isinstance(action, MergeAction):
            ids.update((action.survivor, *action.duplicates))
        elif not isinstance(action, CreateAction):
            ids.add(action.target)
    return ids


def created(result: EngineResult, ref: str) -> CreateAction:
    return next(a for a in of_kind(result, CreateAction) if a.ref == ref)
