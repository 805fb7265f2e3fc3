"""Protected (user-curated) memories are marked by an operator, never by whatever produced them.

`set_protected` is what the CLI and the API call (wired by issue 12): it writes a new generation
that differs only in the one flag, promotes it with one pointer switch, and records who did it
and why in the diary. Memory-adds may only set `protected` when their producer is named in
`trusted_producers` (see `consumers/steps/index.py`).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from consumers.runtime import Runtime
from dreaming.store import AppliedJob, DiaryEntry, GenerationInfo
from schemas.scope import parse_scope

OPERATOR_PROTECT_TRIGGER = "operator"


class ProtectRefused(ValueError):
    """The request names no operator, or a memory the active generation does not hold."""


def set_protected(
    runtime: Runtime, scope: str, memory_id: str, protected: bool, *, by: str, reason: str = ""
) -> DiaryEntry:
    """Mark (or unmark) one active memory as protected; returns the diary entry that records it.
    Marking a memory that already has the flag changes nothing and is still recorded."""
    parse_scope(scope)
    if not by.strip():
        raise ProtectRefused("protecting a memory needs the operator who does it (by)")
    memories, diary = runtime.memories, runtime.diary
    with runtime.lock:
        state = memories.state(scope)
        records = memories.generation_records(scope, state.active_generation)
        target = next((m for m in records if m.memory_id == memory_id and m.is_active), None)
        if target is None:
            raise ProtectRefused(f"scope {scope!r} has no active memory {memory_id!r}")
        now = datetime.now(UTC)
        action = "protected" if protected else "unprotected"
        job_id = f"operator-{action}-{memory_id}-{uuid.uuid4().hex[:8]}"
        said = f"{action} {memory_id} by {by}" + (f": {reason}" if reason else "")
        generation = None
        if target.protected != protected:
            generation = state.next_generation
            changed = target.model_copy(update={"protected": protected, "updated_at": now})
            memories.write_candidate(scope, generation, [changed if m.memory_id == memory_id else m for m in records])
            covered: dict[str, int] = {}
            for job in state.applied_jobs:
                for topic, offset in job.watermarks.items():
                    covered[topic] = max(offset, covered.get(topic, 0))
            info = GenerationInfo(
                generation=generation,
                job_id=job_id,
                status="active",
                created_at=now,
                reason=said,
                memories_active=sum(1 for m in records if m.is_active),
                based_on=state.active_generation,
            )
            memories.promote(
                state,
                info,
                AppliedJob(
                    job_id=job_id, outcome="completed", generation=generation, audit_emitted=True, watermarks=covered
                ),
            )
        entry = DiaryEntry(
            scope=scope,
            job_id=job_id,
            trigger=OPERATOR_PROTECT_TRIGGER,
            status=action,
            written_at=now,
            generation=generation,
            reason=said,
            notes=() if generation else (f"{memory_id} was already {action}; nothing changed",),
        )
        diary.write(entry)
        return entry
