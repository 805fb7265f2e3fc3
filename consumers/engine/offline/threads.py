"""Cut a transcript into threads: one topic, talked through without a long pause.

A new thread starts with a new session, or when nobody spoke for THREAD_GAP. Threads matter for
motives: three complaints in one thread are one bad answer; the same complaint in three threads is
a pattern worth dreaming about.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Iterable

from schemas import ConversationTurn

THREAD_GAP = timedelta(minutes=30)


def thread_index(turns: Iterable[ConversationTurn]) -> dict[str, int]:
    """message id -> thread number (0, 1, ...), for a chronological transcript."""
    index: dict[str, int] = {}
    thread = -1
    previous: ConversationTurn | None = None
    for turn in turns:
        if previous is None or turn.session_id != previous.session_id or turn.ts - previous.ts > THREAD_GAP:
            thread += 1
        index[turn.message_id] = thread
        previous = turn
    return index
