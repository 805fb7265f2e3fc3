"""Build engine Snapshots from evaluation-format data (the shared fixtures or inline rows)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from dreaming.snapshot import Snapshot
from dreamstream_tools.fixtures import FIXTURES_DIR as FIXTURES
from schemas import ConversationTurn, DreamJob, MemoryAdd, MemoryRecord

_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_fixture_rows(fixtures: Path = FIXTURES) -> tuple[list[dict], list[dict]]:
    """(events, memory_adds) rows of the shared fixtures."""
    return _read_jsonl(fixtures / "events.jsonl"), _read_jsonl(fixtures / "memory_adds.jsonl")


def build_snapshot(
    scope: str, events: Iterable[Mapping], memory_adds: Iterable[Mapping] = (), *, pending: bool = True
) -> Snapshot:
    """A first pass over `scope`: its turns in time order, its memory-adds as pending records."""
    turns = sorted((ConversationTurn(**row) for row in events if row["scope"] == scope), key=lambda t: t.ts)
    adds = [MemoryAdd(**row) for row in memory_adds if row["scope"] == scope]
    records = tuple(MemoryRecord.from_add(add) for add in adds)
    requested_at = max([t.ts for t in turns] + [a.ts for a in adds] + [_EPOCH])
    return Snapshot(
        job=DreamJob(job_id="job-test", scope=scope, trigger="manual", requested_at=requested_at),
        generation=0,
        memories=records,
        transcript=tuple(turns),
        pending_add_ids=frozenset(a.memory_id for a in adds) if pending else frozenset(),
        new_message_ids=frozenset(t.message_id for t in turns),  # a first pass: every message is new
    )


def fixture_snapshot(scope: str, fixtures: Path = FIXTURES) -> Snapshot:
    events, adds = load_fixture_rows(fixtures)
    return build_snapshot(scope, events, adds)


def turn_row(scope: str, session: str, index: int, role: str, content: str, ts: str) -> dict:
    """One event row in the evaluation format, with message id "<session>#<index>"."""
    return {
        "scope": scope,
        "session_id": session,
        "message_id": f"{session}#{index}",
        "role": role,
        "content": content,
        "ts": ts,
    }


def transcript_record(
    scope: str, memory_id: str, text: str, at: datetime, evidence: tuple[str, ...] = ("m1",), **fields: object
) -> MemoryRecord:
    """A memory the transcript made, written at `at` (created and updated), resting on `evidence`;
    `fields` set any other field (`protected`, `valid_from`, `status`, ...)."""
    record = MemoryRecord(
        scope=scope,
        memory_id=memory_id,
        text=text,
        origin="transcript",
        evidence_message_ids=evidence,
        created_at=at,
        updated_at=at,
    )
    return record.model_copy(update=fields) if fields else record
