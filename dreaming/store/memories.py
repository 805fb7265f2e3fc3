"""Curated memories in copy-on-write generations.

Each pass writes a candidate generation of a scope's memories: the points of the records it
changed and a manifest naming every record of the generation (`manifests.py`: a record no pass
changed is one point, shared by the generations that hold it). It then promotes the candidate by
rewriting one pointer point: a single-point upsert is atomic in Qdrant, so readers see the old
generation or the new one, never a mix. The last `generations_kept` generations stay, so rollback
is one pointer switch back; a dropped generation's points go once no kept manifest names them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
from qdrant_client import models

from dreaming.embedding.protocol import Embedder
from dreaming.store.client import StoreClient, ensure_collection, payload_of, point_id, scope_filter, scroll_all
from dreaming.store.filters import NO_FILTER, MemoryFilter
from dreaming.store.generations_cache import CachedGeneration, GenerationsCache
from dreaming.store.manifests import (
    VERSION_KIND,
    Manifest,
    Manifests,
    record_version,
    unreferenced_versions,
    version_point,
)
from dreaming.store.pointer import AppliedJob, GenerationInfo, GenerationStatus, OperatorDecision, ScopeState
from dreaming.store.search import ScopeSearch, embedding_text, pending_record, stack
from schemas import MemoryAdd, MemoryRecord
from schemas.scope import parse_scope

Embed = Callable[[Sequence[str]], list[list[float]]]
log = logging.getLogger(__name__)
_KW = models.PayloadSchemaType.KEYWORD
_INT = models.PayloadSchemaType.INTEGER
_APPLIED_JOBS_KEPT = 500
__all__ = ["AppliedJob", "GenerationInfo", "GenerationStatus", "MemoryStore", "OperatorDecision", "ScopeState"]
_GENERATION_STATUS = "state.generations[].status"
"""The pointer payload's path to each kept generation's status (indexed: review queries filter on it)."""


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
        client: StoreClient,
        prefix: str,
        dims: int,
        embed: Embed,
        generations_kept: int,
        *,
        embedder: Embedder | None = None,
        pending: Callable[[str], list[MemoryAdd]] | None = None,
        evidence_vectors: Callable[[str, Sequence[str]], np.ndarray | None] | None = None,
    ) -> None:
        """`pending` reads a scope's not-yet-consolidated memory-adds (the transcript store's inbox),
        so search returns them at once. `evidence_vectors` (the transcript index's vectors of a
        scope's messages) lets a memory written from messages reuse their vectors instead of
        embedding its text again (settings.memory_vectors = "evidence")."""
        self._client = client
        self._embed = embed
        self.embed = embed
        """The store's sentence embedder, as a function (the gate judges relevance with it)."""
        self._dims = dims
        self._kept = generations_kept
        self._search = ScopeSearch(embedder or _EmbedFunction(embed, dims))
        self._pending = pending
        self._evidence_vectors = evidence_vectors
        self._generations = GenerationsCache()
        self.on_state: Callable[[str, ScopeState | None], None] | None = None
        """Told of every pointer this store writes (and, with None, of one `forget` deleted): the
        awaiting-review gauge keeps in step through it (`dreaming/awaiting_review.py`)."""
        self.memories = f"{prefix}_memories"
        self.scopes = f"{prefix}_scopes"
        # `generation` indexes the points of generations written before manifests.
        ensure_collection(client, self.memories, dims, {"tenant": _KW, "scope": _KW, "generation": _INT, "status": _KW})
        ensure_collection(client, self.scopes, None, {"tenant": _KW, "scope": _KW, _GENERATION_STATUS: _KW})
        self.manifests = Manifests(client, f"{prefix}_generations")

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
        if self.on_state is not None:
            self.on_state(state.scope, state)

    def pointer_deleted(self, scope: str) -> None:
        """`forget` deleted the scope's pointer (dreaming/forget.py)."""
        if self.on_state is not None:
            self.on_state(scope, None)

    def scopes_known(self, tenant: str | None = None) -> list[str]:
        flt = None
        if tenant:
            flt = models.Filter(must=[models.FieldCondition(key="tenant", match=models.MatchValue(value=tenant))])
        return sorted(payload_of(r)["scope"] for r in scroll_all(self._client, self.scopes, flt))

    def tenants_known(self) -> set[str]:
        """Every tenant with a pointer (read once, when a worker starts)."""
        return {str(payload_of(r)["tenant"]) for r in scroll_all(self._client, self.scopes, None)}

    def awaiting_review(self, tenant: str | None = None) -> dict[str, tuple[str, int]]:
        """scope -> (tenant, quarantined generations) for every scope (of `tenant`) holding a
        generation that waits for review. One filtered read of the pointers, on the indexed
        status of their generations: it costs the scopes waiting, not the fleet."""
        waiting = models.FieldCondition(key=_GENERATION_STATUS, match=models.MatchValue(value="quarantined"))
        conditions: list[models.Condition] = [waiting]
        if tenant:
            conditions.append(models.FieldCondition(key="tenant", match=models.MatchValue(value=tenant)))
        found = {}
        for r in scroll_all(self._client, self.scopes, models.Filter(must=conditions)):
            payload = payload_of(r)
            count = sum(1 for g in payload["state"]["generations"] if g["status"] == "quarantined")
            found[str(payload["scope"])] = (str(payload["tenant"]), count)
        return found

    # --- reading
    def generation_records(self, scope: str, generation: int, where: MemoryFilter = NO_FILTER) -> list[MemoryRecord]:
        """A generation's records (every status), oldest first, that `where` matches: narrowed in the
        store query unless the generation is cached here, decided by `where.matches`."""
        if generation <= 0 or not where.wants_curated:
            return []
        if where.empty:
            return list(self._generation(scope, generation).records)
        cached = self._generations.get(scope, generation)
        if cached is not None:  # in memory already: the filter runs over it
            return [m for m in cached.records if where.matches(m)]
        manifest = self.manifests.read(scope, generation)
        if manifest is not None and not manifest.versions:
            return []
        flt = scope_filter(scope, self._members(generation, manifest), *where.conditions())
        found = (
            MemoryRecord.model_validate(payload_of(r)["record"]) for r in scroll_all(self._client, self.memories, flt)
        )
        return sorted((m for m in found if where.matches(m)), key=lambda m: (m.created_at, m.memory_id))

    def record(self, scope: str, generation: int, memory_id: str) -> MemoryRecord | None:
        """One memory of one generation: a point read by its id, never a scan of the scope."""
        if generation <= 0:
            return None
        cached = self._generations.get(scope, generation)
        if cached is not None:
            return cached.by_id.get(memory_id)
        manifest = self.manifests.read(scope, generation)
        point = point_id(scope, generation, memory_id) if manifest is None else manifest.point_of(memory_id)
        found = self._client.retrieve(self.memories, [point], with_payload=True) if point is not None else []
        return MemoryRecord.model_validate(payload_of(found[0])["record"]) if found else None

    def _members(self, generation: int, manifest: Manifest | None) -> models.Condition:
        """The condition naming a generation's points: its manifest's, or (a generation written
        before manifests) the points that carry its number."""
        if manifest is None:
            return models.FieldCondition(key="generation", match=models.MatchValue(value=generation))
        return models.HasIdCondition(has_id=manifest.point_ids())

    def _generation(self, scope: str, generation: int) -> CachedGeneration:
        cached = self._generations.get(scope, generation)
        if cached is not None:
            return cached
        manifest = self.manifests.read(scope, generation)
        if manifest is None:
            flt = scope_filter(scope, self._members(generation, None))
            rows = scroll_all(self._client, self.memories, flt, with_vectors=True)
        else:
            rows = self._client.retrieve(self.memories, manifest.point_ids(), with_payload=True, with_vectors=True)
            if len(rows) != len(manifest.versions):  # lost outside this store (a collection made again)
                log.warning(
                    "generation %d of %r names %d records but %d are stored: reading those",
                    generation,
                    scope,
                    len(manifest.versions),
                    len(rows),
                )
        pairs = sorted(
            ((MemoryRecord.model_validate(payload_of(r)["record"]), r.vector) for r in rows),
            key=lambda pair: (pair[0].created_at, pair[0].memory_id),
        )
        # The memories collection has one unnamed dense vector, so each point's is a list of floats.
        vectors = stack([cast("list[float] | None", v) for _, v in pairs], self._dims) if pairs else None
        entry = CachedGeneration(tuple(m for m, _ in pairs), vectors)
        self._generations.put(scope, generation, entry)
        return entry

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
            records: list[MemoryRecord] = []
            vectors: np.ndarray | None = None
            if generation > 0:
                entry = self._generation(scope, generation)
                active = [i for i, m in enumerate(entry.records) if m.status == "active"]
                records = [entry.records[i] for i in active]
                vectors = entry.vectors[active] if entry.vectors is not None else None
            known = {r.memory_id for r in records}
            fresh = [pending_record(a) for a in pending if a.memory_id not in known]
            if fresh:
                extra = self._embed_array([embedding_text(r.text) for r in fresh])
                if not records:
                    vectors = extra
                elif vectors is not None:
                    vectors = np.vstack([vectors, extra])
            return records + fresh, vectors

        return self._search.search(scope, key, load, query, k, None if where.empty else where.matches)

    def _embed_array(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._embed(texts), dtype=np.float32).reshape(len(texts), self._dims)

    def rank(self, records: Sequence[MemoryRecord], query: str, k: int) -> list[tuple[MemoryRecord, float]]:
        """`records` ranked for `query` by the store's hybrid search, without caching an index
        (what held at some time: `as_of` reads)."""
        return self._search.rank(records, query, k)

    # --- writing
    def write_candidate(self, scope: str, generation: int, records: Sequence[MemoryRecord]) -> None:
        """Write a generation: the records the active generation does not hold as they are, then
        the manifest naming all of them. A crashed earlier attempt under this number is replaced
        (its manifest is rewritten; points only it named go at the next drop)."""
        self._generations.drop(scope, generation)
        records = sorted(records, key=lambda m: (m.created_at, m.memory_id))
        active = self.state(scope).active_generation
        base = self._generation(scope, active) if active > 0 else None
        base_manifest = self.manifests.read(scope, active) if base is not None else None
        shared = base_manifest.versions if base_manifest is not None else {}
        versions: dict[str, str] = {}
        fresh: list[int] = []
        for i, m in enumerate(records):
            kept = shared.get(m.memory_id)
            if kept is not None and base is not None and base.by_id.get(m.memory_id) == m:
                versions[m.memory_id] = kept  # unchanged: the point the active generation holds
            else:
                versions[m.memory_id] = record_version(m)
                fresh.append(i)
        matrix = self._vectors(scope, records, _stored_vectors(base)) if records else None
        if fresh and matrix is not None:
            tenant, agent, subject = parse_scope(scope)
            points = [
                models.PointStruct(
                    id=version_point(scope, records[i].memory_id, versions[records[i].memory_id]),
                    vector=matrix[i].tolist(),
                    payload={
                        "tenant": tenant,
                        "agent": agent,
                        "subject": subject,
                        "scope": scope,
                        "kind": VERSION_KIND,
                        "memory_id": records[i].memory_id,
                        "version": versions[records[i].memory_id],
                        "status": records[i].status,
                        "record": records[i].model_dump(mode="json"),
                    },
                )
                for i in fresh
            ]
            self._client.upsert(self.memories, points, wait=True)  # one write for what changed
        self.manifests.write(Manifest(scope, generation, versions))  # after its points: readers find them all
        self._generations.put(scope, generation, CachedGeneration(tuple(records), matrix))

    def active_vectors(self, scope: str) -> dict[str, np.ndarray]:
        """The stored vector of each text of the active generation, by `embedding_text` (read once
        a generation: the cache holds it)."""
        active = self.state(scope).active_generation
        return _stored_vectors(self._generation(scope, active) if active > 0 else None)

    def vectors_for(self, scope: str, records: Sequence[MemoryRecord]) -> np.ndarray:
        """Vectors of a generation's texts, one row each: a text the active generation already
        holds keeps its stored vector (most of a scope is unchanged from one generation to the
        next); only new or changed texts are embedded, in one call."""
        return self._vectors(scope, records, self.active_vectors(scope))

    def _vectors(self, scope: str, records: Sequence[MemoryRecord], known: dict[str, np.ndarray]) -> np.ndarray:
        """`vectors_for`, given the vectors already known by text (updated here)."""
        texts = [embedding_text(m.text) for m in records]
        if self._evidence_vectors is not None:
            for m, text in zip(records, texts):
                if text not in known and m.origin == "transcript" and m.evidence_message_ids:
                    found = self._evidence_vectors(scope, m.evidence_message_ids)
                    if found is not None:
                        mean = found.mean(axis=0)
                        known[text] = mean / max(float(np.linalg.norm(mean)), 1e-12)
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            known.update(zip(missing, self._embed_array(missing)))
        return np.vstack([known[t] for t in texts]).astype(np.float32)

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
        self._collect(state.scope, kept_numbers)
        self._save_state(new_state)
        return new_state

    def forget_cached(self, scope: str) -> None:
        """Drop this process's copies of a scope (after `forget` deleted its points)."""
        self._generations.drop(scope)
        self.manifests.forget_cached(scope)
        self._search.forget(scope)

    def delete_generation(self, scope: str, generation: int) -> None:
        """Delete a generation (a rejected candidate) and the points no other kept generation
        holds; the pointer is the caller's."""
        self._delete_generation(scope, generation)
        self._collect(scope, {g.generation for g in self.state(scope).generations} - {generation})

    def _delete_generation(self, scope: str, generation: int) -> None:
        self._generations.drop(scope, generation)
        self.manifests.delete(scope, generation)
        # the points of a generation written before manifests carry its number
        flt = scope_filter(scope, self._members(generation, None))
        self._client.delete(self.memories, points_selector=models.FilterSelector(filter=flt), wait=True)

    def _collect(self, scope: str, kept: set[int]) -> None:
        """Delete the version points that none of the `kept` generations' manifests names."""
        manifests = [m for g in sorted(kept) if (m := self.manifests.read(scope, g)) is not None]
        stale = unreferenced_versions(self._client, self.memories, scope, manifests)
        if stale:
            self._client.delete(self.memories, points_selector=models.PointIdsList(points=stale), wait=True)


def _stored_vectors(entry: CachedGeneration | None) -> dict[str, np.ndarray]:
    """A cached generation's stored vectors by `embedding_text` (none once its search index took them)."""
    if entry is None or entry.vectors is None:
        return {}
    return {embedding_text(m.text): entry.vectors[i] for i, m in enumerate(entry.records)}


def _with_job(state: ScopeState, applied: AppliedJob) -> tuple[AppliedJob, ...]:
    others = tuple(j for j in state.applied_jobs if j.job_id != applied.job_id)
    return (others + (applied,))[-_APPLIED_JOBS_KEPT:]
