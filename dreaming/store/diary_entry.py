"""One diary entry: what a pass (or an operator's decision) did to a scope and why. A plain model,
apart from the diary store (dreaming/store/diary.py), for readers that do not load Qdrant."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from schemas import JobLifecycleEvent, MemoryChangeEvent, Motive


class DiaryEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    scope: str
    job_id: str
    trigger: str
    status: str
    written_at: datetime
    generation: int | None = None
    reason: str = ""
    motives: tuple[Motive, ...] = ()
    notes: tuple[str, ...] = ()
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    model_seconds: float = 0.0
    """Wall seconds the pass waited for the model."""
    pass_seconds: float = 0.0
    """Wall seconds of the pass up to this entry (the pointer switch after it not counted)."""
    unread_messages: int = 0
    """New messages the pass left for the next one (the LLM engine's call budget ran out)."""
    events: tuple[JobLifecycleEvent | MemoryChangeEvent, ...] = ()
