"""A message's transcript vector from the statements a pass made of it (`transcript_vectors=statements`).

The memories a pass writes from messages are embedded anyway (their statements: `embedding_text`);
a message read for the first time takes the normalised mean of the vectors of the statements made
of it, instead of a model run of its own at indexing. Done between apply and verify, so the
verify step's searches in the same pass rank the new messages too; a message no statement came
from is embedded from its text when a search first needs it (`TranscriptStore`), unless it says
nothing at all ("Got it, thanks!": `language.chatter.says_nothing`): that one is set aside, never
embedded and never ranked, since no memory and no check of one can rest on it.

Why a memory does not take its message's vector instead (the other way round): a memory is a
third-person rewrite that MiniLM places elsewhere, and that reuse lost LoCoMo recall (README,
*The store at fleet scale*).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from dreaming.passes.apply import Candidate
from dreaming.store import MemoryStore, TranscriptStore
from language.chatter import says_nothing


def fill_message_vectors(memories: MemoryStore, transcripts: TranscriptStore, scope: str, candidate: Candidate) -> int:
    """Give the scope's messages still owed a vector the mean of their statements' vectors, from
    every record of `candidate` written from the transcript that cites them, and set aside those
    that say nothing. How many were filled."""
    owed = transcripts.owed_messages(scope)
    if not owed:
        return 0
    filled = _fill_from_statements(memories, transcripts, scope, candidate, owed)
    transcripts.set_aside(scope, lambda turn: says_nothing(turn.content))
    return filled


def _fill_from_statements(
    memories: MemoryStore, transcripts: TranscriptStore, scope: str, candidate: Candidate, owed: set[str]
) -> int:
    records = [
        m
        for m in candidate.records.values()
        if m.origin == "transcript" and not owed.isdisjoint(m.evidence_message_ids)
    ]
    if not records:
        return 0
    statements: dict[str, list[np.ndarray]] = defaultdict(list)
    for record, vector in zip(records, memories.vectors_for(scope, records)):
        for message_id in record.evidence_message_ids:
            if message_id in owed:
                statements[message_id].append(vector)
    return transcripts.fill_from_statements(scope, {m: np.stack(rows) for m, rows in statements.items()})
