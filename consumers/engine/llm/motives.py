"""Why this pass was worth it, read off the plan the model returned and the snapshot's inbox."""

from __future__ import annotations

from collections.abc import Sequence

from consumers.engine.llm.parse import cited_message_ids
from consumers.snapshot import Snapshot
from schemas import ActionPlan, CreateAction, MergeAction, Motive, SupersedeAction, UpdateAction
from schemas.actions import MemoryAction
from schemas.jobs import MotiveKind

_MAX_IDS = 50


def _evidence(actions: Sequence[MemoryAction]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for a in actions for i in cited_message_ids(a)))[:_MAX_IDS]


def motives_from_plan(snapshot: Snapshot, plan: ActionPlan) -> tuple[Motive, ...]:
    groups: list[tuple[MotiveKind, list[MemoryAction], str]] = [
        ("correction", [a for a in plan.actions if isinstance(a, (SupersedeAction, UpdateAction))],
         "memories corrected by newer messages"),
        ("repetition", [a for a in plan.actions if isinstance(a, MergeAction)], "sets of duplicate memories merged"),
        ("decision", [a for a in plan.actions if isinstance(a, CreateAction)], "new facts or decisions to remember"),
    ]
    motives = [Motive(kind=kind, summary=f"{len(actions)} {summary}", message_ids=_evidence(actions))
               for kind, actions, summary in groups if actions]
    if snapshot.pending_add_ids:
        motives.append(Motive(kind="memory_add", summary=f"{len(snapshot.pending_add_ids)} memory-adds from the live agent"))
    return tuple(motives)
