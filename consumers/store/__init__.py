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
    from consumers.store.client import open_qdrant
    from consumers.store.diary import Diary
    from consumers.store.diary_entry import DiaryEntry
    from consumers.store.memories import MemoryStore
    from consumers.store.pointer import AppliedJob, GenerationInfo, ScopeState
    from consumers.store.transcripts import TranscriptStore

_HOMES = {
    "AppliedJob": "consumers.store.pointer",
    "Diary": "consumers.store.diary",
    "DiaryEntry": "consumers.store.diary_entry",
    "GenerationInfo": "consumers.store.pointer",
    "MemoryStore": "consumers.store.memories",
    "ScopeState": "consumers.store.pointer",
    "TranscriptStore": "consumers.store.transcripts",
    "open_qdrant": "consumers.store.client",
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
