"""The phases of a dream pass between reading and writing, over an immutable snapshot:

orient → gather signal → consolidate (the engine) → apply → verify → prune → gate.

- gather (`passes/gather.py`) decides whether there is anything to dream about: no signal, no
  pending memory-add and no correction is a no-op, recorded, with no engine or model call and no
  generation written;
- apply writes the pending memory-adds and the corrections agents and operators sent
  (`apply_inputs`); the engine proposes a plan from the snapshot as corrected (it is not called
  when corrections are all there is), with the job's steering; apply checks every action;
- verify (`passes/verify.py`, the engine's rules through `Engine.verify`) judges the claims the
  plan left alone against the transcript index and supersedes only what a newer message contradicts;
- prune (`passes/prune.py`) condenses long memories, leaves long-retired records out and keeps
  the cap;
- the privacy filter masks (or, in block mode, lets the gate quarantine) what the pass writes;
  the gate (`passes/gate.py`) checks evidence, protected memories, injection, privacy and size.

Nothing here reads or writes a store: `dream_pass.DreamPass` takes the snapshot and writes what
these phases made.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from dreaming.engine import Engine, EngineError, EngineResult, ReadAhead, ReadsAhead, Search
from dreaming.passes.apply import Candidate, PlanRejected, apply_actions, apply_inputs, apply_plan, engine_view
from dreaming.passes.gate import GateRules, gate
from dreaming.passes.gather import gather
from dreaming.passes.orient import orient
from dreaming.passes.privacy import PrivacyFilter, mask_candidate
from dreaming.passes.prune import prune
from dreaming.passes.verify import verify
from dreaming.signals import Signals
from dreaming.snapshot import Snapshot
from dreaming.store.memories import Embed
from schemas import ActionPlan
from schemas.settings import Settings

Stopped = Literal["no-op", "failed"]
"""How a pass that writes no generation ends."""


@dataclass
class Dreamed:
    """What the in-memory phases made of one snapshot (orient → gate), before anything is written."""

    signals: Signals
    before: int
    notes: list[str]
    result: EngineResult | None = None
    candidate: Candidate | None = None
    gate_reasons: tuple[str, ...] = ()
    status: Stopped | None = None
    """Set when the pass ends without writing a generation."""
    reason: str = ""

    @property
    def passed(self) -> bool:
        return not self.gate_reasons


def gate_rules(settings: Settings) -> GateRules:
    return GateRules(
        max_retire_share=settings.gate_max_retire_share,
        retire_allowance=settings.gate_retire_allowance,
        min_relevance=settings.gate_min_relevance,
        min_merge_similarity=settings.gate_min_merge_similarity,
    )


@dataclass
class Begun:
    """A snapshot's phases before the engine (orient, gather, the inputs applied): what a group of
    passes reads before their engine's first embeddings are made in one batch (`DreamPass.run_many`)."""

    out: Dreamed
    view: Snapshot | None = None
    """The snapshot as the engine reads it (`engine_view`); None when the pass has no work."""
    inputs: Candidate | None = None
    ahead: ReadAhead | None = None
    """What the engine read ahead of proposing (`ReadsAhead`), if it did."""


def begin(snapshot: Snapshot, lap: Callable[[str], None] = lambda phase: None) -> Begun:
    """Orient and gather; with work to do, the pending inputs applied as the engine will read them."""
    orientation = orient(snapshot)
    lap("orient")
    signals = gather(snapshot)
    out = Dreamed(signals, orientation.stored_active, [orientation.describe(), signals.describe()])
    out.notes.extend(
        f"steering ({level}, set by {s.by} at {s.set_at.isoformat()}): \u201c{s.text}\u201d"
        for level, s in (("tenant", snapshot.job.tenant_steering), ("scope", snapshot.job.scope_steering))
        if s is not None
    )
    lap("gather")
    if not signals.has_work:
        out.status, out.reason = "no-op", "no signal: nothing to dream about"
        return Begun(out)
    inputs = apply_inputs(snapshot)
    return Begun(out, engine_view(snapshot, inputs), inputs)


def dream(
    snapshot: Snapshot,
    engine: Engine,
    search: Search,
    settings: Settings,
    privacy: PrivacyFilter,
    lap: Callable[[str], None] = lambda phase: None,
    embed: Embed | None = None,
    before_verify: Callable[[Candidate], object] = lambda candidate: None,
    begun: Begun | None = None,
) -> Dreamed:
    """The phases between reading and writing, over an immutable snapshot; `search` is the
    transcript index the verify step asks (TranscriptStore.search, or `window_search`), and
    `before_verify` gets the plan as applied first (the new messages' vectors come from it).
    `begun`: the phases up to the engine, when the caller ran them already (`begin`)."""
    begun = begun if begun is not None else begin(snapshot, lap)
    out = begun.out
    if out.status is not None:
        return out
    assert begun.view is not None and begun.inputs is not None, "a pass with work has its inputs applied"
    inputs, signals = begun.inputs, out.signals
    try:
        if not signals.has_signal:
            out.result = EngineResult(
                plan=ActionPlan(), notes=(f"only corrections to apply: the {engine.name} engine was not called",)
            )
        elif begun.ahead is not None and isinstance(engine, ReadsAhead):
            out.result = engine.propose(begun.view, signals, ahead=begun.ahead)
        else:
            out.result = engine.propose(begun.view, signals)
    except EngineError as err:
        out.status, out.reason, out.result = "failed", f"engine {engine.name} failed: {err}", err.spent
        return out
    out.notes.extend(out.result.notes)
    lap("propose")
    try:
        candidate = apply_plan(snapshot, out.result.plan, start=inputs)
    except PlanRejected as err:
        out.status, out.reason = "failed", f"plan rejected: {err}"
        return out
    lap("apply")
    before_verify(candidate)
    checked = verify(
        snapshot, candidate, engine, search, top_k=settings.verify_top_k, max_claims=settings.verify_max_claims
    )
    out.notes.extend((checked.describe(), *checked.notes))
    out.notes.extend(
        f"verify: {v.memory_id} contradicted by {v.finding.message_id}: \u201c{v.finding.quote}\u201d"
        for v in checked.verdicts
        if v.finding.judgement == "contradicted"
    )
    try:
        candidate = apply_actions(snapshot, candidate, checked.actions, phase="verify")
    except PlanRejected as err:
        out.status, out.reason = "failed", f"verify actions rejected: {err}"
        return out
    lap("verify")
    pruned = prune(
        snapshot,
        candidate,
        cap=settings.memory_cap,
        condense_chars=settings.condense_chars,
        core_token_budget=settings.core_token_budget,
    )
    candidate = pruned.candidate
    out.notes.extend((pruned.describe(), *pruned.notes))
    lap("prune")
    if settings.privacy_mode == "mask":
        candidate, masked = mask_candidate(candidate, privacy)
        out.notes.extend(masked)
    verdict = gate(
        snapshot,
        candidate,
        memory_cap=settings.memory_cap,
        max_text_chars=settings.max_memory_chars,
        privacy=privacy,
        rules=gate_rules(settings),
        embed=embed,
    )
    out.candidate, out.gate_reasons = candidate, verdict.reasons
    out.notes.extend(candidate.notes)
    lap("gate")
    if not candidate.changes and verdict.passed:
        out.status, out.reason = "no-op", "nothing to change: every claim stands"
    return out
