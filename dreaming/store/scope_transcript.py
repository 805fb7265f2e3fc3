"""One scope's indexed messages as this process holds them: turns in producer order, their Kafka
offsets and their vectors, and which vectors are still owed.

With `transcript_vectors=statements` the index step stores a turn with a zero vector (payload
`vector_from: none`): a message's vector is then made by the pass that reads it, from the vectors
of the statements it made of the message (embedded for the memories anyway), or, for a message
no statement came from, from its own text once a search needs it. Both land here first (so the
same pass's searches see them) and are written back to the store in one write (`dirty`). A message
that says nothing at all (every sentence social glue: "Got it, thanks!") is *set aside*: it keeps
its zero vector, no search ranks it, and no model ever runs on it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from schemas import ConversationTurn

VectorFrom = Literal["text", "statements", "none", "chatter"]
"""Where a message's stored vector came from: its text embedded, the mean of its statements'
vectors, nowhere yet (a zero vector that no search may rank), or nowhere ever (a message that says
nothing: its zero vector stays, and no search ranks it)."""
VECTOR_FROM = "vector_from"
"""The payload key that says it; a point without it (indexed before the setting) holds its text's vector."""


def vector_from(payload: Mapping[str, Any]) -> VectorFrom:
    value = payload.get(VECTOR_FROM, "text")
    return value if value in ("none", "statements", "chatter") else "text"


def unit_mean(rows: np.ndarray) -> np.ndarray:
    """The normalised mean of unit rows: the direction they share."""
    mean: np.ndarray = np.asarray(rows, dtype=np.float32).mean(axis=0)
    unit: np.ndarray = mean / max(float(np.linalg.norm(mean)), 1e-12)
    return unit.astype(np.float32)


@dataclass
class ScopeTranscript:
    read_at: float
    turns: list[ConversationTurn]
    offsets: list[int]
    vectors: np.ndarray
    origins: list[VectorFrom]
    rows: dict[str, int] = field(init=False)
    """message id -> its row in `vectors`."""
    dirty: set[int] = field(default_factory=set)
    """Rows whose vector was made in this process and is not in the store yet."""
    _ranked: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)
    """`ranked`, kept until a row is set aside (filling an owed row never changes it)."""

    def __post_init__(self) -> None:
        self.rows = {t.message_id: i for i, t in enumerate(self.turns)}

    @classmethod
    def empty(cls) -> ScopeTranscript:
        return cls(time.monotonic(), [], [], np.zeros((0, 0), dtype=np.float32), [])

    def owed(self) -> list[int]:
        """Rows with no vector yet."""
        return [i for i, origin in enumerate(self.origins) if origin == "none"]

    def fill_from_statements(self, statements: Mapping[str, np.ndarray]) -> int:
        """Give each message still owed a vector the mean of its statements' vectors
        (`statements`: message id -> one row per statement made of it). How many were filled."""
        filled = 0
        for message_id, rows in statements.items():
            row = self.rows.get(message_id)
            if row is None or self.origins[row] != "none" or len(rows) == 0:
                continue
            self._set(row, unit_mean(rows), "statements")
            filled += 1
        return filled

    def set_aside(self, says_nothing: Callable[[ConversationTurn], bool]) -> int:
        """Messages still owed a vector that say nothing: they keep the zero vector for good and
        no search ranks them (`ranked`). How many were set aside."""
        rows = [i for i in self.owed() if says_nothing(self.turns[i])]
        for row in rows:
            self.origins[row] = "chatter"
            self.dirty.add(row)
        self._ranked = None
        return len(rows)

    def ranked(self) -> np.ndarray:
        """The rows a search may rank: every message but those set aside."""
        if self._ranked is None:
            self._ranked = np.fromiter((o != "chatter" for o in self.origins), dtype=bool, count=len(self.origins))
        return self._ranked

    def embed_owed(self, embed: Callable[[Sequence[str]], np.ndarray]) -> int:
        """Embed the texts of the messages still owed a vector, in one call: a search ranks every
        message, and a zero vector would hide one. How many were embedded."""
        owed = self.owed()
        if owed:
            for row, vector in zip(owed, embed([self.turns[i].content for i in owed])):
                self._set(row, vector, "text")
        return len(owed)

    def _set(self, row: int, vector: np.ndarray, origin: VectorFrom) -> None:
        self.vectors[row] = vector
        self.origins[row] = origin
        self.dirty.add(row)
