"""What an operator reviews, read from the stores: a tenant's scopes with their state, a scope's
timeline, what changed between two generations (superseded and merged records with what replaced
them), a quarantined candidate beside the active generation (each gate rule that fired, the changes
it judged, the messages behind each change) and search hits with their evidence.

Everything is built on `ScopeReader` (history.py) plus a lookup of transcript messages, so the
review routes read exactly what the other readers read.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from dreaming.store.diary import DiaryEntry
from dreaming.store.history import (
    OPERATOR_TRIGGER,
    GenerationDiff,
    ScopeReader,
    diff_records,
    previous_generation,
    readable_generation,
)
from dreaming.store.memories import GenerationInfo, ScopeState
from schemas import ConversationTurn, MemoryChangeEvent, MemoryRecord

Messages = Callable[[str, Sequence[str]], dict[str, ConversationTurn]]
"""(scope, message ids) -> the transcript messages of the scope found among them, by id."""

_RULE_START = re.compile(r";\s(?=\[[a-z][a-z-]*\]\s)")
"""Where one gate reason ends and the next begins: the pass joins them with "; ", each starting
with its rule in brackets (dreaming/passes/gate.py)."""
_RULE = re.compile(r"^\[([a-z][a-z-]*)\]\s*(.*)$", re.S)


# --- a tenant's scopes
def scope_summary(reader: ScopeReader, scope: str) -> dict[str, Any]:
    """The scope's state: active generation, generations waiting for review, last pass."""
    state = reader.state(scope)
    passes = [e for e in reader.diary(scope) if e.trigger != OPERATOR_TRIGGER]
    last = passes[-1] if passes else None
    active = state.generation(state.active_generation)
    return {
        "scope": scope,
        "active_generation": state.active_generation,
        "memories_active": active.memories_active if active else 0,
        "awaiting_review": [g.generation for g in _quarantined(state)],
        "last_pass": None
        if last is None
        else {
            "job_id": last.job_id,
            "trigger": last.trigger,
            "status": last.status,
            "written_at": last.written_at.isoformat(),
            "generation": last.generation,
            "reason": last.reason,
        },
    }


def tenant_scopes(reader: ScopeReader, tenant: str) -> list[dict[str, Any]]:
    """Every scope of the tenant holding a generation, those waiting for review first."""
    summaries = [scope_summary(reader, scope) for scope in reader.scopes(tenant)]
    return sorted(summaries, key=lambda s: (not s["awaiting_review"], s["scope"]))


# --- a scope's timeline
def timeline(reader: ScopeReader, scope: str) -> dict[str, Any]:
    """Passes and operator decisions, newest first, each with what it did: trigger, outcome, the
    generation it wrote and that generation's state now, change counts, and who decided what."""
    state = reader.state(scope)
    entries = []
    for entry in reversed(reader.diary(scope)):
        info = state.generation(entry.generation) if entry.generation is not None else None
        entries.append(_timeline_entry(entry, info))
    return {
        "scope": scope,
        "active_generation": state.active_generation,
        "generations": [_generation_json(g, state) for g in sorted(state.generations, key=lambda g: -g.generation)],
        "entries": entries,
    }


def _timeline_entry(entry: DiaryEntry, info: GenerationInfo | None) -> dict[str, Any]:
    changes = Counter(e.change for e in entry.events if isinstance(e, MemoryChangeEvent))
    return {
        "job_id": entry.job_id,
        "trigger": entry.trigger,
        "status": entry.status,
        "written_at": entry.written_at.isoformat(),
        "generation": entry.generation,
        "generation_status": info.status if info else None,
        "reason": entry.reason,
        "changes": dict(sorted(changes.items())),
        "motives": sorted({m.kind for m in entry.motives}),
        "model_calls": entry.model_calls,
        "decisions": [d.model_dump(mode="json") for d in info.decisions] if info else [],
    }


def _generation_json(info: GenerationInfo, state: ScopeState) -> dict[str, Any]:
    return {**info.model_dump(mode="json"), "active": info.generation == state.active_generation}


def _quarantined(state: ScopeState) -> list[GenerationInfo]:
    return sorted((g for g in state.generations if g.status == "quarantined"), key=lambda g: g.generation)


# --- what changed between two generations
def review_diff(
    reader: ScopeReader, scope: str, from_generation: int | None = None, to_generation: int | None = None
) -> dict[str, Any]:
    """What `diff_generations` says (default: the previous promoted generation against the active
    one), plus every record the newer side retired with what replaced it."""
    state = reader.state(scope)
    to_number = state.active_generation if to_generation is None else to_generation
    from_number = previous_generation(state) if from_generation is None else from_generation

    def records(number: int) -> list[MemoryRecord]:
        return [] if number == 0 else reader.records(scope, number, include_inactive=True)

    after = records(to_number)
    return _with_replacements(diff_records(scope, from_number, to_number, records(from_number), after), after)


