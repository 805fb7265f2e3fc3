"""The embedded store: Qdrant's own engine in-process (`qdrant-edge-py`), behind the part of
`QdrantClient`'s interface the stores use, so the same store code runs on it and on a server.

Why not qdrant-client's local mode: it evaluates payload filters in Python over every point of a
collection (a scope's read costs ~30 µs per point of *other* scopes) and commits one SQLite
transaction per point. The edge engine keeps real payload indexes (tenant and scope are keyword
indexes, as on a server), so one scope's reads and writes touch that scope's points only, and an
upsert of a batch is one write-ahead-log append. Measured in `bench.fleet` (README, Benchmarks).

One shard per collection, in `<root>/<collection>/`; the root is locked for this process (as
local mode locks its folder): a second process gets `StoreInUse`. Shards are safe to use from
several threads (the engine locks its segments), so the HTTP API reads beside the worker without
holding the worker's lock.
"""

from __future__ import annotations

import json
import shutil
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import portalocker
import qdrant_edge as edge
from qdrant_client import models

_CONFIG_FILE = "edge_config.json"
"""The shard's vector settings, written when it is created."""
_NO_VECTORS = "none"
"""Payload-only collections (the pointer, inbox, diary) get one unused sparse vector: the engine
needs some vector config, and a sparse one costs nothing for points that leave it empty."""

_SCHEMAS = {
    models.PayloadSchemaType.KEYWORD: edge.PayloadSchemaType.Keyword,
    models.PayloadSchemaType.INTEGER: edge.PayloadSchemaType.Integer,
    models.PayloadSchemaType.FLOAT: edge.PayloadSchemaType.Float,
    models.PayloadSchemaType.BOOL: edge.PayloadSchemaType.Bool,
}
_DISTANCES = {
    models.Distance.COSINE: edge.Distance.Cosine,
    models.Distance.DOT: edge.Distance.Dot,
    models.Distance.EUCLID: edge.Distance.Euclid,
}


class StoreInUse(RuntimeError):
    """Another process has the embedded store open (a running worker)."""


class UnsupportedQuery(ValueError):
    """A filter or selector this adapter does not translate; the message names it."""


def _condition(condition: Any) -> Any:
    if isinstance(condition, models.Filter):
        return _filter(condition)
    if isinstance(condition, models.HasIdCondition):
        return edge.HasIdCondition({_point_id(i) for i in condition.has_id})
    if isinstance(condition, models.FieldCondition):
        match = condition.match
        if isinstance(match, models.MatchValue):
            return edge.FieldCondition(key=condition.key, match=edge.MatchValue(value=match.value))
        if isinstance(match, models.MatchAny):
            return edge.FieldCondition(
                key=condition.key, match=edge.MatchAny(cast("list[str] | list[int]", list(match.any)))
            )
        if match is None and isinstance(condition.range, models.Range):
            r = condition.range
            return edge.FieldCondition(key=condition.key, range=edge.RangeFloat(gte=r.gte, gt=r.gt, lte=r.lte, lt=r.lt))
        if match is None and isinstance(condition.range, models.DatetimeRange):  # a reader's created/updated filter
            d = condition.range
            bounds = {name: _instant(getattr(d, name)) for name in ("gte", "gt", "lte", "lt")}
            return edge.FieldCondition(key=condition.key, range=edge.RangeDateTime(**bounds))
    raise UnsupportedQuery(f"the embedded store does not translate the condition {condition!r}")


def _instant(value: Any) -> str | None:
    """The engine's datetime range takes RFC 3339 strings."""
    return None if value is None else str(value.isoformat())


def _conditions(conditions: Any) -> list[Any] | None:
    if conditions is None:
        return None
    items = conditions if isinstance(conditions, list) else [conditions]
    return [_condition(c) for c in items]


def _filter(flt: models.Filter | None) -> Any:
    if flt is None:
        return None
    if flt.min_should is not None:
        raise UnsupportedQuery("the embedded store does not translate min_should")
    return edge.Filter(must=_conditions(flt.must), should=_conditions(flt.should), must_not=_conditions(flt.must_not))


def _point_id(value: Any) -> Any:
    """Point ids as the engine takes them: an int, or a UUID (qdrant's string ids are UUIDs)."""
    if isinstance(value, int):
        return value
    return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))


def _payload_selector(with_payload: bool | Sequence[str]) -> Any:
    """`True`/`False`, or the keys to read (as qdrant-client takes them: a list of field names)."""
    return with_payload if isinstance(with_payload, bool) else edge.PayloadSelector.Include(list(with_payload))


def _record(point: Any, with_vectors: bool) -> models.Record:
    vector = point.vector if with_vectors else None
    if isinstance(vector, dict) and not vector:
        vector = None
    # model_construct: the engine's answer is already typed; validating 20k records costs more than reading them.
    return models.Record.model_construct(id=str(point.id), payload=point.payload, vector=vector, shard_key=None)


