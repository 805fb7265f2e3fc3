"""Per-scope signals, kept as one JSON row per scope in the compacted signals changelog. Pure
functions, cheap per event.

Kept small on purpose (a fleet has millions of scopes): counters, a few timestamps, and at most
`MAX_ENTITIES` entity counters. A msgspec Struct: a row decodes in ~1 µs and encodes in under one;
fields at their default are left out of the JSON.
"""

from __future__ import annotations

import struct
import zlib
from datetime import datetime
from typing import Any, cast

import msgspec

from streams.extract import TurnSignals

MAX_ENTITIES = 12
REPEATED = 3
"""An entity mentioned in this many messages since the last pass is a signal of its own."""
RECENT_TURNS = 6
"""Turns whose (message id, content) digests a row keeps: a reused id among them is refused."""
_ENTRY = 10
"""Bytes of one recent turn: 6 of its message id's digest (48 bits: a false match between two of a
scope's ids is ~2^-45 per turn), 4 of its content's crc32."""
ID_FILTER_BYTES = 48
"""A Bloom filter (384 bits, 2 per id) of every message id the scope has carried."""
_FILTER_BITS = ID_FILTER_BYTES * 8
ID_FILTER_FULL = _FILTER_BITS // 2
"""Bits set beyond which the filter says "maybe" too often to refuse anything (~130 ids)."""
_SEEN_BYTES = ID_FILTER_BYTES + RECENT_TURNS * _ENTRY
_crc32, _adler32, _pack = zlib.crc32, zlib.adler32, struct.Struct("<IHI").pack


def id_digest(message_id: str) -> int:
    """48 bits of a message id, the same in every process (a row outlives the process)."""
    raw = message_id.encode()  # valid records hold no lone surrogate (schemas.validation)
    return zlib.crc32(raw) | (zlib.adler32(raw) & 0xFFFF) << 32


def _filter_bits(low: int) -> tuple[int, int]:
    """The two filter bits of an id whose digest's low 32 bits are `low` (inlined in remember_turn)."""
    return low % _FILTER_BITS, (low >> 9) % _FILTER_BITS


def estimate_tokens(text: str) -> int:
    # ~4 characters per token for English; an estimate is all the trigger needs.
    return len(text) // 4 + 1


