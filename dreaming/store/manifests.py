"""Which records make up each generation of a scope: one manifest point per (scope, generation).

A record a pass did not change is one point, whichever generations hold it: points are named by
the record's content (`version_point`), and a generation is the list of points its manifest
names. A pass writes the points of the records it changed and then its manifest, so it costs
what it changed, not what the scope holds (before, every pass wrote every record again: at a
pass every 100 events about 84 % of a long scope's points were rewritten unchanged). The
manifest is written after its points and the pointer after the manifest, so a reader of a listed
generation finds every point its manifest names.

Generations written before manifests existed keep their points (one per record and generation,
with a `generation` payload field); a generation without a manifest is read that way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from qdrant_client import models

from dreaming.store.client import StoreClient, ensure_collection, payload_of, point_id, scope_filter
from dreaming.store.generations_cache import GenerationLru
from schemas import MemoryRecord
from schemas.scope import parse_scope

_KW = models.PayloadSchemaType.KEYWORD
MAX_CACHED_ENTRIES = 200_000
"""Manifest entries (memory id and digest, ~100 bytes each) this process keeps: a cold read of
one memory reads its generation's manifest once, then one point per memory."""
VERSION_KIND = "version"
"""The `kind` payload field of a shared record point (generations written before have none)."""


def record_version(record: MemoryRecord) -> str:
    """A digest of everything the record says: two equal records are one version."""
    return hashlib.sha256(record.model_dump_json().encode()).hexdigest()[:24]


def version_point(scope: str, memory_id: str, version: str) -> str:
    """The point id of one version of one memory (deterministic: a replayed write overwrites it)."""
    return point_id(scope, VERSION_KIND, memory_id, version)


@dataclass(frozen=True)
class Manifest:
    """The records of one generation, as (memory id, version) pairs."""

    scope: str
    generation: int
    versions: dict[str, str]
    """memory id -> version digest."""

    def point_ids(self) -> list[str]:
        return [version_point(self.scope, memory_id, v) for memory_id, v in self.versions.items()]

    def point_of(self, memory_id: str) -> str | None:
        version = self.versions.get(memory_id)
        return None if version is None else version_point(self.scope, memory_id, version)


class Manifests:
    """The manifests collection: one payload-only point per (scope, generation), with this
    process's copies of those it wrote or read (a listed generation's manifest never changes; the
    writes that touch one, a crashed candidate rewritten or a generation deleted, go through here)."""

    def __init__(self, client: StoreClient, collection: str, max_entries: int = MAX_CACHED_ENTRIES) -> None:
        self._client = client
        self.collection = collection
        self._cached: GenerationLru[Manifest] = GenerationLru(max_entries, lambda manifest: len(manifest.versions))
        ensure_collection(client, collection, None, {"tenant": _KW, "scope": _KW})

    def write(self, manifest: Manifest) -> None:
        """One atomic point write: the generation is exactly these records from now on."""
        payload = {
            "tenant": parse_scope(manifest.scope)[0],
            "scope": manifest.scope,
            "generation": manifest.generation,
            "memory_ids": list(manifest.versions),
            "versions": list(manifest.versions.values()),
        }
        point = models.PointStruct(id=self._id(manifest.scope, manifest.generation), vector={}, payload=payload)
        self._cached.drop(manifest.scope, manifest.generation)
        self._client.upsert(self.collection, [point], wait=True)
        self._cached.put(manifest.scope, manifest.generation, manifest)

    def read(self, scope: str, generation: int) -> Manifest | None:
        """The generation's manifest, or None for one written before manifests (or never written)."""
        cached = self._cached.get(scope, generation)
        if cached is not None:
            return cached
        found = self._client.retrieve(self.collection, [self._id(scope, generation)], with_payload=True)
        if not found:
            return None
        payload = payload_of(found[0])
        manifest = Manifest(scope, generation, dict(zip(payload["memory_ids"], payload["versions"], strict=True)))
        self._cached.put(scope, generation, manifest)
        return manifest

    def delete(self, scope: str, generation: int) -> None:
        self._cached.drop(scope, generation)
        self._client.delete(
            self.collection, points_selector=models.PointIdsList(points=[self._id(scope, generation)]), wait=True
        )

    def forget_cached(self, scope: str) -> None:
        """Drop this process's copies of a scope's manifests (after `forget` deleted them)."""
        self._cached.drop(scope)

    @staticmethod
    def _id(scope: str, generation: int) -> str:
        return point_id("manifest", scope, generation)


def unreferenced_versions(
    client: StoreClient, collection: str, scope: str, referenced: Sequence[Manifest]
) -> list[str]:
    """The point ids of the scope's versions that no manifest in `referenced` names: those of
    dropped generations, and those a crashed pass wrote before its manifest. One read of the
    scope's version points, their memory id and version only."""
    keep = {(memory_id, v) for manifest in referenced for memory_id, v in manifest.versions.items()}
    flt = scope_filter(scope, models.FieldCondition(key="kind", match=models.MatchValue(value=VERSION_KIND)))
    unreferenced: list[str] = []
    offset = None
    while True:
        batch, offset = client.scroll(
            collection, scroll_filter=flt, limit=5_000, offset=offset, with_payload=["memory_id", "version"]
        )
        for p in batch:
            payload = payload_of(p)
            if (payload["memory_id"], payload["version"]) not in keep:
                unreferenced.append(str(p.id))
        if offset is None:
            return unreferenced
