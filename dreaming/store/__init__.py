"""Qdrant-backed state of the consolidation side: curated memories in versioned generations,
the transcript index, and the inbox of memory-adds waiting for the next pass.

The names below load on first use (PEP 562): the plain models (`pointer`, `diary_entry`) and the
read helpers (`history`) are imported by readers over the HTTP API, the CLI among them, which
must not pay for a Qdrant client they never open.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dreaming.store.client import open_qdrant
    from dreaming.store.diary import Diary
    from dreaming.store.diary_entry import DiaryEntry
    from dreaming.store.memories import MemoryStore
    from dreaming.store.pointer import AppliedJob, GenerationInfo, ScopeState
    from dreaming.store.transcripts import TranscriptStore

_HOMES = {
    "AppliedJob": "dreaming.store.pointer",
    "Diary": "dreaming.store.diary",
    "DiaryEntry": "dreaming.store.diary_entry",
    "GenerationInfo": "dreaming.store.pointer",
    "MemoryStore": "dreaming.store.memories",
    "ScopeState": "dreaming.store.pointer",
    "TranscriptStore": "dreaming.store.transcripts",
    "open_qdrant": "dreaming.store.client",
}
__all__ = [
    "AppliedJob",
    "Diary",
    "DiaryEntry",
    "GenerationInfo",
    "MemoryStore",
    "ScopeState",
    "TranscriptStore",
    "open_qdrant",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
