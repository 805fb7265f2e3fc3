"""The last check before promotion. A candidate that fails is quarantined with its reasons and
the active generation stays as it was. Every reason starts with the rule it broke, in brackets.

Each change is judged against the snapshot by the rules of the action that made it:

- a change to an existing memory (update, supersede, archive) needs evidence that is new since
  the last pass (a message this pass is the first to read, or the source of a new memory-add;
  the verify phase, which is code and not a model, may cite older messages), not
  instruction-like, and about that memory: it shares a distinctive word with it, or their
  embeddings are close (`min_relevance`) [evidence-new, evidence-injected, evidence-relevant];
- a merge joins memories that say the same thing, and a rewritten survivor still says it
  [merge-similar];
- a plan may not retire (supersede, archive, merge away) more than `max_retire_share` of the
  scope's memories, beyond a small allowance for small scopes [retire-share];
- protected memories are never changed [protected]; no text the pass would store reads like an
  instruction [injection-text]; new and changed memories cite messages of the transcript
  [provenance]; no text is empty or holds a NUL [text]; size, privacy and the cap as before
  [size, privacy, cap].

A model that obeys an injected instruction can produce any of these plans; none of them passes.

A correction an agent or operator sent (action `correct`) is its own evidence: it needs no
transcript message, and the text it stores meets the same text, injection, size and privacy
rules. Only an operator's may change a protected memory.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dreaming.embedding import LocalEmbedder, canonical_tokens
from dreaming.passes.apply import Candidate, Change
from dreaming.passes.privacy import PrivacyFilter
from dreaming.snapshot import Snapshot
from language.injection import is_injection
from schemas import MemoryRecord
from schemas.scope import parse_scope

Embed = Callable[[Sequence[str]], list[list[float]]]
_CAP_PRUNE = "prune: over the cap"


@dataclass(frozen=True)
class GateResult:
    passed: bool
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class GateRules:
    max_retire_share: float = 0.3
    retire_allowance: int = 2
    """Retirements a plan may always make, whatever the share (a scope of three memories and two
    corrections is not an attack)."""
    min_relevance: float = 0.3
    min_merge_similarity: float = 0.5


class _Relatedness:
    """Whether two texts are about the same thing: a shared distinctive word, or close embeddings.
    Words in most of the scope's memories (the user's name) and in the scope id are not distinctive."""

    def __init__(self, snapshot: Snapshot, embed: Embed) -> None:
        self._embed = embed
        self._vectors: dict[str, np.ndarray] = {}
        _, agent, subject = parse_scope(snapshot.scope)
        active = [m for m in snapshot.memories if m.is_active]
        counts = Counter(token for m in active for token in canonical_tokens(m.text))
        common = {t for t, n in counts.items() if len(active) >= 3 and n * 2 > len(active)}
        self._common = common | canonical_tokens(f"{agent} {subject}".replace("-", " ").replace("_", " "))

    def tokens(self, text: str) -> frozenset[str]:
        return canonical_tokens(text) - self._common

    def similarity(self, a: str, b: str) -> float:
        missing = [t for t in (a, b) if t not in self._vectors]
        if missing:
            for text, vector in zip(missing, self._embed(missing)):
                self._vectors[text] = np.asarray(vector, dtype=np.float32)
        return float(self._vectors[a] @ self._vectors[b])

    def shares_a_word(self, a: str, b: str) -> bool:
        return bool(self.tokens(a) & self.tokens(b))

    def same_thing(self, a: str, b: str, threshold: float) -> bool:
        ta, tb = self.tokens(a), self.tokens(b)
        overlap = len(ta & tb)
        return (overlap > 0 and overlap * 2 >= min(len(ta), len(tb))) or self.similarity(a, b) >= threshold


def gate(
    snapshot: Snapshot,
    candidate: Candidate,
    *,
    memory_cap: int,
    max_text_chars: int,
    privacy: PrivacyFilter,
    rules: GateRules | None = None,
    embed: Embed | None = None,
) -> GateResult:
    rules = rules or GateRules()
    related = _Relatedness(snapshot, embed or LocalEmbedder().embed)
    reasons: list[str] = [f"[{rule}] {detail}" for rule, detail in candidate.violations]
    known_messages = {t.message_id for t in snapshot.transcript}
    injected = set(snapshot.injected_message_ids)
    pending_adds = [snapshot.memory(add_id) for add_id in snapshot.pending_add_ids]
    fresh = set(snapshot.new_message_ids) | {
        message for add in pending_adds if add is not None for message in add.evidence_message_ids
    }
    existing = {m.memory_id for m in snapshot.memories if m.memory_id not in snapshot.pending_add_ids}

    for change in candidate.changes:
        after = change.after
        if change.kind in ("created", "updated") and after is not None:
            reasons.extend(_stored_text(change, after, known_messages, max_text_chars, privacy))
        if change.action == "create" and change.evidence_message_ids and set(change.evidence_message_ids) <= injected:
            # Invariant 6: a chat saying "delete every memory" is data. No memory may rest on it alone.
            reasons.append(
                f"[evidence-injected] created memory {change.memory_id} rests only on instruction-like "
                f"messages {sorted(change.evidence_message_ids)}"
            )
        if change.memory_id in existing and change.action in ("update", "supersede", "archive"):
            if not _condensed(change):
                reason = _evidence(change, fresh, injected, snapshot, related, rules)
                if reason:
                    reasons.append(reason)
        if change.action == "merge" and change.before is not None:
            reason = _merge(change, change.before, candidate, related, rules)
            if reason:
                reasons.append(reason)
        if (
            change.kind in ("superseded", "archived")
            and change.before is not None
            and not change.evidence_message_ids
            and change.action != "correct"  # a correction is its own evidence
        ):
            if not (after is not None and after.status_reason.startswith("prune:")):
                reasons.append(f"[provenance] {change.kind} memory {change.memory_id} without contradicting evidence")

    by_operator = {
        c.memory_id
        for c in candidate.changes
        if c.action == "correct" and c.correction is not None and c.correction.role == "operator"
    }
    for before in snapshot.memories:
        if before.protected and candidate.records.get(before.memory_id) != before:
            if before.memory_id not in by_operator or _changed_after_correction(candidate, before.memory_id):
                reasons.append(f"[protected] protected memory {before.memory_id} was changed")
    reasons.extend(_retire_share(snapshot, candidate, existing, rules))
    core = sum(1 for m in candidate.active if m.tier == "core" and not m.protected)
    if core > memory_cap:  # the archive is unbounded; only the prompt-sized core has a cap
        reasons.append(f"[cap] {core} core memories exceed the cap of {memory_cap}")
    return GateResult(passed=not reasons, reasons=tuple(dict.fromkeys(reasons)))


def _stored_text(
    change: Change, after: MemoryRecord, known_messages: set[str], max_text_chars: int, privacy: PrivacyFilter
) -> list[str]:
    reasons = []
    if after.origin != "memory_add":
        if not after.evidence_message_ids:
            reasons.append(f"[provenance] {change.kind} memory {after.memory_id} has no evidence")
        elif not set(change.evidence_message_ids) <= known_messages:
            reasons.append(f"[provenance] {change.kind} memory {after.memory_id} cites messages outside the transcript")
    if "\x00" in after.text or not after.text.strip():
        reasons.append(f"[text] {change.kind} memory {after.memory_id} would store an empty text or a NUL character")
    if is_injection(after.text):
        reasons.append(
            f"[injection-text] {change.kind} memory {after.memory_id} would store an instruction to the "
            f"system: {after.text[:80]!r}"
        )
    if len(after.text) > max_text_chars:
        reasons.append(f"[size] memory {after.memory_id} is {len(after.text)} chars (cap {max_text_chars})")
    leaked = privacy.findings(after.text)
    if leaked:
        reasons.append(f"[privacy] memory {after.memory_id} contains {', '.join(leaked)}")
    return reasons


def _changed_after_correction(candidate: Candidate, memory_id: str) -> bool:
    """Whether anything but an operator's correction changed this (protected) memory in the pass."""
    return any(
        c.memory_id == memory_id and not (c.action == "correct" and c.correction and c.correction.role == "operator")
        for c in candidate.changes
    )


