"""The transcript index (ground truth, searched by scope) and the inbox of pending memory-adds."""

from __future__ import annotations

from collections.abc import Sequence

from qdrant_client import QdrantClient, models

from consumers.store.client import ensure_collection, point_id, scope_filter, scroll_all
from consumers.store.memories import Embed
from schemas import ConversationTurn, MemoryAdd
from schemas.scope import parse_scope

_KW = models.PayloadSchemaType.KEYWORD
_FLOAT = models.PayloadSchemaType.FLOAT


class TranscriptStore:
    def __init__(self, client: QdrantClient, prefix: str, dims: int, embed: Embed) -> None:
        self._client = client
        self._embed = embed
        self.transcripts = f"{prefix}_transcripts"
        self.inbox = f"{prefix}_inbox"
        ensure_collection(client, self.transcripts, dims, {"tenant": _KW, "scope": _KW, "ts_epoch": _FLOAT})
        ensure_collection(client, self.inbox, None, {"tenant": _KW, "scope": _KW})

    # --- transcripts
    def index_turns(self, turns: Sequence[tuple[ConversationTurn, int]]) -> None:
        """Index (turn, Kafka offset) pairs. Idempotent: a message's point id is derived from its
        scope and message id. The offset tells a later pass which messages are new to it."""
        if not turns:
            return
        vectors = self._embed([t.content for t, _ in turns])
        points = []
        for (turn, offset), vector in zip(turns, vectors):
            tenant = parse_scope(turn.scope)[0]
            payload = {"tenant": tenant, "scope": turn.scope, "ts_epoch": turn.ts.timestamp(), "offset": offset,
                       "turn": turn.model_dump(mode="json")}
            points.append(models.PointStruct(id=point_id("turn", turn.scope, turn.message_id), vector=vector, payload=payload))
        self._client.upsert(self.transcripts, points, wait=True)

    def window(self, scope: str, limit: int) -> list[tuple[ConversationTurn, int]]:
        """The scope's most recent `limit` messages with their offsets, oldest first."""
        rows = [(ConversationTurn.model_validate(r.payload["turn"]), int(r.payload.get("offset", -1)))
                for r in scroll_all(self._client, self.transcripts, scope_filter(scope))]
        rows.sort(key=lambda row: (row[0].ts, row[1], row[0].message_id))  # producer order within one instant
        return rows[-limit:]

    def search(self, scope: str, query: str, k: int = 10) -> list[tuple[ConversationTurn, float]]:
        hits = self._client.query_points(
            self.transcripts, query=self._embed([query])[0], query_filter=scope_filter(scope), limit=k
        ).points
        return [(ConversationTurn.model_validate(h.payload["turn"]), h.score) for h in hits]

    # --- inbox of memory-adds
    def add_pending(self, adds: Sequence[MemoryAdd]) -> None:
        if not adds:
            return
        points = [
            models.PointStruct(
                id=point_id("add", a.scope, a.memory_id),
                vector={},
                payload={"tenant": parse_scope(a.scope)[0], "scope": a.scope, "add": a.model_dump(mode="json")},
            )
            for a in adds
        ]
        self._client.upsert(self.inbox, points, wait=True)

    def pending(self, scope: str) -> list[MemoryAdd]:
        adds = [MemoryAdd.model_validate(r.payload["add"]) for r in scroll_all(self._client, self.inbox, scope_filter(scope))]
        return sorted(adds, key=lambda a: (a.ts, a.memory_id))

    def absorb(self, scope: str, memory_ids: Sequence[str]) -> None:
        """Called after promotion: these adds now live in the active generation."""
        if memory_ids:
            ids = [point_id("add", scope, m) for m in memory_ids]
            self._client.delete(self.inbox, points_selector=models.PointIdsList(points=ids), wait=True)
