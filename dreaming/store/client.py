"""One Qdrant client per process: embedded (Qdrant's engine in-process, `edge.py`) by default, a
server by URL; qdrant-client's local mode stays available (`embedded_store=local`, and the tests'
in-memory stores). Every store is written against `StoreClient`, whichever it is."""

from __future__ import annotations

import uuid
import warnings
from typing import Any

from qdrant_client import QdrantClient, models

from dreaming.store.edge import EdgeClient
from schemas.scope import parse_scope
from schemas.settings import Settings

# Deterministic point ids: the same (scope, generation, memory) always maps to the same point,
# so a replayed write overwrites itself instead of adding a copy.
_NAMESPACE = uuid.UUID("6f1d3c52-8a0e-4f5b-9d35-0c1e2b7a9d41")


def point_id(*parts: object) -> str:
    return str(uuid.uuid5(_NAMESPACE, "|".join(str(p) for p in parts)))


StoreClient = QdrantClient | EdgeClient
"""What the stores talk to: a qdrant-client (server or local mode) or the embedded engine."""


def open_qdrant(settings: Settings) -> StoreClient:
    if settings.qdrant_url:
        api_key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        return QdrantClient(url=settings.qdrant_url, api_key=api_key)
    if settings.embedded_store == "edge":
        return EdgeClient(settings.qdrant_path)
    settings.qdrant_path.mkdir(parents=True, exist_ok=True)
    return QdrantClient(path=str(settings.qdrant_path))


def needs_serialising(client: StoreClient) -> bool:
    """qdrant-client's local mode is one Python object that two threads must not use at once; the
    embedded engine and a server take concurrent calls."""
    from qdrant_client.local.qdrant_local import QdrantLocal

    return isinstance(client, QdrantClient) and isinstance(getattr(client, "_client", None), QdrantLocal)


def payload_of(point: models.Record) -> dict[str, Any]:
    """A point's payload. Every read here asks for it (`with_payload=True`), so it is there;
    qdrant types it as optional because a read may leave it out."""
    assert point.payload is not None, f"point {point.id} was read without its payload"
    return point.payload


def scope_filter(scope: str, *extra: models.Condition) -> models.Filter:
    """Every read is filtered by tenant AND scope: isolation does not rest on one field alone."""
    tenant = parse_scope(scope)[0]
    return models.Filter(
        must=[
            models.FieldCondition(key="tenant", match=models.MatchValue(value=tenant)),
            models.FieldCondition(key="scope", match=models.MatchValue(value=scope)),
            *extra,
        ]
    )


def ensure_collection(
    client: StoreClient, name: str, dims: int | None, indexed: dict[str, models.PayloadSchemaType]
) -> None:
    """Create a collection once, with payload indexes (used by a server and the embedded engine;
    local mode ignores them). An existing collection gets the indexes it lacks: a process killed
    between creating it and indexing it left one whose reads scan every point."""
    if client.collection_exists(name):
        have = client.get_collection(name).payload_schema or {}
        missing = {field: schema for field, schema in indexed.items() if field not in have}
    else:
        vectors: models.VectorParams | dict[str, models.VectorParams] = (
            models.VectorParams(size=dims, distance=models.Distance.COSINE) if dims else {}
        )
        client.create_collection(name, vectors_config=vectors)
        missing = indexed
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Payload indexes have no effect in the local Qdrant")
        for field, schema in missing.items():
            client.create_payload_index(name, field, field_schema=schema)


def scroll_all(
    client: StoreClient,
    collection: str,
    flt: models.Filter | None,
    page: int = 1_000,
    *,
    with_vectors: bool = False,
) -> list[models.Record]:
    records: list[models.Record] = []
    offset = None
    while True:
        batch, offset = client.scroll(
            collection, scroll_filter=flt, limit=page, offset=offset, with_payload=True, with_vectors=with_vectors
        )
        records.extend(batch)
        if offset is None:
            return records
