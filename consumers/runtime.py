"""Wire a consolidation process together from its settings: one Qdrant client, the stores on it,
the engine and the pass. Everything that opens the store goes through here, because embedded
Qdrant allows one client per directory."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from dreaming.awaiting_review import AwaitingReview
from dreaming.dream_pass import DreamPass
from dreaming.embedding import Embedder, make_embedder
from dreaming.engine import Engine
from dreaming.store import Diary, MemoryStore, TranscriptStore, open_qdrant
from dreaming.store.client import StoreClient
from dreaming.store.corrections import CorrectionInbox
from dreaming.store.steering import SteeringStore
from schemas.settings import Settings


def make_engine(settings: Settings, embedder: Embedder | None = None) -> Engine:
    # Each engine is imported only when chosen: litellm is slow to import and offline workers never need it.
    if settings.engine == "llm":
        from dreaming.engine.llm import LlmEngine

        return LlmEngine(settings)
    from dreaming.engine.offline import OfflineEngine

    return OfflineEngine(embedder or make_embedder(settings), assistant_roles=settings.assistant_roles)


@dataclass
class Runtime:
    settings: Settings
    client: StoreClient
    memories: MemoryStore
    transcripts: TranscriptStore
    diary: Diary
    dream_pass: DreamPass
    corrections: CorrectionInbox
    """Corrections read from the control topic, waiting for their scope's next pass."""
    steering: SteeringStore
    """Steering as last read from the control topic (the API's GET; passes use their job's)."""
    awaiting_review: AwaitingReview = field(default_factory=AwaitingReview)
    """The awaiting-review gauge, kept in step with every pointer these stores write."""
    lock: threading.RLock = field(default_factory=threading.RLock)
    """Embedded Qdrant is one client shared by the worker loop and the HTTP API thread."""

    def close(self) -> None:
        self.client.close()


def open_runtime(settings: Settings, engine: Engine | None = None, client: StoreClient | None = None) -> Runtime:
    """`client`: an already open Qdrant client to use instead of the configured one (the direct
    evaluation passes an in-memory one: nothing to persist, no per-point sqlite commit)."""
    client = client if client is not None else open_qdrant(settings)
    embedder = make_embedder(settings)
    prefix = settings.collection_prefix
    transcripts = TranscriptStore(
        client, prefix, embedder.dims, embedder.embed, embed_on_index=settings.index_embeds_turns
    )
    memories = MemoryStore(
        client,
        prefix,
        embedder.dims,
        embedder.embed,
        settings.generations_kept,
        embedder=embedder,
        pending=transcripts.pending,
        evidence_vectors=transcripts.message_vectors if settings.memory_vectors == "evidence" else None,
    )
    diary = Diary(client, prefix)
    corrections = CorrectionInbox(client, prefix)
    dream_pass = DreamPass(
        settings, memories, transcripts, diary, engine or make_engine(settings, embedder), corrections=corrections
    )
    runtime = Runtime(
        settings, client, memories, transcripts, diary, dream_pass, corrections, SteeringStore(client, prefix)
    )
    memories.on_state = runtime.awaiting_review.observe
    return runtime
