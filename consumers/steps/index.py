"""Index step: turns, memory-adds and the control events a pass needs into Qdrant, so a pass can
read them: corrections (`correct`) into their inbox, steering (`steer`) for the API to show.
Other control events (trigger, reset, evaluate, forget) are the stream worker's; they are read
here only to move this worker's offsets.

Each record goes through the shared input validator (`schemas.validation`), the same one the
stream worker dead-letters by: what it rejects is counted and logged with the reason, never
indexed (the stream worker's dead-letter topic holds the record itself). A turn whose message id
is already indexed with different content is refused too: the first version stays, and the
second is reported rather than silently replacing it. A memory-add asking for `protected` is
indexed unprotected unless its `producer` header names a trusted producer; likewise a correction
claiming the `operator` role is read as an agent's unless it comes from the API (which gives that
role only to the operator token) or a trusted producer.
"""

from __future__ import annotations

import logging
from typing import Any, get_args

from prometheus_client import Counter

from consumers.runtime import Runtime
from dreaming.metrics import INDEXED
from dreaming.store.client import payload_of, point_id
from dreaming.store.transient import is_transient_store
from plumbing.kafka_io import API_PRODUCER, PRODUCER_HEADER
from plumbing.retry import Retrier
from plumbing.step import Offsets, Step
from schemas import ControlEvent, ConversationTurn, MemoryAdd
from schemas.scope import tenant_of
from schemas.settings import Settings
from schemas.validation import ERROR_TYPES, Kind, Rejected, validate_record

log = logging.getLogger(__name__)
SKIPPED = Counter(
    "dreamstream_index_skipped_total",
    "Input records the consolidation worker did not index, by reason",
    ["kind", "reason"],
)
_OWN_REASONS: dict[str, tuple[str, ...]] = {
    "memory-adds": ("protected_ignored",),
    "control": ("operator_ignored",),
}
"""Reasons of this step's own, beside the validator's `ERROR_TYPES`."""


def declare_skipped() -> None:
    """Every (kind, reason) series at 0 from the start."""
    for kind in get_args(Kind):
        for reason in (*ERROR_TYPES, *_OWN_REASONS.get(kind, ())):
            SKIPPED.labels(kind, reason)


def _producer(msg: Any) -> str | None:
    headers = msg.headers() if hasattr(msg, "headers") else None
    for name, value in headers or ():
        if name == PRODUCER_HEADER and isinstance(value, bytes):
            return value.decode("utf-8", "replace")
    return None


