"""Fold step of the stream worker: a batch of records validated, folded into its scopes' signals
and decided on (`Processor.process_batch`), against the rows of the partitions it comes from.

What the batch produced goes to the output step as one `Batch`; the rows are only read here,
the output step writes the changed ones back with the batch. A storm of bad input raises
`BadInputStorm` from `submit` before anything of the batch reaches the next step.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import cast

from plumbing.step import Forwarding, Step
from streams.batch import Batch, Record
from streams.processor import Processor
from streams.rows import SignalTables


class FoldStep(Forwarding):
    """A `plumbing.step.Step[[Sequence[Record]]]` in front of the output step (poll, join and
    close are the output step's)."""

    def __init__(self, processor: Processor, tables: SignalTables, next_step: Step[[Batch]]) -> None:
        self._processor = processor
        self._tables = tables
        self._next = self._output = next_step  # _next (Forwarding) is untyped in what it submits

    def submit(self, records: Sequence[object]) -> None:
        """Records as the consumer returned them (confluent-kafka's Message, or anything with its
        accessors); errors among them (partition EOF and the like) are passed over."""
        batch = self._processor.process_batch(cast("Sequence[Record]", records), self._tables.rows, time.time())
        self._output.submit(batch)
