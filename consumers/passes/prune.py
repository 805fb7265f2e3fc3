"""Keep a scope within its cap: archive the lowest-scoring unprotected memories.

Score (higher stays): confidence + 0.5 * min(evidence, 4) / 4 + 0.5 * recency, where recency is
1.0 for the newest memory of the scope falling linearly to 0.0 for the oldest. Protected memories
are never pruned; ties go to the older memory.
"""

from __future__ import annotations

from consumers.passes.apply import Candidate, Change
from schemas import MemoryRecord


def prune_score(memory: MemoryRecord, oldest: float, newest: float) -> float:
    span = max(newest - oldest, 1.0)
    recency = (memory.updated_at.timestamp() - oldest) / span
    return memory.confidence + 0.5 * min(len(memory.evidence_message_ids), 4) / 4 + 0.5 * recency


def enforce_cap(candidate: Candidate, cap: int) -> None:
    active = candidate.active
    excess = len(active) - cap
    if excess <= 0:
        return
    stamps = [m.updated_at.timestamp() for m in active]
    oldest, newest = min(stamps), max(stamps)
    prunable = sorted((m for m in active if not m.protected),
                      key=lambda m: (prune_score(m, oldest, newest), m.updated_at, m.memory_id))
    for memory in prunable[:excess]:
        reason = f"prune: over the cap of {cap} (score {prune_score(memory, oldest, newest):.2f})"
        after = memory.model_copy(update={"status": "archived", "status_reason": reason})
        candidate.records[memory.memory_id] = after
        candidate.changes.append(Change("archived", memory.memory_id, memory, after, reason))
