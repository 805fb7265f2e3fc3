"""Turn an engine's plan into a candidate generation, checking every action against the snapshot.

The engine may be a language model, so nothing it says is trusted, but one bad action does not
sink the plan: an action that names a memory or message the snapshot does not hold, refers to
itself (`supersede(X, X)`), targets a retired memory or drops a memory without evidence is left
out with a note for the diary, and the rest stands. An action on a protected memory is left out
too and recorded as a violation: the gate quarantines a plan that tried to change one.

Memory-adds that read like an instruction to the system are not written (they are data, never
commands); they are noted and counted as `dropped_adds`, so the pass clears them from the inbox.

Corrections (an agent's or operator's PATCH or DELETE of one memory, `snapshot.corrections`) are
applied first, in the order they were sent, so the engine's actions and verify work on the
corrected memory: an update rewrites the text in place (same id), a retire archives it, each with
the correction as its reason and evidence. A correction of a memory that is unknown or no longer
active is left out with a note; an agent's correction of a protected memory is left out and
recorded as a violation (the gate quarantines the pass); an operator's passes.

Validity time is set here, where the evidence and its times are known: a new record holds from
its earliest evidence message (`valid_from`), a superseded or evidence-archived one until the
newest message that ended it (`valid_to`), a corrected text from the correction's time, a
retired-by-correction memory until then. Rewording (update, merge) keeps a memory's `valid_from`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import assert_never

from dreaming.snapshot import Snapshot
from language.injection import is_injection
from schemas import (
    ActionPlan,
    ArchiveAction,
    ControlEvent,
    CreateAction,
    MemoryAction,
    MemoryCorrection,
    MemoryRecord,
    MergeAction,
    SupersedeAction,
    UpdateAction,
)
from schemas.audit import ChangeKind


class PlanRejected(ValueError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    memory_id: str
    before: MemoryRecord | None
    after: MemoryRecord
    reason: str
    evidence_message_ids: tuple[str, ...] = ()
    action: str = ""
    """The plan action that made it (create, update, merge, supersede, archive), or "" for one
    the pass made itself (the prune step's cap): the gate judges each by its action's rules."""
    phase: str = "plan"
    """Who proposed it: "plan" (the engine, possibly a model), "correction", or a later phase ("verify")."""
    correction_id: str | None = None
    correction: MemoryCorrection | None = None
    """For action "correct": the correction that asked for it (who, in which role)."""


@dataclass
class Candidate:
    """The next generation being built: every record (active or not) plus the changes that made it."""

    records: dict[str, MemoryRecord]
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Actions left out, and why (for the diary)."""
    violations: list[tuple[str, str]] = field(default_factory=list)
    """(rule, detail) for actions that must send the plan to quarantine (a protected memory)."""
    dropped_adds: set[str] = field(default_factory=set)
    """Pending memory-adds not written (instruction-like text); the pass clears them from the inbox."""
    applied_corrections: list[str] = field(default_factory=list)
    """Corrections applied (or found already in effect): cleared from their inbox once promoted."""
    refused_corrections: list[str] = field(default_factory=list)
    """Corrections that can never apply (unknown or retired memory, an agent's on a protected one):
    cleared from their inbox whenever the pass writes a generation, so they cannot hold a scope back."""

    def carry(self, records: dict[str, MemoryRecord], changes: list[Change]) -> Candidate:
        """A new candidate with these records and changes and this one's notes and violations."""
        return Candidate(
            records=records,
            changes=changes,
            notes=list(self.notes),
            violations=list(self.violations),
            dropped_adds=set(self.dropped_adds),
            applied_corrections=list(self.applied_corrections),
            refused_corrections=list(self.refused_corrections),
        )

    @property
    def active(self) -> list[MemoryRecord]:
        return [m for m in self.records.values() if m.is_active]


def new_memory_id(scope: str, text: str, evidence: tuple[str, ...]) -> str:
    digest = hashlib.sha256(f"{scope}|{text}|{','.join(sorted(evidence))}".encode()).hexdigest()
    return f"mem-{digest[:16]}"


def _union(*groups: tuple[str, ...]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for group in groups:
        for item in group:
            seen.setdefault(item, None)
    return tuple(seen)


class _Applier:
    def __init__(self, snapshot: Snapshot, when: datetime, start: Candidate | None = None, phase: str = "plan") -> None:
        self.snapshot = snapshot
        self.phase = phase
        self.when = when
        self.known_messages = {t.message_id for t in snapshot.transcript}
        self.candidate = (
            Candidate(records={m.memory_id: m for m in snapshot.memories})
            if start is None
            else start.carry(dict(start.records), list(start.changes))
        )
        self.refs: dict[str, str] = {}
        self.problems: list[str] = []
        """Problems of the action being applied; any problem leaves the whole action out."""
        self.kind = ""
        self.staged: list[Change] = []
        """The changes of the action being applied, written only when it has no problem."""

    # --- checks shared by every action
    def resolve(self, name: str, action: str) -> MemoryRecord | None:
        memory_id = self.refs.get(name, name)
        record = self.candidate.records.get(memory_id)
        if record is None:
            self.problems.append(f"{action}: unknown memory id {name!r}")
            return None
        if record.protected:
            self.candidate.violations.append(
                ("protected", f"{action}: memory {name!r} is protected (user-curated) and cannot be changed")
            )
            self.problems.append(f"{action}: memory {name!r} is protected")
            return None
        if not record.is_active:
            self.problems.append(f"{action}: memory {name!r} is already {record.status}")
            return None
        return record

    def evidence(self, ids: tuple[str, ...], action: str) -> tuple[str, ...]:
        unknown = [i for i in ids if i not in self.known_messages]
        if unknown:
            self.problems.append(f"{action}: cites message ids not in the transcript: {unknown}")
        return ids

    def put(
        self, kind: ChangeKind, before: MemoryRecord | None, after: MemoryRecord, reason: str, evidence: tuple[str, ...]
    ) -> None:
        self.staged.append(Change(kind, after.memory_id, before, after, reason, evidence, self.kind, self.phase))

    def evidence_time(self, ids: tuple[str, ...], newest: bool = False) -> datetime | None:
        """The earliest (or newest) time of the messages `ids` that the snapshot holds."""
        times = [turn.ts for i in ids if (turn := self.snapshot.message(i)) is not None]
        if not times:
            return None
        return max(times) if newest else min(times)

    def ended(self, ids: tuple[str, ...]) -> datetime:
        """When evidence ended a memory: its newest message (the pass's time if none is known)."""
        return self.evidence_time(ids, newest=True) or self.when

    # --- actions
    def create(self, a: CreateAction) -> None:
        label = f"create {a.ref!r}"
        if a.ref in self.refs:
            self.problems.append(f"{label}: ref used twice")
            return
        evidence = self.evidence(a.evidence_message_ids, label)
        if self.problems:
            return
        memory_id = new_memory_id(self.snapshot.scope, a.text, evidence)
        self.refs[a.ref] = memory_id
        existing = self.candidate.records.get(memory_id)
        if existing is not None:  # the same fact from the same evidence: nothing new
            return
        record = MemoryRecord(
            scope=self.snapshot.scope,
            memory_id=memory_id,
            text=a.text,
            origin="transcript",
            evidence_message_ids=evidence,
            confidence=a.confidence,
            created_at=self.when,
            updated_at=self.when,
            valid_from=self.evidence_time(evidence),
        )
        self.put("created", None, record, a.rationale, evidence)

    def update(self, a: UpdateAction) -> None:
        label = f"update {a.target!r}"
        record = self.resolve(a.target, label)
        evidence = self.evidence(a.evidence_message_ids, label)
        if record is None or self.problems:
            return
        if a.text == record.text and set(evidence) <= set(record.evidence_message_ids):
            return  # nothing new: the same words on the same evidence (new evidence alone is kept)
        after = record.model_copy(
            update={
                "text": a.text,
                "updated_at": self.when,
                "evidence_message_ids": _union(record.evidence_message_ids, evidence),
            }
        )
        self.put("updated", record, after, a.rationale, evidence)

    def merge(self, a: MergeAction) -> None:
        label = f"merge into {a.survivor!r}"
        survivor = self.resolve(a.survivor, label)
        resolved = [self.resolve(d, label) for d in a.duplicates]
        duplicates = [d for d in resolved if d is not None]
        if survivor is None or len(duplicates) < len(resolved):
            return
        if any(d.memory_id == survivor.memory_id for d in duplicates):
            self.problems.append(f"{label}: a memory cannot be merged into itself")
            return
        evidence = _union(survivor.evidence_message_ids, *(d.evidence_message_ids for d in duplicates))
        after = survivor.model_copy(
            update={
                "text": a.text or survivor.text,
                "evidence_message_ids": evidence,
                "updated_at": self.when,
                # Transitive: a record merged into one that is itself merged later is still named
                # once the middle record is pruned (`inactive_generations`).
                "merged_from": _union(survivor.merged_from, *((d.memory_id, *d.merged_from) for d in duplicates)),
                "confidence": max([survivor.confidence, *(d.confidence for d in duplicates)]),
                "valid_from": min(
                    (m.valid_from for m in (survivor, *duplicates) if m.valid_from is not None), default=None
                ),
            }
        )
        for dup in duplicates:
            gone = dup.model_copy(
                update={
                    "status": "merged",
                    "merged_into": survivor.memory_id,
                    "status_reason": a.rationale,
                    "updated_at": self.when,
                }
            )
            self.put("merged", dup, gone, a.rationale, dup.evidence_message_ids)
        self.put("updated", survivor, after, f"absorbed duplicates: {a.rationale}", evidence)

    def supersede(self, a: SupersedeAction) -> None:
        label = f"supersede {a.target!r}"
        record = self.resolve(a.target, label)
        replacement = self.resolve(a.replacement, label)
        evidence = self.evidence(a.evidence_message_ids, label)
        if record is None or replacement is None or self.problems:
            return
        if replacement.memory_id == record.memory_id:
            self.problems.append(f"{label}: a memory cannot supersede itself")
            return
        after = record.model_copy(
            update={
                "status": "superseded",
                "superseded_by": replacement.memory_id,
                "status_reason": a.rationale,
                "updated_at": self.when,
                "valid_to": self.ended(evidence),
            }
        )
        self.put("superseded", record, after, a.rationale, evidence)

    def archive(self, a: ArchiveAction) -> None:
        label = f"archive {a.target!r}"
        record = self.resolve(a.target, label)
        evidence = self.evidence(a.evidence_message_ids, label)
        if not evidence and not a.prune:
            self.problems.append(f"{label}: no contradicting evidence; silence is not a reason to drop a memory")
        if record is None or self.problems:
            return
        ended = {"valid_to": self.ended(evidence)} if evidence else {}  # a prune (no evidence) ends nothing
        after = record.model_copy(
            update={"status": "archived", "status_reason": a.rationale, "updated_at": self.when, **ended}
        )
        self.put("archived", record, after, a.rationale, evidence)

    def correct(self, event: ControlEvent, correction: MemoryCorrection) -> None:
        """One correction: the text in place (update) or the memory's end (retire), at the event's time."""
        label = f"correction {event.request_id} ({correction.op} {correction.memory_id!r} by {correction.by})"
        record = self.candidate.records.get(correction.memory_id)
        if record is None:
            self.problems.append(f"{label}: no such memory")
            return
        if not record.is_active:
            self.problems.append(f"{label}: the memory is already {record.status}")
            return
        if record.protected and correction.role != "operator":
            self.candidate.violations.append(
                ("protected", f"{label}: memory {correction.memory_id!r} is protected; correcting it needs an operator")
            )
            self.problems.append(f"{label}: the memory is protected and the correction is not an operator's")
            return
        reason = f"correction {event.request_id} by {correction.by} ({correction.role}): {event.reason}"
        if correction.op == "update":
            if correction.text == record.text:
                self.candidate.notes.append(f"apply: {label}: the memory already says that")
                return
            after = record.model_copy(
                update={"text": correction.text, "updated_at": self.when, "valid_from": event.ts, "valid_to": None}
            )
            kind: ChangeKind = "updated"
        else:
            after = record.model_copy(
                update={"status": "archived", "status_reason": reason, "updated_at": self.when, "valid_to": event.ts}
            )
            kind = "archived"
        self.staged.append(
            Change(
                kind,
                record.memory_id,
                record,
                after,
                reason,
                (),
                "correct",
                "correction",
                correction_id=event.request_id,
                correction=correction,
            )
        )


def _refused_add(snapshot: Snapshot, record: MemoryRecord) -> str | None:
    if is_injection(record.text):  # data, never a command
        return f"its text reads like an instruction to the system ({_excerpt(record.text)!r})"
    if record.memory_id in snapshot.foreign_evidence_adds:  # as the stream worker dead-letters it
        return (
            f"it cites messages that are not this scope's ({sorted(record.evidence_message_ids)[:5]}): "
            "evidence is never borrowed from another scope"
        )
    return None


def apply_inputs(snapshot: Snapshot) -> Candidate:
    """The snapshot's memories with what agents and operators sent since the last pass: the pending
    memory-adds written (instruction-like ones dropped, noted) and the corrections applied. The
    engine reads memory as this leaves it; its plan is applied on top (`apply_plan`)."""
    applier = _Applier(snapshot, snapshot.job.requested_at)
    applier.candidate.notes.extend(
        f"memory-add {add_id} waits in the inbox: it cites a message not indexed yet"
        for add_id in sorted(snapshot.deferred_add_ids)
    )
    for add_id in sorted(snapshot.pending_add_ids):
        record = snapshot.memory(add_id)
        if record is None:
            continue
        refusal = _refused_add(snapshot, record)
        if refusal:
            # Not written, and cleared from the inbox with this note.
            del applier.candidate.records[add_id]
            applier.candidate.dropped_adds.add(add_id)
            applier.candidate.notes.append(f"memory-add {add_id} not written: {refusal}")
            continue
        applier.candidate.changes.append(
            Change(
                "created",
                add_id,
                None,
                record,
                "memory-add written by the live agent",
                record.evidence_message_ids,
                "memory_add",
            )
        )
    _correct_all(applier, snapshot.corrections)
    return applier.candidate


def apply_plan(snapshot: Snapshot, plan: ActionPlan, start: Candidate | None = None) -> Candidate:
    """Apply the plan on a copy of `start` (default: `apply_inputs(snapshot)`); an action with a
    problem is left out and noted in `candidate.notes`, the others stand."""
    inputs = apply_inputs(snapshot) if start is None else start
    return _run(_Applier(snapshot, snapshot.job.requested_at, start=inputs), plan.actions)


def engine_view(snapshot: Snapshot, inputs: Candidate) -> Snapshot:
    """The snapshot as the engine should read it: corrected memories in place of the stored ones
    (the same order), so a plan builds on a correction instead of undoing it."""
    if not inputs.applied_corrections:
        return snapshot
    return replace(snapshot, memories=tuple(inputs.records.get(m.memory_id, m) for m in snapshot.memories))


def _correct_all(applier: _Applier, corrections: tuple[ControlEvent, ...]) -> None:
    """Apply the snapshot's corrections in the order they were sent; each applies whole or not at all."""
    applier.phase = "correction"
    for event in corrections:
        if event.correction is None:
            continue
        applier.problems, applier.staged, applier.kind = [], [], "correct"
        applier.correct(event, event.correction)
        if applier.problems:
            applier.candidate.notes.append(f"apply: left out {'; '.join(applier.problems)}")
            applier.candidate.refused_corrections.append(event.request_id)
            continue
        for change in applier.staged:
            applier.candidate.records[change.memory_id] = change.after
            applier.candidate.changes.append(change)
        applier.candidate.applied_corrections.append(event.request_id)
    applier.phase = "plan"


def apply_actions(
    snapshot: Snapshot, candidate: Candidate, actions: tuple[MemoryAction, ...], phase: str = "plan"
) -> Candidate:
    """Apply more actions (from a later phase) on top of `candidate`, with the same checks; the
    result is a new candidate and `candidate` is left as it was."""
    return _run(_Applier(snapshot, snapshot.job.requested_at, start=candidate, phase=phase), actions)


def _handle(applier: _Applier, action: MemoryAction) -> None:
    match action:
        case CreateAction():
            applier.create(action)
        case UpdateAction():
            applier.update(action)
        case MergeAction():
            applier.merge(action)
        case SupersedeAction():
            applier.supersede(action)
        case ArchiveAction():
            applier.archive(action)
        case _:
            assert_never(action)


def _run(applier: _Applier, actions: tuple[MemoryAction, ...]) -> Candidate:
    for action in actions:
        applier.problems, applier.staged, applier.kind = [], [], action.kind
        refs = dict(applier.refs)
        _handle(applier, action)
        if applier.problems:
            applier.refs = refs  # a left-out create names nothing later actions could cite
            applier.candidate.notes.append(f"apply: left out {'; '.join(applier.problems)}")
            continue
        for change in applier.staged:
            applier.candidate.records[change.memory_id] = change.after
            applier.candidate.changes.append(change)
    return applier.candidate


def _excerpt(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"