class EdgeClient:
    """The subset of `QdrantClient` that dreaming/store uses, on qdrant-edge shards."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self._lock_file = (root / ".lock").open("a")
        try:
            portalocker.lock(self._lock_file, portalocker.LOCK_EX | portalocker.LOCK_NB)
        except portalocker.exceptions.LockException as err:
            self._lock_file.close()
            raise StoreInUse(f"the embedded store {root} is in use by another process (a running worker)") from err
        self._shards: dict[str, Any] = {}
        self._opening = threading.Lock()
        self._closed = False

    # --- collections
    def _shard(self, name: str) -> Any:
        shard = self._shards.get(name)
        if shard is not None:
            return shard
        with self._opening:
            if name not in self._shards:
                if not self._exists_on_disk(name):
                    raise ValueError(f"Collection {name} not found")
                self._shards[name] = edge.EdgeShard.load(str(self.root / name))
            return self._shards[name]

    def _exists_on_disk(self, name: str) -> bool:
        """A shard whose creation got as far as its config or a segment: what `EdgeShard.load` can
        open. A folder a kill -9 left earlier in the creation (its write-ahead log alone) holds no
        point, since points are written only into a created shard: it is no collection yet."""
        folder = self.root / name
        segments = folder / "segments"
        return (folder / _CONFIG_FILE).is_file() or (segments.is_dir() and any(segments.iterdir()))

    def collection_exists(self, collection_name: str) -> bool:
        return collection_name in self._shards or self._exists_on_disk(collection_name)

    def create_collection(self, collection_name: str, vectors_config: Any = None, **_: Any) -> bool:
        if isinstance(vectors_config, models.VectorParams):
            config = edge.EdgeConfig(
                vectors=edge.EdgeVectorParams(size=vectors_config.size, distance=_DISTANCES[vectors_config.distance])
            )
        elif not vectors_config:
            config = edge.EdgeConfig(sparse_vectors={_NO_VECTORS: edge.EdgeSparseVectorParams()})
        else:
            raise UnsupportedQuery(f"the embedded store takes one unnamed dense vector or none, not {vectors_config!r}")
        with self._opening:
            folder = self.root / collection_name
            if folder.exists() and not self._exists_on_disk(collection_name):
                shutil.rmtree(folder)  # an interrupted creation (see `_exists_on_disk`): made again
            self._shards[collection_name] = edge.EdgeShard.create(str(folder), config)
        return True

    def create_payload_index(self, collection_name: str, field_name: str, field_schema: Any = None, **_: Any) -> None:
        schema = _SCHEMAS.get(field_schema)
        if schema is None:
            raise UnsupportedQuery(f"the embedded store does not index {field_schema!r} ({field_name})")
        self._shard(collection_name).update(edge.UpdateOperation.create_field_index(field_name, schema))

    def get_collections(self) -> models.CollectionsResponse:
        names = sorted(set(self._shards) | {p.name for p in self.root.iterdir() if p.is_dir()})
        return models.CollectionsResponse(collections=[models.CollectionDescription(name=n) for n in names])

    def get_collection(self, collection_name: str) -> Any:
        """What callers read of it: `config.params.vectors.size` (None without a dense vector),
        `points_count` and `payload_schema` (the indexed fields); the width comes from the shard's
        own `edge_config.json`."""
        info = self._shard(collection_name).info()
        path = self.root / collection_name / _CONFIG_FILE
        # a shard loaded from its segments alone (`_exists_on_disk`) has no config to give the width
        config = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        dense = (config.get("vectors") or {}).get("")
        vectors = SimpleNamespace(size=dense["size"]) if dense else None
        return SimpleNamespace(
            config=SimpleNamespace(params=SimpleNamespace(vectors=vectors)),
            points_count=info.points_count,
            payload_schema=dict(info.payload_schema),
        )

    # --- points
    def upsert(self, collection_name: str, points: Sequence[models.PointStruct], wait: bool = True, **_: Any) -> None:
        """One engine operation for the whole batch (one WAL append), however many points."""
        if not points:
            return
        # The stores write one unnamed dense vector (a list of floats) or none ({}).
        batch = [edge.Point(_point_id(p.id), cast("list[float]", p.vector or {}), p.payload) for p in points]
        self._shard(collection_name).update(edge.UpdateOperation.upsert_points(batch))

    def retrieve(
        self,
        collection_name: str,
        ids: Sequence[Any],
        with_payload: bool | Sequence[str] = True,
        with_vectors: bool = False,
        **_: Any,
    ) -> list[models.Record]:
        if not ids:
            return []
        found = self._shard(collection_name).retrieve(
            [_point_id(i) for i in ids], with_payload=_payload_selector(with_payload), with_vector=with_vectors
        )
        return [_record(p, with_vectors) for p in found]

    def scroll(
        self,
        collection_name: str,
        scroll_filter: models.Filter | None = None,
        limit: int = 10,
        offset: Any = None,
        with_payload: bool | Sequence[str] = True,
        with_vectors: bool = False,
        **_: Any,
    ) -> tuple[list[models.Record], Any]:
        request = edge.ScrollRequest(
            offset=None if offset is None else _point_id(offset),
            limit=limit,
            filter=_filter(scroll_filter),
            with_payload=_payload_selector(with_payload),
            with_vector=with_vectors,
        )
        found, next_offset = self._shard(collection_name).scroll(request)
        return [_record(p, with_vectors) for p in found], None if next_offset is None else str(next_offset)

    def count(
        self, collection_name: str, count_filter: models.Filter | None = None, exact: bool = True, **_: Any
    ) -> Any:
        n = self._shard(collection_name).count(edge.CountRequest(filter=_filter(count_filter), exact=True))
        return models.CountResult(count=n)

    def delete(self, collection_name: str, points_selector: Any, wait: bool = True, **_: Any) -> None:
        shard = self._shard(collection_name)
        if isinstance(points_selector, models.FilterSelector):
            shard.update(edge.UpdateOperation.delete_points_by_filter(_filter(points_selector.filter)))
        elif isinstance(points_selector, models.PointIdsList):
            if points_selector.points:
                shard.update(edge.UpdateOperation.delete_points([_point_id(i) for i in points_selector.points]))
        else:
            raise UnsupportedQuery(f"the embedded store does not translate the selector {points_selector!r}")

    # --- lifetime
    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with self._opening:
            for shard in self._shards.values():
                shard.flush()
                shard.close()
            self._shards.clear()
        portalocker.unlock(self._lock_file)
        self._lock_file.close()
