"""What an engine proposes for one pass. Engines propose, the pass disposes: every action is
checked against the snapshot (no invented ids, evidence required) before anything is applied.

New memories are referred to by the `ref` their `create` action gave, so one plan can create a
memory and later supersede or merge into it; the pass assigns the stored id.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from schemas.events import Contract, MessageId

Evidence = Annotated[tuple[MessageId, ...], Field(min_length=1)]


class CreateAction(Contract):
    kind: Literal["create"] = "create"
    ref: str = Field(min_length=1, max_length=64)
    text: str = Field(min_length=1, max_length=2_000)
    evidence_message_ids: Evidence
    rationale: str = Field(min_length=1)
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)


class UpdateAction(Contract):
    """Rewrite a memory in place (same id), e.g. a relative date made absolute."""

    kind: Literal["update"] = "update"
    target: str
    text: str = Field(min_length=1, max_length=2_000)
    evidence_message_ids: Evidence
    rationale: str = Field(min_length=1)


class MergeAction(Contract):
    """Paraphrased duplicates become one memory (the survivor) that keeps every source."""

    kind: Literal["merge"] = "merge"
    survivor: str
    duplicates: tuple[str, ...] = Field(min_length=1)
    text: str | None = None
    """Optional new wording for the survivor; None keeps its text."""
    rationale: str = Field(min_length=1)


class SupersedeAction(Contract):
    """A newer fact replaces an older one; the old one stays in history as superseded."""

    kind: Literal["supersede"] = "supersede"
    target: str
    replacement: str
    """Id or create-ref of the memory that replaces it."""
    evidence_message_ids: Evidence
    rationale: str = Field(min_length=1)


class ArchiveAction(Contract):
    kind: Literal["archive"] = "archive"
    target: str
    evidence_message_ids: tuple[MessageId, ...] = ()
    """Required unless the archive is a prune (stale, low value); the gate checks which."""
    rationale: str = Field(min_length=1)
    prune: bool = False


MemoryAction = Annotated[
    CreateAction | UpdateAction | MergeAction | SupersedeAction | ArchiveAction,
    Field(discriminator="kind"),
]


class ActionPlan(Contract):
    """An engine's whole answer for one pass. An empty list is a real answer ("nothing to do"),
    which is why unparseable model output must fail rather than become one."""

    actions: tuple[MemoryAction, ...] = ()


action_plan_adapter: TypeAdapter[ActionPlan] = TypeAdapter(ActionPlan)
