"""Curated memories in copy-on-write generations.

Each pass writes a complete candidate generation of a scope's memories (at most a few hundred
records, so copying is cheap), then promotes it by rewriting one pointer point: a single-point
upsert is atomic in Qdrant, so readers see the old generation or the new one, never a mix.
The last `generations_kept` generations stay, so rollback is one pointer switch back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
from qdrant_client import QdrantClient, models

from consumers.embedding.protocol import Embedder
from consumers.store.client import ensure_collection, payload_of, point_id, scope_filter, scroll_all
from consumers.store.filters import NO_FILTER, MemoryFilter
from consumers.store.pointer import AppliedJob, GenerationInfo, GenerationStatus, OperatorDecision, ScopeState
from consumers.store.search import ScopeSearch, embedding_text, pending_record, stack
from schemas import MemoryAdd, MemoryRecord
from schemas.scope import parse_scope

Embed = Callable[[Sequence[str]], list[list[float]]]
_KW = models.PayloadSchemaType.KEYWORD
_INT = models.PayloadSchemaType.INTEGER
_APPLIED_JOBS_KEPT = 500
__all__ = ["AppliedJob", "GenerationInfo", "GenerationStatus", "MemoryStore", "OperatorDecision", "ScopeState"]


class _EmbedFunction:
    """An `Embed` callable seen as an Embedder (stores built with a bare function, as tests do)."""

    name = "function"

    def __init__(self, embed: Embed, dims: int) -> None:
        self._embed, self.dims = embed, dims

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self._embed(texts)

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._embed(texts), dtype=np.float32).reshape(len(texts), self.dims)


class MemoryStore:
    def __init__(
        self,
        client: QdrantClient,
        prefix: str,
        dims: int,
        embed: Embed,
        generations_kept: int,
        *,
        embedder: Embedder | None = None,
        pending: Callable[[str], list[MemoryAdd]] | None = None,
    ) -> None:
        """`pending` reads a scope's not-yet-consolidated memory-adds (the transcript store's inbox),
        so search returns them at once."""
        self._client = client
        self._embed = embed
        self.embed = embed
        """The store's sentence embedder, as a function (the gate judges relevance with it)."""
        self._dims = dims
        self._kept = generations_kept
        self._search = ScopeSearch(embedder or _EmbedFunction(embed, dims))
        self._pending = pending
        self.memories = f"{prefix}_memories"
        self.scopes = f"{prefix}_scopes"
        ensure_collection(client, self.memories, dims, {"tenant": _KW, "scope": _KW, "generation": _INT, "status": _KW})
        ensure_collection(client, self.scopes, None, {"tenant": _KW, "scope": _KW})

    # --- the pointer
    def state(self, scope: str) -> ScopeState:
        found = self._client.retrieve(self.scopes, [point_id("scope", scope)], with_payload=True)
        if not found:
            return ScopeState(scope=scope, tenant=parse_scope(scope)[0])
        return ScopeState.model_validate(payload_of(found[0])["state"])

    def save_state(self, state: ScopeState) -> None:
        """Write the pointer as given: one atomic point write (operator decisions use it)."""
        self._save_state(state)

    def _save_state(self, state: ScopeState) -> None:
        payload = {"tenant": state.tenant, "scope": state.scope, "state": state.model_dump(mode="json")}
        self._client.upsert(
            self.scopes, [models.PointStruct(id=point_id("scope", state.scope), vector={}, payload=payload)], wait=True
        )

    def scopes_known(self, tenant: str | None = None) -> list[str]:
        flt = None
        if tenant:
            flt = models.Filter(must=[models.FieldCondition(key="tenant", match=models.MatchValue(value=tenant))])
        return sorted(payload_of(r)["scope"] for r in scroll_all(self._client, self.scopes, flt))

    # --- reading
    def generation_records(self, scope: str, generation: int, where: MemoryFilter = NO_FILTER) -> list[MemoryRecord]:
        """A generation's records (every status), oldest first; `where` is applied in the store query."""
        if generation <= 0 or not where.wants_curated:
            return []
        flt = scope_filter(
            scope,
            models.FieldCondition(key="generation", match=models.MatchValue(value=generation)),
            *where.conditions(),
        )
        records = [
            MemoryRecord.model_validate(payload_of(r)["record"]) for r in scroll_all(self._client, self.memories, flt)
        ]
        return sorted(records, key=lambda m: (m.created_at, m.memory_id))

    def active_records(self, scope: str, include_inactive: bool = False) -> list[MemoryRecord]:
        """What readers see: the active generation's memories (only status `active` by default)."""
        records = self.generation_records(scope, self.state(scope).active_generation)
        return records if include_inactive else [m for m in records if m.is_active]

    def pending_records(self, scope: str) -> list[MemoryRecord]:
        """The scope's memory-adds no pass has curated yet, as readers see them (`consolidated=False`)."""
        return [pending_record(a) for a in self._pending(scope)] if self._pending is not None else []

    def search(
        self, scope: str, query: str, k: int = 10, where: MemoryFilter = NO_FILTER
    ) -> list[tuple[MemoryRecord, float]]:
        """Hybrid search over the active memories (core and archive) and the pending memory-adds;
        `where` restricts the ranking to the records it matches (the scope's index is cached, so
        the filter is evaluated on the records in hand rather than by a second store query)."""
        generation = self.state(scope).active_generation
        pending = self._pending(scope) if self._pending is not None else []
        if generation <= 0 and not pending:
            return []
        key = (generation, tuple((a.memory_id, a.ts) for a in pending))

        def load() -> tuple[list[MemoryRecord], np.ndarray | None]:
            rows = self._active_points(scope, generation) if generation > 0 else []
            records = [MemoryRecord.model_validate(payload_of(r)["record"]) for r in rows]
            known = {r.memory_id for r in records}
            fresh = [pending_record(a) for a in pending if a.memory_id not in known]
            # The memories collection has one unnamed dense vector, so each point's is a list of floats.
            stored = [cast("list[float] | None", r.vector) for r in rows]
            vectors = stack(stored + [None] * len(fresh), self._dims) if rows and not fresh else None
            return records + fresh, vectors

        return self._search.search(scope, key, load, query, k, None if where.empty else where.matches)

    def rank(self, records: Sequence[MemoryRecord], query: str, k: int) -> list[tuple[MemoryRecord, float]]:
        """`records` ranked for `query` by the store's hybrid search, without caching an index
        (what held at some time: `as_of` reads)."""
        return self._search.rank(records, query, k)

    def _active_points(self, scope: str, generation: int) -> list[models.Record]:
        flt = scope_filter(
            scope,
            models.FieldCondition(key="generation", match=models.MatchValue(value=generation)),
            models.FieldCondition(key="status", match=models.MatchValue(value="active")),
        )
        rows: list[models.Record] = []
        offset = None
        while True:
            batch, offset = self._client.scroll(
                self.memories, scroll_filter=flt, limit=1_000, offset=offset, with_payload=True, with_vectors=True
            )
            rows.extend(batch)
            if offset is None:
                return sorted(rows, key=lambda r: (payload_of(r)["record"]["created_at"], payload_of(r)["memory_id"]))

    # --- writing
    def write_candidate(self, scope: str, generation: int, records: Sequence[MemoryRecord]) -> None:
        """Write a full generation. Points a crashed earlier attempt left under this number are
        removed first, so the candidate is exactly `records`."""
        self._delete_generation(scope, generation)
        if not records:
            return
        tenant, agent, subject = parse_scope(scope)
        vectors = self._embed([embedding_text(m.text) for m in records])
        points = [
            models.PointStruct(
                id=point_id(scope, generation, m.memory_id),
                vector=vector,
                payload={
                    "tenant": tenant,
                    "agent": agent,
                    "subject": subject,
                    "scope": scope,
                    "generation": generation,
                    "memory_id": m.memory_id,
                    "status": m.status,
                    "record": m.model_dump(mode="json"),
                },
            )
            for m, vector in zip(records, vectors)
        ]
        self._client.upsert(self.memories, points, wait=True)

    def promote(self, state: ScopeState, info: GenerationInfo, applied: AppliedJob) -> ScopeState:
        """The atomic switch: one pointer write makes `info.generation` what readers see and
        records the job that made it, so a replay of that job is recognised."""
        retired = tuple(
            g.model_copy(update={"status": "retired"}) if g.status == "active" else g for g in state.generations
        )
        new_state = state.model_copy(
            update={
                "active_generation": info.generation,
                "next_generation": max(state.next_generation, info.generation + 1),
                "generations": retired + (info,),
                "applied_jobs": _with_job(state, applied),
            }
        )
        self._save_state(new_state)
        return self._drop_old_generations(new_state)

    def record_quarantine(self, state: ScopeState, info: GenerationInfo, applied: AppliedJob) -> ScopeState:
        new_state = state.model_copy(
            update={
                "next_generation": info.generation + 1,
                "generations": state.generations + (info,),
                "applied_jobs": _with_job(state, applied),
            }
        )
        self._save_state(new_state)
        return new_state

    def record_job(self, state: ScopeState, applied: AppliedJob) -> ScopeState:
        new_state = state.model_copy(update={"applied_jobs": _with_job(state, applied)})
        self._save_state(new_state)
        return new_state

    def rollback(self, scope: str, to_generation: int | None = None) -> ScopeState:
        """Make an earlier kept generation active again (default: the one before the active one)."""
        state = self.state(scope)
        kept = [g for g in state.generations if g.status in ("active", "retired")]
        target: GenerationInfo | None
        if to_generation is None:
            earlier = [g for g in kept if g.generation < state.active_generation]
            if not earlier:
                raise LookupError(f"scope {scope!r} has no earlier generation to roll back to")
            target = max(earlier, key=lambda g: g.generation)
        else:
            target = next((g for g in kept if g.generation == to_generation), None)
            if target is None:
                raise LookupError(f"scope {scope!r} keeps no promotable generation {to_generation}")
        generations = tuple(
            g.model_copy(update={"status": "active" if g.generation == target.generation else "retired"})
            if g.status in ("active", "retired")
            else g
            for g in state.generations
        )
        new_state = state.model_copy(update={"active_generation": target.generation, "generations": generations})
        self._save_state(new_state)
        return new_state

    def _drop_old_generations(self, state: ScopeState) -> ScopeState:
        kept_numbers = set(sorted(g.generation for g in state.generations)[-self._kept :])
        kept_numbers.add(state.active_generation)  # never drop what readers see
        dropped = [g for g in state.generations if g.generation not in kept_numbers]
        if not dropped:
            return state
        for g in dropped:
            self._delete_generation(state.scope, g.generation)
        new_state = state.model_copy(
            update={"generations": tuple(g for g in state.generations if g.generation in kept_numbers)}
        )
        self._save_state(new_state)
        return new_state

    def delete_generation(self, scope: str, generation: int) -> None:
        """Delete a generation's points (a rejected candidate); the pointer is the caller's."""
        self._delete_generation(scope, generation)

    def _delete_generation(self, scope: str, generation: int) -> None:
        flt = scope_filter(scope, models.FieldCondition(key="generation", match=models.MatchValue(value=generation)))
        self._client.delete(self.memories, points_selector=models.FilterSelector(filter=flt), wait=True)


def _with_job(state: ScopeState, applied: AppliedJob) -> tuple[AppliedJob, ...]:
    others = tuple(j for j in state.applied_jobs if j.job_id != applied.job_id)
    return (others + (applied,))[-_APPLIED_JOBS_KEPT:]
