"""The offline engine: deterministic rules plus a local embedder, no model and no network."""

from dreaming.engine.offline.engine import OfflineEngine

__all__ = ["OfflineEngine"]
