"""The stream worker's state: per assigned partition, each scope's signals row as the changelog
holds it (JSON bytes), and the due index over those rows that the timer reads.

Rows keep the changelog format Faust's table wrote: key = the scope as a JSON string, value =
the row's bytes, in the compacted `<app id>-signals-changelog` topic (`streams.restore` reads
them back on assignment, `streams.steps.output` writes each changed row with its batch).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping

from schemas.policy import TriggerPolicy
from streams.due_index import DueIndex
from streams.metrics import SCOPES_TRACKED
from streams.signals import ScopeSignals

Row = tuple[int, str, bytes | None]
"""(partition, scope, row bytes), None for a tombstone: one changelog record to write."""


def changelog_key(scope: str) -> bytes:
    """Rows are keyed as Faust's json key codec wrote them: the scope as a JSON string (a valid
    scope needs no escaping: letters, digits and ._@:+-/ only)."""
    return b'"' + scope.encode() + b'"'


def scope_of(key: bytes) -> str:
    """The scope a changelog key names (the inverse of `changelog_key`, escapes included)."""
    if key[:1] == b'"' and key[-1:] == b'"' and b"\\" not in key:
        return key[1:-1].decode()
    scope: str = json.loads(key)
    return scope


class SignalTables:
    """partition → scope → row bytes for the partitions this worker owns, and the due index.

    `rows` is what `Processor.process_batch` reads; a batch's changed rows come back through
    `write`, which keeps the due index in step. Not thread-safe (the worker's loop thread only)."""

    def __init__(
        self,
        policy: Callable[[str], TriggerPolicy],
        rows: dict[int, dict[str, bytes]] | None = None,
        due: DueIndex | None = None,
    ) -> None:
        self.policy = policy
        self.rows: dict[int, dict[str, bytes]] = {} if rows is None else rows
        self.due = DueIndex() if due is None else due

    def __contains__(self, partition: int) -> bool:
        return partition in self.rows

    def row(self, partition: int, scope: str) -> bytes | None:
        return self.rows.get(partition, {}).get(scope)

    def write(self, changed: Mapping[tuple[int, str], ScopeSignals | None]) -> list[Row]:
        """Store a batch's changed rows (None: the scope was forgotten) and return the changelog
        records to publish. A partition revoked meanwhile is skipped (not possible inside one
        poll of the loop; kept safe)."""
        rows, due, policy = self.rows, self.due, self.policy
        out: list[Row] = []
        for (partition, scope), signals in changed.items():
            table = rows.get(partition)
            if table is None:
                continue
            if signals is None:
                table.pop(scope, None)
                due.discard(scope)
                out.append((partition, scope, None))
            else:
                row = table[scope] = signals.encode()
                due.track(scope, signals, policy(scope))
                out.append((partition, scope, row))
        return out

    def open(self, partitions: Iterable[int]) -> None:
        """Empty tables for newly assigned partitions (their rows come from the changelog)."""
        for number in partitions:
            self.rows[number] = {}

    def track_all(self, partitions: Iterable[int]) -> None:
        """Put the restored rows of these partitions into the due index."""
        policy, decode_row, track = self.policy, ScopeSignals.decode, self.due.track
        for number in partitions:
            for scope, row in self.rows[number].items():
                track(scope, decode_row(row), policy(scope))

    def drop(self, partitions: Iterable[int]) -> None:
        """Forget revoked or lost partitions: their rows and due entries are the new owner's now."""
        for number in partitions:
            for scope in self.rows.pop(number, None) or {}:
                self.due.discard(scope)

    def count(self) -> int:
        return sum(len(t) for t in self.rows.values())

    def report(self) -> None:
        SCOPES_TRACKED.set(self.count())
