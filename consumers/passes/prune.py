"""Prune: keep a scope's generation lean. Three steps, in this order:

1. **condense**: an active, unprotected memory longer than `condense_chars` keeps its first
   sentence(s) up to that length (a single over-long sentence is cut at a word, with an ellipsis).
   It is an `UpdateAction` citing the memory's own evidence, so provenance is kept; a memory with
   no evidence in the transcript window cannot cite any and is left as it is (noted).
2. **leave retired records out**: a superseded, merged or archived record stays in the generation
   that retired it and the next ones, until it was already inactive `N` generations back
   (`Snapshot.long_inactive_ids`); then it is not copied forward. Its history stays in the audit
   trail, the diary and the older kept generations.
3. **cap**: over `memory_cap` active memories, the lowest-scoring unprotected ones are archived.

Score (higher stays): confidence + 0.5 * use + 0.5 * recency, where use is min(evidence, 4) / 4
(how many messages support it: how often it came up, since reads are not tracked) and recency is
1.0 for the most recently updated memory of the scope falling linearly to 0.0 for the oldest.
Protected memories are never pruned; ties go to the older memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from consumers.passes.apply import Candidate, Change, apply_actions
from consumers.snapshot import Snapshot
from schemas import MemoryRecord, UpdateAction
from schemas.actions import MemoryAction

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_ELLIPSIS = "\u2026"


@dataclass(frozen=True)
class PruneResult:
    candidate: Candidate
    condensed: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()
    capped: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def describe(self) -> str:
        return (f"prune: {len(self.condensed)} condensed, {len(self.left_out)} retired records left out, "
                f"{len(self.capped)} archived over the cap")


def prune_score(memory: MemoryRecord, oldest: float, newest: float) -> float:
    span = max(newest - oldest, 1.0)
    recency = (memory.updated_at.timestamp() - oldest) / span
    return memory.confidence + 0.5 * min(len(memory.evidence_message_ids), 4) / 4 + 0.5 * recency


def condensed_text(text: str, limit: int) -> str:
    """The first sentence(s) of `text` that fit in `limit` characters."""
    if len(text) <= limit:
        return text
    kept = ""
    for sentence in _SENTENCE_END.split(text.strip()):
        joined = f"{kept} {sentence}" if kept else sentence
        if len(joined) > limit:
            break
        kept = joined
    if kept:
        return kept
    cut = text[: limit - 1].rsplit(None, 1)[0].rstrip(",;:-\u2013\u2014 ")
    return cut + _ELLIPSIS


def condense_actions(snapshot: Snapshot, candidate: Candidate, limit: int) -> tuple[tuple[MemoryAction, ...], list[str]]:
    known = {t.message_id for t in snapshot.transcript}
    actions: list[MemoryAction] = []
    notes: list[str] = []
    for memory in sorted(candidate.active, key=lambda m: m.memory_id):
        if memory.protected or len(memory.text) <= limit:
            continue
        evidence = tuple(i for i in memory.evidence_message_ids if i in known)
        if not evidence:
            notes.append(f"prune: {memory.memory_id} is {len(memory.text)} chars but cites no message in the "
                         "transcript window, so it cannot be rewritten with evidence; left as it is")
            continue
        actions.append(UpdateAction(
            target=memory.memory_id, text=condensed_text(memory.text, limit), evidence_message_ids=evidence,
            rationale=f"prune: condensed from {len(memory.text)} to at most {limit} characters (first sentences kept)",
        ))
    return tuple(actions), notes


def leave_out_retired(candidate: Candidate, long_inactive: frozenset[str]) -> tuple[str, ...]:
    """Drop records that were already inactive `N` generations back from the candidate."""
    gone = tuple(sorted(i for i, m in candidate.records.items() if i in long_inactive and not m.is_active))
    for memory_id in gone:
        del candidate.records[memory_id]
    return gone


def enforce_cap(candidate: Candidate, cap: int) -> tuple[str, ...]:
    active = candidate.active
    excess = len(active) - cap
    if excess <= 0:
        return ()
    stamps = [m.updated_at.timestamp() for m in active]
    oldest, newest = min(stamps), max(stamps)
    prunable = sorted((m for m in active if not m.protected),
                      key=lambda m: (prune_score(m, oldest, newest), m.updated_at, m.memory_id))
    archived = []
    for memory in prunable[:excess]:
        reason = f"prune: over the cap of {cap} (score {prune_score(memory, oldest, newest):.2f})"
        after = memory.model_copy(update={"status": "archived", "status_reason": reason})
        candidate.records[memory.memory_id] = after
        candidate.changes.append(Change("archived", memory.memory_id, memory, after, reason))
        archived.append(memory.memory_id)
    return tuple(archived)


def prune(snapshot: Snapshot, candidate: Candidate, *, cap: int, condense_chars: int) -> PruneResult:
    """Condense, leave out long-retired records, enforce the cap; returns a new candidate."""
    actions, notes = condense_actions(snapshot, candidate, condense_chars)
    pruned = apply_actions(snapshot, candidate, actions)
    left_out = leave_out_retired(pruned, snapshot.long_inactive_ids)
    capped = enforce_cap(pruned, cap)
    return PruneResult(pruned, tuple(a.target for a in actions), left_out, capped, tuple(notes))
