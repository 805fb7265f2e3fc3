"""Collects a pass's actions in order, hands out create-refs ("new-1", "new-2", ...) and makes sure
no memory is acted on twice, so the apply step never sees two actions fighting over one record."""

from __future__ import annotations

from schemas import (
    ActionPlan,
    ArchiveAction,
    CreateAction,
    MemoryAction,
    MergeAction,
    SupersedeAction,
    UpdateAction,
)

MAX_TEXT_CHARS = 2_000


class PlanBuilder:
    def __init__(self) -> None:
        self._actions: list[MemoryAction] = []
        self._touched: set[str] = set()
        self._created = 0

    @property
    def actions(self) -> tuple[MemoryAction, ...]:
        return tuple(self._actions)

    def touched(self, key: str) -> bool:
        return key in self._touched

    def create(self, text: str, evidence: tuple[str, ...], rationale: str, confidence: float = 0.8) -> str:
        self._created += 1
        ref = f"new-{self._created}"
        self._actions.append(
            CreateAction(
                ref=ref,
                text=_clip(text),
                evidence_message_ids=evidence,
                rationale=rationale,
                confidence=confidence,
            )
        )
        return ref

    def extend(self, ref: str, text: str, evidence: tuple[str, ...]) -> None:
        """Give a memory this plan creates a new wording and more evidence (a topic told over
        several messages becomes one memory citing all of them)."""
        for index, action in enumerate(self._actions):
            if isinstance(action, CreateAction) and action.ref == ref:
                self._actions[index] = action.model_copy(update={"text": _clip(text), "evidence_message_ids": evidence})
                return
        raise KeyError(f"no create action with ref {ref!r} in this plan")

    def supersede(self, target: str, replacement: str, evidence: tuple[str, ...], rationale: str) -> None:
        self._claim(target)
        self._actions.append(
            SupersedeAction(
                target=target,
                replacement=replacement,
                evidence_message_ids=evidence,
                rationale=rationale,
            )
        )

    def update(self, target: str, text: str, evidence: tuple[str, ...], rationale: str) -> None:
        self._claim(target)
        self._actions.append(
            UpdateAction(target=target, text=_clip(text), evidence_message_ids=evidence, rationale=rationale)
        )

    def archive(self, target: str, evidence: tuple[str, ...], rationale: str) -> None:
        """Retire a contradicted memory whose replacement cannot be named (it is protected)."""
        self._claim(target)
        self._actions.append(ArchiveAction(target=target, evidence_message_ids=evidence, rationale=rationale))

    def merge(self, survivor: str, duplicates: tuple[str, ...], text: str | None, rationale: str) -> None:
        for key in (survivor, *duplicates):
            self._claim(key)
        self._actions.append(
            MergeAction(
                survivor=survivor, duplicates=duplicates, text=_clip(text) if text else None, rationale=rationale
            )
        )

    def build(self) -> ActionPlan:
        return ActionPlan(actions=self.actions)

    def _claim(self, key: str) -> None:
        if key in self._touched:
            raise ValueError(f"memory {key!r} is already the subject of another action in this plan")
        self._touched.add(key)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT_CHARS else text[: MAX_TEXT_CHARS - 1] + "\u2026"
