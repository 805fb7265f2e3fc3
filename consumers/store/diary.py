"""The dream diary: one readable record per pass (motives, what changed and why), per scope.

It is also where a pass's audit events wait until they are published: a worker that crashed
between promotion and publishing re-publishes them from here, with the same event ids.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict
from qdrant_client import models

from consumers.store.client import StoreClient, ensure_collection, payload_of, point_id, scope_filter, scroll_all
from schemas import JobLifecycleEvent, MemoryChangeEvent, Motive
from schemas.scope import parse_scope

_KW = models.PayloadSchemaType.KEYWORD


class DiaryEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    scope: str
    job_id: str
    trigger: str
    status: str
    written_at: datetime
    generation: int | None = None
    reason: str = ""
    motives: tuple[Motive, ...] = ()
    notes: tuple[str, ...] = ()
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    model_seconds: float = 0.0
    """Wall seconds the pass waited for the model."""
    pass_seconds: float = 0.0
    """Wall seconds of the pass up to this entry (the pointer switch after it not counted)."""
    unread_messages: int = 0
    """New messages the pass left for the next one (the LLM engine's call budget ran out)."""
    events: tuple[JobLifecycleEvent | MemoryChangeEvent, ...] = ()


class Diary:
    def __init__(self, client: StoreClient, prefix: str) -> None:
        self._client = client
        self.collection = f"{prefix}_diary"
        ensure_collection(client, self.collection, None, {"tenant": _KW, "scope": _KW})

    def write(self, entry: DiaryEntry) -> None:
        payload = {"tenant": parse_scope(entry.scope)[0], "scope": entry.scope, "entry": entry.model_dump(mode="json")}
        point = models.PointStruct(id=point_id("diary", entry.scope, entry.job_id), vector={}, payload=payload)
        self._client.upsert(self.collection, [point], wait=True)

    def get(self, scope: str, job_id: str) -> DiaryEntry | None:
        found = self._client.retrieve(self.collection, [point_id("diary", scope, job_id)], with_payload=True)
        return DiaryEntry.model_validate(payload_of(found[0])["entry"]) if found else None

    def entries(self, scope: str) -> list[DiaryEntry]:
        entries = [
            DiaryEntry.model_validate(payload_of(r)["entry"])
            for r in scroll_all(self._client, self.collection, scope_filter(scope))
        ]
        return sorted(entries, key=lambda e: e.written_at)
