"""Join the plans of a pass's chunks into one plan, checked as one.

Each chunk's plan was validated against what its own prompt showed. Joining them:

- create refs are made pass-wide (`c2.aisle`), so two chunks may both say "aisle"; later chunks
  see earlier chunks' creates under those refs and may cite them, which the joined plan resolves;
- two chunks acting on the same memory (an update here, a supersede there) conflict: the action
  whose evidence is newest wins (the newer chunk on a tie) and the other is left out with a note,
  as the design's "newest evidence wins".

The pass then checks the joined plan again (apply, gate) like any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from dreaming.engine.llm.parse import cited_message_ids
from dreaming.snapshot import Snapshot
from schemas import ActionPlan, ArchiveAction, CreateAction, MergeAction, SupersedeAction, UpdateAction
from schemas.actions import MemoryAction


@dataclass(frozen=True)
class ChunkPlan:
    part: int
    plan: ActionPlan
    """Refs already pass-wide (`scoped_refs`)."""
    newest: datetime
    """The newest message the chunk showed: the evidence time of an action that cites none (merge)."""


def scoped_refs(plan: ActionPlan, part: int, shown: frozenset[str]) -> ActionPlan:
    """The plan with its create refs renamed to pass-wide ones; ids of shown memories stay."""
    local = {a.ref for a in plan.actions if isinstance(a, CreateAction)} - shown
    names = {ref: f"c{part}.{ref}"[:64] for ref in local}

    def rename(name: str) -> str:
        return names.get(name, name)

    actions: list[MemoryAction] = []
    for action in plan.actions:
        if isinstance(action, CreateAction):
            actions.append(action.model_copy(update={"ref": rename(action.ref)}))
        elif isinstance(action, (UpdateAction, ArchiveAction)):
            actions.append(action.model_copy(update={"target": rename(action.target)}))
        elif isinstance(action, SupersedeAction):
            actions.append(
                action.model_copy(update={"target": rename(action.target), "replacement": rename(action.replacement)})
            )
        elif isinstance(action, MergeAction):
            actions.append(
                action.model_copy(
                    update={"survivor": rename(action.survivor), "duplicates": tuple(map(rename, action.duplicates))}
                )
            )
    return ActionPlan(actions=tuple(actions))


def claimed_ids(action: MemoryAction) -> tuple[str, ...]:
    """The memories an action rewrites or retires: two chunks claiming one of them conflict."""
    if isinstance(action, (UpdateAction, ArchiveAction, SupersedeAction)):
        return (action.target,)
    if isinstance(action, MergeAction):
        return (action.survivor, *action.duplicates) if action.text is not None else action.duplicates
    return ()


def merge_plans(parts: Sequence[ChunkPlan], snapshot: Snapshot) -> tuple[ActionPlan, list[str]]:
    """One plan from the chunks' plans, in chunk order, and a note per action left out."""
    if len(parts) == 1:
        return parts[0].plan, []
    entries = [(part, action, _evidence_time(action, part, snapshot)) for part in parts for action in part.plan.actions]
    winner: dict[str, int] = {}
    for index, (part, action, when) in enumerate(entries):
        for memory_id in claimed_ids(action):
            held = winner.get(memory_id)
            if held is None or (entries[held][0].part != part.part and entries[held][2] <= when):
                winner[memory_id] = index
    kept, notes = [], []
    for index, (part, action, when) in enumerate(entries):
        lost = [m for m in claimed_ids(action) if winner[m] != index and entries[winner[m]][0].part != part.part]
        if lost:
            other_part, other, other_when = entries[winner[lost[0]]]
            notes.append(
                f"merge: part {part.part}'s {action.kind} of {', '.join(lost)} (evidence of {when:%Y-%m-%d %H:%M}) "
                f"gave way to part {other_part.part}'s {other.kind} (newer evidence, {other_when:%Y-%m-%d %H:%M})"
            )
            continue
        kept.append(action)
    return ActionPlan(actions=tuple(kept)), notes


def _evidence_time(action: MemoryAction, part: ChunkPlan, snapshot: Snapshot) -> datetime:
    times = [turn.ts for i in cited_message_ids(action) if (turn := snapshot.message(i)) is not None]
    return max(times) if times else part.newest