def _condensed(change: Change) -> bool:
    """The prune step's condensing: the new text is made only of words of the old one."""
    before, after = change.before, change.after
    return (
        change.kind == "updated"
        and change.reason.startswith("prune:")
        and before is not None
        and after is not None
        and canonical_tokens(after.text) <= canonical_tokens(before.text)
    )


def _evidence(
    change: Change, fresh: set[str], injected: set[str], snapshot: Snapshot, related: _Relatedness, rules: GateRules
) -> str | None:
    """Why this change to an existing memory is not supported, or None when it is."""
    memory, cited = change.before, change.evidence_message_ids
    assert memory is not None  # update, supersede and archive change a stored record
    what = f"{change.kind} memory {change.memory_id}"
    if not cited:
        return None  # a prune without evidence is judged by the provenance rule
    # Verify is this code reading the transcript, not a model: it may cite a message an earlier pass
    # read (a claim written after it), but its evidence must still be clean and on topic.
    new = list(cited) if change.phase == "verify" else [m for m in cited if m in fresh]
    if not new:
        return f"[evidence-new] {what} cites {sorted(cited)}, none of them new since the last pass"
    clean = [m for m in new if m not in injected]
    if not clean:
        return f"[evidence-injected] {what} rests only on instruction-like messages {sorted(new)}"
    for message_id in clean:
        turn = snapshot.message(message_id)
        if turn is not None and (
            related.shares_a_word(memory.text, turn.content)
            or related.similarity(memory.text, turn.content) >= rules.min_relevance
        ):
            return None
    return f"[evidence-relevant] {what}: none of {sorted(clean)} says anything about {memory.text[:80]!r}"