class IndexStep:
    """A `plumbing.step.Step[[Message]]`: `join` writes the batch, then hands the offsets it
    covers to `next_step` (the commit) and joins it, so offsets are committed only after the
    writes they cover."""

    def __init__(self, settings: Settings, runtime: Runtime, retrier: Retrier, next_step: Step[[Offsets]]) -> None:
        self._settings = settings
        self._runtime = runtime
        self._retrier = retrier
        self._next = next_step
        declare_skipped()
        topics = settings.topics
        self._kinds: dict[str, Kind] = {
            topics.turns: "turns",
            topics.memory_adds: "memory-adds",
            topics.control: "control",
        }
        self._turns: dict[tuple[str, str], tuple[ConversationTurn, int]] = {}
        self._adds: list[MemoryAdd] = []
        self._corrections: list[ControlEvent] = []
        self._steers: list[ControlEvent] = []
        self._operators = frozenset({API_PRODUCER, *settings.trusted_producers})
        self._positions: dict[tuple[str, int], int] = {}
        self.skipped = 0

    def submit(self, msg: Any) -> None:
        topic, partition, offset = msg.topic(), msg.partition(), msg.offset()
        self._positions[(topic, partition)] = offset + 1
        result = validate_record(self._kinds[topic], msg.key(), msg.value(), partition, self._settings)
        if isinstance(result, Rejected):
            self._skip(self._kinds[topic], result.error_type, f"{topic}[{partition}]@{offset}: {result.reason}")
            return
        event = result.event
        if isinstance(event, ControlEvent):
            self._control(event, _producer(msg))
            return
        if isinstance(event, MemoryAdd) and event.protected and _producer(msg) not in self._settings.trusted_producers:
            # Only an operator (consumers/protect.py) or a trusted producer may protect a memory.
            SKIPPED.labels("memory-adds", "protected_ignored").inc()
            log.warning(
                "memory-add %s of %s asks for protected from producer %r, which trusted_producers does not "
                "name: indexed unprotected",
                event.memory_id,
                event.scope,
                _producer(msg),
            )
            event = event.model_copy(update={"protected": False})
        if isinstance(event, ConversationTurn):
            key = (event.scope, event.message_id)
            first = self._turns.get(key)
            if first is not None and first[0].content != event.content:
                self._skip(
                    "turns",
                    "duplicate_message_id",
                    f"{topic}[{partition}]@{offset}: message id "
                    f"{event.message_id!r} of {event.scope} was already read with other content",
                )
                return
            self._turns.setdefault(key, (event, offset))
        else:
            assert isinstance(event, MemoryAdd)  # the two topics read here carry turns and memory-adds
            self._adds.append(event)

    def _control(self, event: ControlEvent, producer: str | None) -> None:
        correction = event.correction
        if correction is not None:
            if correction.role == "operator" and producer not in self._operators:
                SKIPPED.labels("control", "operator_ignored").inc()
                log.warning(
                    "correction %s of %s claims the operator role from producer %r, which is neither the API "
                    "nor in trusted_producers: read as an agent's",
                    event.request_id,
                    event.scope,
                    producer,
                )
                event = event.model_copy(update={"correction": correction.model_copy(update={"role": "agent"})})
            self._corrections.append(event)
        elif event.steering is not None:
            self._steers.append(event)

    def poll(self) -> None:
        """Nothing runs in the background: the batch is written by join()."""

    def join(self) -> None:
        """Write the batch, then pass the next offset per (topic, partition) it covers on."""
        turns, adds, positions = list(self._turns.values()), self._adds, self._positions
        corrections, steers = self._corrections, self._steers
        self._turns, self._adds, self._positions, self._corrections, self._steers = {}, [], {}, [], []
        if turns or adds or corrections or steers:
            self._retrier.call("index", lambda: self._write(turns, adds, corrections, steers), is_transient_store)
            INDEXED.labels("turn").inc(len(turns))
            INDEXED.labels("memory_add").inc(len(adds))
            INDEXED.labels("correction").inc(len(corrections))
            INDEXED.labels("steering").inc(len(steers))
        if positions:
            self._next.submit(positions)
        self._next.join()

    def close(self) -> None:
        self._turns, self._adds, self._positions, self._corrections, self._steers = {}, [], {}, [], []
        self._next.close()

    def _write(
        self,
        turns: list[tuple[ConversationTurn, int]],
        adds: list[MemoryAdd],
        corrections: list[ControlEvent],
        steers: list[ControlEvent],
    ) -> None:
        runtime = self._runtime
        with runtime.lock:
            turns = self._without_rewrites(turns)
            runtime.transcripts.index_turns(turns)
            runtime.transcripts.add_pending(adds)
            runtime.corrections.add(corrections)
            for event in steers:
                change = event.steering
                assert change is not None  # only steer events are kept in _steers
                scope = None if change.applies_to == "tenant" else event.scope
                runtime.steering.set(tenant_of(event.scope), scope, change.text, change.by, event.ts)

    def _without_rewrites(self, turns: list[tuple[ConversationTurn, int]]) -> list[tuple[ConversationTurn, int]]:
        """Drop turns whose message id is indexed with different content (a redelivery of the
        same turn is kept: it rewrites the same point with the same data)."""
        if not turns:
            return turns
        store = self._runtime.transcripts
        ids = [point_id("turn", t.scope, t.message_id) for t, _ in turns]
        stored = {
            str(p.id): payload_of(p)["turn"]["content"]
            for p in self._runtime.client.retrieve(store.transcripts, ids=ids, with_payload=True)
        }
        kept = []
        for (turn, offset), pid in zip(turns, ids):
            if pid in stored and stored[pid] != turn.content:
                self._skip(
                    "turns",
                    "duplicate_message_id",
                    f"message id {turn.message_id!r} of {turn.scope} is "
                    "already indexed with other content; the first version stays",
                )
                continue
            kept.append((turn, offset))
        return kept

    def _skip(self, kind: str, reason: str, detail: str) -> None:
        self.skipped += 1
        SKIPPED.labels(kind, reason).inc()
        log.warning("not indexed (%s): %s", reason, detail)
