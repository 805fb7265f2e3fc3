"""The right to be forgotten: delete everything the consolidation side holds of one scope."""

from __future__ import annotations

from qdrant_client import models

from dreaming.store import Diary, MemoryStore, TranscriptStore
from dreaming.store.client import StoreClient, scope_filter
from language.text_caches import clear_text_caches


def forget_scope(
    client: StoreClient,
    memories: MemoryStore,
    transcripts: TranscriptStore,
    diary: Diary,
    scope: str,
    extra: dict[str, str] | None = None,
) -> dict[str, int]:
    """Delete the scope's generations, pointer, transcripts, pending memory-adds and diary, and the
    collections in `extra` (name -> collection: pending corrections, the scope's steering).
    Empties this process's caches of text (`language.text_caches`).
    Returns how many records each store held. Idempotent: forgetting twice deletes nothing more."""
    collections = {
        "memories": memories.memories,
        "generations": memories.manifests.collection,
        "transcripts": transcripts.transcripts,
        "inbox": transcripts.inbox,
        "diary": diary.collection,
        **(extra or {}),
        "scopes": memories.scopes,
    }
    deleted: dict[str, int] = {}
    flt = scope_filter(scope)
    # The pointer goes last: until then a reader still sees a consistent (old) generation.
    for name, collection in collections.items():
        deleted[name] = client.count(collection, count_filter=flt, exact=True).count
        client.delete(collection, points_selector=models.FilterSelector(filter=flt), wait=True)
    transcripts.forget_cached(scope)
    memories.forget_cached(scope)
    memories.pointer_deleted(scope)
    clear_text_caches()  # what the engine memoised of the scope's sentences goes too
    return deleted
