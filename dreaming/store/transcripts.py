"""The transcript index (ground truth, searched by scope) and the inbox of pending memory-adds.

A message's vector is its text's (`transcript_vectors=embed`: the index step embeds each turn), or
is made by the pass that reads it (`statements`, the default: the index step embeds nothing, see
`scope_transcript.py`), so that no message costs two model runs: one for itself, one for the
memory made of it."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import numpy as np
from qdrant_client import models

from dreaming.store.client import StoreClient, ensure_collection, payload_of, point_id, scope_filter, scroll_all
from dreaming.store.memories import Embed
from dreaming.store.scope_transcript import VECTOR_FROM, ScopeTranscript, VectorFrom, vector_from
from schemas import ConversationTurn, MemoryAdd
from schemas.scope import parse_scope

_KW = models.PayloadSchemaType.KEYWORD
_FLOAT = models.PayloadSchemaType.FLOAT


class TranscriptStore:
    VECTORS_TTL_S = 60.0
    """The same for a scope's transcript vectors (only the owner of a scope indexes it)."""
    PENDING_TTL_S = 2.0
    """How long this process trusts its copy of a scope's inbox. Its own writes (add, absorb,
    forget) drop the copy at once; another process's writes show within this time."""

    def __init__(
        self, client: StoreClient, prefix: str, dims: int, embed: Embed, *, embed_on_index: bool = True
    ) -> None:
        """`embed_on_index`: the index step embeds each turn's text (`transcript_vectors=embed`);
        otherwise it stores a zero vector and the pass that reads the message fills it."""
        self._client = client
        self._embed = embed
        self._dims = dims
        self.embed_on_index = embed_on_index
        self._pending: dict[str, tuple[float, list[MemoryAdd]]] = {}
        self._vectors: dict[str, ScopeTranscript] = {}
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
        if self.embed_on_index:
            points = [
                _point(turn, offset, vector, "text")
                for (turn, offset), vector in zip(turns, self._embed([t.content for t, _ in turns]))
            ]
        else:
            owed = [0.0] * self._dims
            points = [_point(turn, offset, owed, "none") for turn, offset in turns]
        self._client.upsert(self.transcripts, points, wait=True)
        for scope in {t.scope for t, _ in turns}:
            self._vectors.pop(scope, None)

    def messages(self, scope: str, message_ids: Sequence[str]) -> dict[str, ConversationTurn]:
        """The scope's indexed messages among `message_ids`, by id (point ids derive from the scope,
        so another scope's message of the same id is never found)."""
        if not message_ids:
            return {}
        ids = [point_id("turn", scope, m) for m in dict.fromkeys(message_ids)]
        found = self._client.retrieve(self.transcripts, ids=ids, with_payload=True)
        turns = (ConversationTurn.model_validate(payload_of(p)["turn"]) for p in found)
        return {t.message_id: t for t in turns if t.scope == scope}

    def unknown_messages(self, scope: str, message_ids: Collection[str]) -> set[str]:
        """Those of `message_ids` that are not messages of this scope (point ids derive from the
        scope, so another scope's message with the same id is not found either)."""
        if not message_ids:
            return set()
        wanted = {point_id("turn", scope, m): m for m in message_ids}
        found = {str(p.id) for p in self._client.retrieve(self.transcripts, ids=list(wanted), with_payload=False)}
        return {m for pid, m in wanted.items() if pid not in found}

    def window(self, scope: str, limit: int) -> list[tuple[ConversationTurn, int]]:
        """The scope's most recent `limit` messages with their offsets, oldest first."""
        indexed = self._indexed(scope)
        return list(zip(indexed.turns, indexed.offsets))[-limit:]

    def search(self, scope: str, query: str, k: int = 10) -> list[tuple[ConversationTurn, float]]:
        """The k messages of the scope closest to `query` (exact cosine, as Qdrant ranks them).

        A pass asks this once per claim it verifies; the scope's vectors are read once (filtered by
        tenant and scope in Qdrant) and kept until this process indexes more of the scope."""
        indexed = self._indexed(scope)
        if not indexed.turns or k <= 0:
            return []
        return self.nearest(scope, np.asarray(self._embed([query])[0], dtype=np.float32), k)

    def nearest(self, scope: str, vector: np.ndarray, k: int = 10) -> list[tuple[ConversationTurn, float]]:
        """`search` for a query already embedded (a memory's stored vector)."""
        indexed = self._ranked(scope)
        if not indexed.turns or k <= 0:
            return []
        rankable = np.flatnonzero(indexed.ranked())
        scores = indexed.vectors[rankable] @ np.asarray(vector, dtype=np.float32)
        order = np.argsort(-scores, kind="stable")[:k]
        return [(indexed.turns[rankable[i]], float(scores[i])) for i in order]

    def message_vectors(self, scope: str, message_ids: Sequence[str]) -> np.ndarray | None:
        """The indexed vectors of these messages of the scope, one row each; None when one is not
        indexed (a pass reads a scope's vectors once, so this costs no store read after it)."""
        indexed = self._ranked(scope)
        rows = [indexed.rows.get(m) for m in message_ids]
        if not rows or any(r is None or indexed.origins[r] == "chatter" for r in rows):
            return None
        return indexed.vectors[[r for r in rows if r is not None]]

    def owed_messages(self, scope: str) -> set[str]:
        """The scope's messages whose vector no pass has made yet (none when the index step embeds)."""
        if self.embed_on_index:
            return set()
        indexed = self._indexed(scope)
        return {indexed.turns[i].message_id for i in indexed.owed()}

    def fill_from_statements(self, scope: str, statements: Mapping[str, np.ndarray]) -> int:
        """Messages of the scope still owed a vector take the mean of the vectors of the statements
        a pass made of them (message id -> one row per statement); kept here at once, so the same
        pass's searches see them, and written by `flush_vectors`. How many were filled."""
        if self.embed_on_index or not statements:
            return 0
        return self._indexed(scope).fill_from_statements(statements)

    def set_aside(self, scope: str, says_nothing: Callable[[ConversationTurn], bool]) -> int:
        """Messages of the scope still owed a vector that say nothing (`ScopeTranscript.set_aside`):
        never embedded, never ranked; written by `flush_vectors`. How many."""
        if self.embed_on_index:
            return 0
        return self._indexed(scope).set_aside(says_nothing)

    def flush_vectors(self, scope: str) -> int:
        """Write the vectors this process made for the scope's messages, in one store write. How many."""
        indexed = self._vectors.get(scope)
        if indexed is None or not indexed.dirty:
            return 0
        rows = sorted(indexed.dirty)
        points = [
            _point(indexed.turns[i], indexed.offsets[i], indexed.vectors[i].tolist(), indexed.origins[i]) for i in rows
        ]
        self._client.upsert(self.transcripts, points, wait=True)
        indexed.dirty.clear()
        return len(points)

    def forget_unflushed(self, scope: str) -> None:
        """Drop vectors made for the scope that were never written (a pass that failed): the
        stored zero vectors stand, and are made again when needed."""
        indexed = self._vectors.get(scope)
        if indexed is not None and indexed.dirty:
            del self._vectors[scope]

    def _ranked(self, scope: str) -> ScopeTranscript:
        """The scope's messages with a vector each, as a search ranks them: a message no pass
        gave a vector yet (no statement was made of it) is embedded now, with the others owed."""
        indexed = self._indexed(scope)
        indexed.embed_owed(self._embed_array)
        return indexed

    def _embed_array(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._embed(texts), dtype=np.float32).reshape(len(texts), self._dims)

    def _indexed(self, scope: str) -> ScopeTranscript:
        """The scope's indexed messages in producer order (time, then Kafka offset), read once for
        the window and the searches of a pass."""
        cached = self._vectors.get(scope)
        if cached is not None and (cached.dirty or time.monotonic() - cached.read_at < self.VECTORS_TTL_S):
            return cached  # vectors not yet written are only here
        rows, offset = [], None
        while True:
            batch, offset = self._client.scroll(
                self.transcripts,
                scroll_filter=scope_filter(scope),
                limit=1_000,
                offset=offset,
                with_payload=True,
                with_vectors=True,
            )
            rows.extend(batch)
            if offset is None:
                break
        rows.sort(
            key=lambda r: (
                payload_of(r)["ts_epoch"],
                payload_of(r).get("offset", -1),
                payload_of(r)["turn"]["message_id"],
            )
        )
        indexed = ScopeTranscript(
            time.monotonic(),
            [ConversationTurn.model_validate(payload_of(r)["turn"]) for r in rows],
            [int(payload_of(r).get("offset", -1)) for r in rows],
            np.asarray([r.vector for r in rows], dtype=np.float32).reshape(len(rows), -1)
            if rows
            else np.zeros((0, 0), dtype=np.float32),
            [vector_from(payload_of(r)) for r in rows],
        )
        self._vectors[scope] = indexed
        return indexed

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
        for scope in {a.scope for a in adds}:
            self._pending.pop(scope, None)

    def pending(self, scope: str) -> list[MemoryAdd]:
        """The scope's memory-adds no pass has absorbed yet. Read for every search, so the copy is
        kept: embedded Qdrant filters a collection point by point in Python."""
        cached = self._pending.get(scope)
        if cached is not None and time.monotonic() - cached[0] < self.PENDING_TTL_S:
            return list(cached[1])
        rows = scroll_all(self._client, self.inbox, scope_filter(scope))
        adds = sorted((MemoryAdd.model_validate(payload_of(r)["add"]) for r in rows), key=lambda a: (a.ts, a.memory_id))
        self._pending[scope] = (time.monotonic(), adds)
        return list(adds)

    def forget_cached(self, scope: str) -> None:
        self._pending.pop(scope, None)
        self._vectors.pop(scope, None)

    def absorb(self, scope: str, memory_ids: Sequence[str]) -> None:
        """Called after promotion: these adds now live in the active generation."""
        if memory_ids:
            ids = [point_id("add", scope, m) for m in memory_ids]
            self._client.delete(self.inbox, points_selector=models.PointIdsList(points=ids), wait=True)
        self._pending.pop(scope, None)


def _point(turn: ConversationTurn, offset: int, vector: list[float], origin: VectorFrom) -> models.PointStruct:
    payload: dict[str, Any] = {
        "tenant": parse_scope(turn.scope)[0],
        "scope": turn.scope,
        "ts_epoch": turn.ts.timestamp(),
        "offset": offset,
        "turn": turn.model_dump(mode="json"),
        VECTOR_FROM: origin,
    }
    return models.PointStruct(id=point_id("turn", turn.scope, turn.message_id), vector=vector, payload=payload)
