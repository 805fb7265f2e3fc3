"""Qdrant-backed state of the consolidation side: curated memories in versioned generations,
the transcript index, and the inbox of memory-adds waiting for the next pass."""

from consumers.store.client import open_qdrant
from consumers.store.diary import Diary, DiaryEntry
from consumers.store.memories import AppliedJob, GenerationInfo, MemoryStore, ScopeState
from consumers.store.transcripts import TranscriptStore

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
