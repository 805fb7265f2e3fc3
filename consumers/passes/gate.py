"""The last check before promotion. A candidate that fails is quarantined with its reasons and
the active generation stays as it was."""

from __future__ import annotations

from dataclasses import dataclass

from consumers.passes.apply import Candidate
from consumers.passes.injection import injection_message_ids
from consumers.passes.privacy import PrivacyFilter
from consumers.snapshot import Snapshot


@dataclass(frozen=True)
class GateResult:
    passed: bool
    reasons: tuple[str, ...] = ()


def gate(snapshot: Snapshot, candidate: Candidate, *, memory_cap: int, max_text_chars: int,
         privacy: PrivacyFilter) -> GateResult:
    reasons: list[str] = []
    known_messages = {t.message_id for t in snapshot.transcript}
    injected = set(injection_message_ids(snapshot.transcript))
    for change in candidate.changes:
        after = change.after
        from_live_agent = change.kind == "created" and after is not None and after.origin == "memory_add"
        if change.evidence_message_ids and set(change.evidence_message_ids) <= injected and not from_live_agent:
            # Invariant 6: a chat saying "delete every memory" is data. No change may rest on it alone.
            reasons.append(f"{change.kind} memory {change.memory_id} rests only on instruction-like messages "
                           f"{sorted(change.evidence_message_ids)}")
        if change.kind in ("created", "updated") and after is not None and after.origin != "memory_add":
            if not after.evidence_message_ids:
                reasons.append(f"{change.kind} memory {after.memory_id} has no evidence")
            elif not set(change.evidence_message_ids) <= known_messages:
                reasons.append(f"{change.kind} memory {after.memory_id} cites messages outside the transcript")
        if change.kind in ("created", "updated") and after is not None:
            if len(after.text) > max_text_chars:
                reasons.append(f"memory {after.memory_id} is {len(after.text)} chars (cap {max_text_chars})")
            leaked = privacy.findings(after.text)
            if leaked:
                reasons.append(f"memory {after.memory_id} contains {', '.join(leaked)}")
        if change.kind in ("superseded", "archived") and change.before is not None:
            pruned = change.after is not None and change.after.status_reason.startswith("prune:")
            if not change.evidence_message_ids and not pruned:
                reasons.append(f"{change.kind} memory {change.memory_id} without contradicting evidence")
    for before in snapshot.memories:
        if before.protected and candidate.records.get(before.memory_id) != before:
            reasons.append(f"protected memory {before.memory_id} was changed")
    core = sum(1 for m in candidate.active if m.tier == "core" and not m.protected)
    if core > memory_cap:  # the archive is unbounded; only the prompt-sized core has a cap
        reasons.append(f"{core} core memories exceed the cap of {memory_cap}")
    return GateResult(passed=not reasons, reasons=tuple(reasons))