def _with_replacements(diff: GenerationDiff, after: Sequence[MemoryRecord]) -> dict[str, Any]:
    """The diff's JSON with `replaced`: each record the diff added or changed into superseded or
    merged, with the record (of the newer generation) that took its place."""
    body = diff.to_json()
    newer = {m.memory_id: m for m in after}
    retired = [c.after for c in diff.changed] + list(diff.added)
    replaced = []
    for record in retired:
        target = record.superseded_by or record.merged_into
        if target is None or record.is_active:
            continue
        by = newer.get(target)
        replaced.append(
            {
                "memory_id": record.memory_id,
                "text": record.text,
                "status": record.status,
                "reason": record.status_reason,
                "by": {"memory_id": target, "text": by.text if by else None},
            }
        )
    body["replaced"] = sorted(replaced, key=lambda r: r["memory_id"])
    return body


# --- a quarantined candidate
def quarantine_case(reader: ScopeReader, messages: Messages, scope: str, generation: int) -> dict[str, Any]:
    """The candidate beside the active generation: the gate's findings (rule, what it says, the
    changes it names), every change with the messages (text, date) behind it, and the diff."""
    state = reader.state(scope)
    info = readable_generation(state, generation)
    if info.status != "quarantined" and not any(d.action in ("approved", "rejected") for d in info.decisions):
        raise LookupError(f"generation {generation} of {scope!r} was not quarantined (it is {info.status})")
    entry = next((e for e in reader.diary(scope) if e.job_id == info.job_id), None)
    changes = [e for e in (entry.events if entry else ()) if isinstance(e, MemoryChangeEvent)]
    findings = gate_findings(info.reason, [c.memory_id for c in changes])
    evidence = messages(scope, sorted({m for c in changes for m in c.evidence_message_ids}))
    active_records = reader.records(scope, state.active_generation, include_inactive=True)
    candidate = reader.records(scope, generation, include_inactive=True)
    diff = diff_records(scope, state.active_generation, generation, active_records, candidate)
    replaced = _with_replacements(diff, candidate)
    flagged = {memory_id for f in findings for memory_id in f["memory_ids"]}
    return {
        "scope": scope,
        "generation": info.model_dump(mode="json"),
        "active_generation": state.active_generation,
        "active": [m.model_dump(mode="json") for m in active_records if m.is_active],
        "candidate": [m.model_dump(mode="json") for m in candidate if m.is_active],
        "findings": findings,
        "changes": [_change_json(c, evidence, c.memory_id in flagged) for c in changes],
        "diff": replaced,
        "notes": list(entry.notes) if entry else [],
    }


def gate_findings(reason: str, memory_ids: Iterable[str]) -> list[dict[str, Any]]:
    """The gate's reasons as findings: the rule, its text, and which of `memory_ids` it names."""
    ids = sorted(set(memory_ids), key=len, reverse=True)
    findings = []
    for part in _RULE_START.split(reason) if reason else []:
        match = _RULE.match(part.strip())
        rule, text = (match.group(1), match.group(2)) if match else ("", part.strip())
        named = [i for i in ids if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", text)]
        findings.append({"rule": rule, "text": text, "memory_ids": sorted(named)})
    return findings


def _change_json(change: MemoryChangeEvent, evidence: dict[str, ConversationTurn], flagged: bool) -> dict[str, Any]:
    return {
        "change": change.change,
        "memory_id": change.memory_id,
        "reason": change.reason,
        "flagged": flagged,
        "before": change.before.model_dump(mode="json") if change.before else None,
        "after": change.after.model_dump(mode="json") if change.after else None,
        "by": change.by,
        "evidence": [_message_json(m, evidence.get(m)) for m in change.evidence_message_ids],
    }


def _message_json(message_id: str, turn: ConversationTurn | None) -> dict[str, Any]:
    if turn is None:  # outside the transcript index (forgotten, or never indexed)
        return {"message_id": message_id, "found": False}
    return {"message_id": message_id, "found": True, "role": turn.role, "text": turn.content, "ts": turn.ts.isoformat()}


# --- search with provenance
def search_with_evidence(
    reader: ScopeReader, messages: Messages, scope: str, query: str, k: int
) -> list[dict[str, Any]]:
    """The store's search, each hit with its tier, validity and the messages it rests on."""
    hits = reader.search(scope, query, k)
    evidence = messages(scope, sorted({m for record, _ in hits for m in record.evidence_message_ids}))
    return [_hit_json(record, score, evidence) for record, score in hits]


def _hit_json(record: MemoryRecord, score: float, evidence: dict[str, ConversationTurn]) -> dict[str, Any]:
    return {
        "memory": record.model_dump(mode="json"),
        "score": score,
        "evidence": [_message_json(m, evidence.get(m)) for m in record.evidence_message_ids],
    }