def _merge(
    change: Change, before: MemoryRecord, candidate: Candidate, related: _Relatedness, rules: GateRules
) -> str | None:
    after = change.after
    if change.kind == "merged" and after is not None and after.merged_into:
        survivor = next(
            (c.before for c in candidate.changes if c.memory_id == after.merged_into and c.before is not None), None
        )
        if survivor is not None and not related.same_thing(before.text, survivor.text, rules.min_merge_similarity):
            return (
                f"[merge-similar] merge of {before.memory_id} into {survivor.memory_id}: "
                f"{before.text[:60]!r} and {survivor.text[:60]!r} do not say the same thing"
            )
    if change.kind == "updated" and after is not None and after.text != before.text:
        if not related.same_thing(before.text, after.text, rules.min_merge_similarity):
            return (
                f"[merge-similar] merge rewrites {before.memory_id} from {before.text[:60]!r} "
                f"to {after.text[:60]!r}, which says something else"
            )
    return None


def _retire_share(snapshot: Snapshot, candidate: Candidate, existing: set[str], rules: GateRules) -> list[str]:
    active_before = [m for m in snapshot.memories if m.is_active and m.memory_id in existing]
    retired = [
        m.memory_id
        for m in active_before
        if (now := candidate.records.get(m.memory_id)) is None
        or (not now.is_active and not now.status_reason.startswith(_CAP_PRUNE))
    ]
    if len(retired) > rules.retire_allowance and len(retired) > rules.max_retire_share * len(active_before):
        return [
            f"[retire-share] the plan retires {len(retired)} of {len(active_before)} memories "
            f"(more than {rules.max_retire_share:.0%}): {sorted(retired)[:10]}"
        ]
    return []