class ScopeSignals(msgspec.Struct, omit_defaults=True):
    partition: int = -1
    """The scope's partition in every co-partitioned topic; timers emit jobs there."""
    messages: int = 0
    """Turns since the last job was emitted."""
    tokens: int = 0
    corrections: int = 0
    decisions: int = 0
    memory_adds: int = 0
    entities: dict[str, int] = msgspec.field(default_factory=dict)
    last_event_at: float = 0.0
    offsets: dict[str, int] = msgspec.field(default_factory=dict)
    """Per `topic:partition`: the next offset after this scope's latest event there. Makes
    redelivered events recognisable; those of the scope's partition become the job's watermarks."""
    in_flight_job: str | None = None
    in_flight_since: float = 0.0
    waiting_requests: list[str] = msgspec.field(default_factory=list)
    """Manual trigger request ids not yet covered by an emitted job."""
    last_pass_at: float = 0.0
    last_outcome: str = ""
    consecutive_failures: int = 0
    seen: bytearray | None = None
    """What the stream worker needs to refuse what the consolidation worker would (one field, one
    base64 string in the row): a Bloom filter (ID_FILTER_BYTES) of the message ids of every turn
    folded since the scope's first turn, then its last RECENT_TURNS turns, oldest first, _ENTRY
    bytes each (see `remember_turn`). None in a row written before it existed, or of a scope with
    no turn yet: such a row never refuses evidence."""
    filter_partial: bool = False
    """The filter started after the scope's first turn (a row written before it existed)."""
    newest_turn: float = 0.0
    """The `ts` (epoch seconds) of the latest folded turn: turns up to it have been read
    (producers send a scope's turns in order; a late older turn only makes the check judge less)."""
    memory_corrections: int = 0
    """Corrections of stored memories (`correct` control events) since the last job: the next
    job's watermarks then cover the control topic, so the pass has read them."""
    steering: str = ""
    """The operator's steering text for this scope (or, in a tenant row, for the tenant)."""
    steering_by: str = ""
    steering_at: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return cast("dict[str, Any]", msgspec.to_builtins(self))

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> ScopeSignals:
        return msgspec.convert(data, cls) if data else cls()

    def encode(self) -> bytes:
        """The changelog row: a JSON object (the field names above)."""
        return _encode(self)

    @classmethod
    def decode(cls, raw: bytes | None) -> ScopeSignals:
        return _decode(raw) if raw else cls()

    def watermarks(self, inputs: tuple[str, ...]) -> dict[str, int]:
        """Per input topic, the next offset in the scope's partition: what a job must cover."""
        suffix = f":{self.partition}"
        return {
            key[: -len(suffix)]: offset
            for key, offset in self.offsets.items()
            if key.endswith(suffix) and key[: -len(suffix)] in inputs
        }

    @property
    def repeated_entities(self) -> list[str]:
        return sorted(e for e, n in self.entities.items() if n >= REPEATED)

    def repeated_count(self) -> int:
        return sum(1 for n in self.entities.values() if n >= REPEATED)

    @property
    def pending_signal(self) -> int:
        """Anything a pass could act on, so idle and schedule triggers skip quiet scopes."""
        return self.messages + self.memory_adds

    def saw_turn(self, topic: str, offset: int, content: str, at: float, found: TurnSignals) -> None:
        self.messages += 1
        self.tokens += len(content) // 4 + 1  # estimate_tokens, inlined: this runs on every turn
        correction, decision, names = found
        if correction:
            self.corrections += 1
        if decision:
            self.decisions += 1
        if names:
            entities = self.entities
            for entity in names:
                if entity in entities:
                    entities[entity] += 1
                elif len(entities) < MAX_ENTITIES:
                    entities[entity] = 1
        offsets = self.offsets
        if offset + 1 > offsets.get(topic, 0):
            offsets[topic] = offset + 1
        if at > self.last_event_at:
            self.last_event_at = at

    # --- one verdict with the consolidation worker (bounded: see the README, "one verdict")

    def remember_turn(self, message_id: str, content: str, ts: datetime) -> bool:
        """Record a turn before it is folded; False when one of the scope's last RECENT_TURNS turns
        had this message id with other content (the first stays, as in the transcript index).
        The same id with the same content again is a producer's retry and is folded as before.
        It runs on every turn: the digest (`id_digest`) is inlined."""
        raw = message_id.encode()  # valid records hold no lone surrogate (schemas.validation)
        low = _crc32(raw)
        entry = _pack(low, _adler32(raw) & 0xFFFF, _crc32(content.encode()))
        key = entry[:6]
        seen = self.seen
        if seen is None:  # the scope's first turn (or a row from before): the filter starts here
            seen = self.seen = bytearray(ID_FILTER_BYTES)
        at = seen.find(key, ID_FILTER_BYTES)
        while at > 0 and (at - ID_FILTER_BYTES) % _ENTRY:  # inside another entry's bytes: further on
            at = seen.find(key, at + 1)
        if at > 0:
            if seen[at + 6 : at + _ENTRY] != entry[6:]:
                return False
        else:
            seen += entry
            if len(seen) > _SEEN_BYTES:
                del seen[ID_FILTER_BYTES : ID_FILTER_BYTES + _ENTRY]
        bit = low % _FILTER_BITS  # _filter_bits, inlined
        seen[bit >> 3] |= 1 << (bit & 7)
        bit = (low >> 9) % _FILTER_BITS
        seen[bit >> 3] |= 1 << (bit & 7)
        self.newest_turn = ts.timestamp()
        return True

    def foreign_evidence(self, source_message_ids: tuple[str, ...], ts: datetime) -> str | None:
        """A cited message id this scope has never carried, or None. Judged only when the filter
        has seen the scope from its first turn, is not too full to say "never", and the scope's
        turns up to the memory-add's `ts` have been read (the messages an add cites come before
        it, and turns may arrive after the add on their own topic)."""
        seen = self.seen
        if seen is None or self.filter_partial or self.newest_turn < ts.timestamp():
            return None
        if int.from_bytes(seen[:ID_FILTER_BYTES]).bit_count() > ID_FILTER_FULL:
            return None
        for message_id in source_message_ids:
            first, second = _filter_bits(id_digest(message_id) & 0xFFFFFFFF)
            if not (seen[first >> 3] >> (first & 7) & 1 and seen[second >> 3] >> (second & 7) & 1):
                return message_id
        return None

    def saw_memory_add(self, topic: str, offset: int, at: float) -> None:
        self.memory_adds += 1
        self._saw(topic, offset, at)

    def saw_control(self, topic: str, offset: int) -> None:
        self.offsets[topic] = max(self.offsets.get(topic, 0), offset + 1)

    def saw_correction(self, request_id: str) -> None:
        """A correction asks for a pass as a manual trigger does (no cooldown; the job carries its id)."""
        self.memory_corrections += 1
        if request_id not in self.waiting_requests:
            self.waiting_requests.append(request_id)

    def steer(self, text: str, by: str, at: float) -> None:
        """Last write wins (the stream is read in order; a redelivery folds the same values again)."""
        self.steering, self.steering_by, self.steering_at = text, by, at

    def _saw(self, topic: str, offset: int, at: float) -> None:
        self.offsets[topic] = max(self.offsets.get(topic, 0), offset + 1)
        if at > self.last_event_at:
            self.last_event_at = at

    def job_emitted(self, job_id: str, at: float) -> None:
        self.in_flight_job = job_id
        self.in_flight_since = at
        self.consume_signal()

    def consume_signal(self) -> None:
        """The signal so far is handed to a job (or deliberately skipped): start counting afresh."""
        self.messages = self.tokens = self.memory_adds = self.corrections = self.decisions = 0
        self.memory_corrections = 0
        self.entities = {}
        self.waiting_requests = []

    def job_finished(self, job_id: str, status: str, at: float) -> bool:
        """Clear the in-flight job if this is it; returns whether it was."""
        if self.in_flight_job != job_id:
            return False
        self.in_flight_job = None
        self.last_pass_at = at
        self.last_outcome = status
        self.consecutive_failures = self.consecutive_failures + 1 if status == "failed" else 0
        return True


TENANT_ROW_PREFIX = "#tenant/"
"""Rows keyed `#tenant/<tenant>` hold a tenant's steering, one copy in every partition's table."""


def tenant_row_key(scope: str) -> str:
    return TENANT_ROW_PREFIX + scope.partition("/")[0]


_encoder = msgspec.json.Encoder()
_buffer = bytearray()


def _encode(signals: ScopeSignals) -> bytes:
    # Through a reused buffer: `bytes()` of it is allocated at the row's exact size, while
    # `Encoder.encode` returns an over-allocated block (~40 B more per row kept in memory).
    # The stream worker encodes on one thread.
    _encoder.encode_into(signals, _buffer)
    return bytes(_buffer)


_decode = msgspec.json.Decoder(ScopeSignals).decode
