"""The dream diary: one readable record per pass (motives, what changed and why), per scope.

It is also where a pass's audit events wait until they are published: a worker that crashed
between promotion and publishing re-publishes them from here, with the same event ids.
"""

from __future__ import annotations

from qdrant_client import models

from dreaming.store.client import StoreClient, ensure_collection, payload_of, point_id, scope_filter, scroll_all
from dreaming.store.diary_entry import DiaryEntry
from schemas.scope import parse_scope

_KW = models.PayloadSchemaType.KEYWORD
__all__ = ["Diary", "DiaryEntry"]


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
