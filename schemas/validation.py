"""The one place that decides whether an input record (a turn, a memory-add, a control command) is
valid, and if not, says why in words a person can act on.

Both workers call it: the stream worker dead-letters what it rejects, and the consolidation worker
skips the same records, so nothing the stream side refused is ever indexed.

    result = validate_record("turns", msg.key(), msg.value(), msg.partition(), settings)
    if isinstance(result, Rejected): ...   # result.reason, result.error_type
    else: result.event                     # the pydantic contract (ConversationTurn, ...)

Checks, in this order (the first that fails is the reason): size ≤ `max_event_bytes`; JSON
nesting at most `MAX_JSON_DEPTH` levels (checked on the bytes before any recursive parser runs: a
2 KB record of 1,000 nested brackets once raised RecursionError out of both workers; the fast
path's structs are typed all the way down, so msgspec refuses a nested value before recursing
and the record goes to the slow path, which checks the nesting first); UTF-8 with no lone
surrogate; JSON (NaN, Infinity and numbers that overflow are not JSON); the pydantic contract
(schema version, types, lengths, the scope syntax, control commands, `ts` a string); a key, equal
to the payload's scope; the record sits in the scope's home partition (murmur2(key) % partitions,
as Kafka's default partitioner and `make_producer` place it); `ts` within `event_time_min` ..
`event_time_max`; content (text) not empty or whitespace only; no NUL character in any string
(metadata keys and values included).

It never raises: every byte string gets a verdict (`tests/unit/schemas/test_validation_fuzz.py` feeds it
random and mutated records). Should a record still find a bug here, it is rejected as
`validator_error`, with the exception named and logged, so it is dead-lettered rather than taking
a worker down; the fuzz test fails on any such verdict.

Fast path: a msgspec Struct per contract decodes a record in about a microsecond. It only ever
*accepts* what the pydantic contract also accepts (it is at least as strict); whenever it refuses,
or a record carries a field it does not check itself (`metadata`), the pydantic contract decides
and words the reason, so the answers and reasons are the same on both paths.
"""

from __future__ import annotations

import json
import logging
import math
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal, get_args

import msgspec
from confluent_kafka import murmur2 as _murmur2
from pydantic import BaseModel, ValidationError

from schemas.errors import describe_validation_error
from schemas.events import ControlEvent, ConversationTurn, MemoryAdd
from schemas.scope import SCOPE_RE
from schemas.settings import Settings

log = logging.getLogger(__name__)

Kind = Literal["turns", "memory-adds", "control"]
ErrorType = Literal[
    "too_large",
    "not_utf8",
    "not_json",
    "schema",
    "no_key",
    "key_mismatch",
    "wrong_partition",
    "ts_out_of_range",
    "empty_content",
    "nul_character",
    "empty_value",
    "too_deep",
    "validator_error",
    "duplicate_message_id",
    "foreign_evidence",
]
"""Every class of reason a record is refused for (a metric label: exported at 0 from the start).
`validator_error` is a bug in this module meeting its record (see the module docstring); the last two
are the stream worker's one verdict on a scope's history (streams/processor.py)."""
ERROR_TYPES: tuple[ErrorType, ...] = get_args(ErrorType)
InputModel = ConversationTurn | MemoryAdd | ControlEvent

__all__ = [
    "ERROR_TYPES",
    "ErrorType",
    "FastControl",
    "FastMemoryAdd",
    "FastTurn",
    "Kind",
    "Rejected",
    "Valid",
    "Validator",
    "MAX_JSON_DEPTH",
    "home_partition",
    "json_too_deep",
    "kind_of_topic",
    "validate_record",
    "validator_for",
]


# --------------------------------------------------------------------------- the key's home partition


def home_partition(key: bytes, partitions: int) -> int:
    """The partition Kafka's default partitioner gives a key: murmur2 (Java's, as librdkafka's
    `murmur2_random`, aiokafka and Faust compute it), made positive, modulo the partition count.
    librdkafka's own (confluent-kafka's `murmur2`, in C: ~0.05 µs against ~1.6 µs in Python)."""
    return _murmur2(key, partitions)


# --------------------------------------------------------------------------- nesting, before any parser

MAX_JSON_DEPTH = 16
"""Deepest nesting of arrays and objects a record may have. The contracts need 2 (the event, its
`metadata` or `source_message_ids`); anything deeper is refused before a parser recurses into it."""
_STRUCTURE = re.compile(rb'"(?:[^"\\]++|\\.)*+"?|[\[\]{}]')
"""A JSON string (skipped whole, possessive so it never backtracks) or one bracket."""
_OPENERS = frozenset(b"[{")


def json_too_deep(value: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the JSON text nests arrays/objects deeper than `limit` (brackets inside strings do
    not count). Text with at most `limit` opening brackets cannot, which two `bytes.count` calls
    tell for almost every record; only the others are scanned."""
    if value.count(b"[") + value.count(b"{") <= limit:
        return False
    depth = 0
    for match in _STRUCTURE.finditer(value):
        first = match.group()[0]
        if first in _OPENERS:
            depth += 1
            if depth > limit:
                return True
        elif first != 0x22:  # a closing bracket (0x22 is the quote of a string)
            depth -= 1
    return False


# --------------------------------------------------------------------------- fast-path structs

_AwareTs = Annotated[datetime, msgspec.Meta(tz=True)]
_Id = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
_Flat = dict[str, str | int | float | bool | None]
"""A flat object. Never `Any`: msgspec then refuses a nested value at once, where `Any` would
recurse into it (1,000 nested brackets raise RecursionError); the slow path judges such records."""
_Metadata = _Flat | None


class FastTurn(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """ConversationTurn as msgspec decodes it (same fields, same limits)."""

    scope: str
    session_id: _Id
    message_id: _Id
    role: Literal["user", "assistant", "system", "tool"]
    content: Annotated[str, msgspec.Meta(max_length=200_000)]
    ts: _AwareTs
    schema_version: Literal[1] = 1
    metadata: _Metadata = None


class FastMemoryAdd(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    scope: str
    memory_id: _Id
    text: Annotated[str, msgspec.Meta(min_length=1, max_length=20_000)]
    ts: _AwareTs
    schema_version: Literal[1] = 1
    source_message_ids: tuple[str, ...] = ()
    protected: bool = False
    metadata: _Metadata = None


class FastControl(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    scope: str
    action: Literal["trigger", "reset", "evaluate", "forget", "correct", "steer"]
    request_id: Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
    ts: _AwareTs | None = None
    """None when the producer left it out (the pydantic contract then stamps the time of reading)."""
    reason: Annotated[str, msgspec.Meta(max_length=1_000)] = ""
    schema_version: Literal[1] = 1
    correction: _Flat | None = None
    """Not checked here: a `correct` or `steer` event always takes the pydantic contract's path."""
    steering: _Flat | None = None


FastEvent = FastTurn | FastMemoryAdd | FastControl


@dataclass(frozen=True, slots=True)
class _Contract:
    kind: Kind
    model: type[InputModel]
    fast: type[FastEvent]
    text_field: str | None
    """The field that must not be empty or whitespace only (None: no such field)."""
    strings: tuple[str, ...]
    """String fields searched for NUL characters."""


def _contract(kind: Kind, model: type[InputModel], fast: type[FastEvent], text_field: str | None) -> _Contract:
    strings = tuple(name for name, info in model.model_fields.items() if info.annotation is str)
    return _Contract(kind, model, fast, text_field, strings)


CONTRACTS: dict[Kind, _Contract] = {
    "turns": _contract("turns", ConversationTurn, FastTurn, "content"),
    "memory-adds": _contract("memory-adds", MemoryAdd, FastMemoryAdd, "text"),
    "control": _contract("control", ControlEvent, FastControl, None),
}


# --------------------------------------------------------------------------- results


class Valid:
    """An accepted record. `record` is the fast struct (what the stream worker folds); `event` is
    the pydantic contract, built on first use from the same bytes."""

    __slots__ = ("kind", "record", "_value", "_event")
    valid: ClassVar[Literal[True]] = True

    def __init__(self, kind: Kind, record: FastEvent, value: bytes, event: InputModel | None = None) -> None:
        self.kind, self.record, self._value, self._event = kind, record, value, event

    @property
    def scope(self) -> str:
        return self.record.scope

    @property
    def event(self) -> InputModel:
        if self._event is None:
            self._event = CONTRACTS[self.kind].model.model_validate_json(self._value)
        return self._event

    def __repr__(self) -> str:
        return f"Valid({self.record!r})"


@dataclass(frozen=True, slots=True)
class Rejected:
    reason: str
    """Human-readable: what is wrong, naming the field or the rule."""
    error_type: ErrorType
    """A short class of the reason (a metric label), one of `ERROR_TYPES`."""
    valid: ClassVar[Literal[False]] = False


# --------------------------------------------------------------------------- the validator

_NUL_ESCAPE = b"\\u0000"
_NESTED_ACTIONS = frozenset({"correct", "steer"})
_SCOPE_FULLMATCH = SCOPE_RE.fullmatch


class Validator:
    """`validate_record` for one Settings: the limits and the partition count read once."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.partitions = settings.partitions
        self.max_bytes = settings.max_event_bytes
        self.ts_min, self.ts_max = settings.event_time_min, settings.event_time_max
        self._decoders = {kind: msgspec.json.Decoder(c.fast) for kind, c in CONTRACTS.items()}

    def home(self, key: bytes) -> int:
        return home_partition(key, self.partitions)

    def validate(self, kind: Kind, key: bytes | None, value: bytes | None, partition: int) -> Valid | Rejected:
        # The fast decoder's structs are typed all the way down (no `Any`), so msgspec refuses a
        # nested value before it recurses; everything it refuses goes to `_slow`, which checks the
        # nesting before any parser runs.
        try:
            if value is None:
                return Rejected("empty value (a tombstone) on an event topic", "empty_value")
            if len(value) > self.max_bytes:
                return Rejected(f"payload of {len(value)} bytes exceeds the limit of {self.max_bytes}", "too_large")
            contract = CONTRACTS[kind]
            try:
                record = self._decoders[kind].decode(value)
            except (msgspec.DecodeError, msgspec.ValidationError):
                return self._slow(contract, key, value, partition)
            if not _SCOPE_FULLMATCH(record.scope) or getattr(record, "metadata", None) is not None:
                return self._slow(contract, key, value, partition)
            if isinstance(record, FastControl) and (record.ts is None or record.action in _NESTED_ACTIONS):
                return self._slow(contract, key, value, partition)  # the contract's default ts, nested payloads
            problem = self._placement(record.scope, key, partition) or self._content(contract, record, value)
            return problem or Valid(kind, record, value)
        except Exception as err:  # invariant 8: one record must never stop a worker; see the docstring
            log.exception("the validator failed on a %s record (key %r); rejected as validator_error", kind, key)
            return Rejected(f"the validator failed on this record: {type(err).__name__}: {err}", "validator_error")

    # --- checks on a decoded record (shared by both paths)

    def _placement(self, scope: str, key: bytes | None, partition: int) -> Rejected | None:
        if key is None:
            return Rejected(f"no key: events must be keyed by their scope ({scope!r})", "no_key")
        if key != scope.encode():
            return Rejected(f"key {key.decode('utf-8', 'replace')!r} disagrees with scope {scope!r}", "key_mismatch")
        home = home_partition(key, self.partitions)
        if partition != home:
            return Rejected(
                f"partition {partition} is not the home partition {home} of scope {scope!r} "
                f"(murmur2(key) % {self.partitions}): the producer does not partition by key",
                "wrong_partition",
            )
        return None

    def _content(self, contract: _Contract, record: Any, value: bytes) -> Rejected | None:
        ts = record.ts
        if ts is not None and not (self.ts_min <= ts <= self.ts_max):
            return Rejected(
                f"ts {ts.isoformat()} is outside {self.ts_min.isoformat()} .. {self.ts_max.isoformat()}",
                "ts_out_of_range",
            )
        if contract.text_field is not None:
            text = getattr(record, contract.text_field)
            if not text or text.isspace():  # `not text.strip()` without copying the text
                return Rejected(f"{contract.text_field} is empty or whitespace only", "empty_content")
        if _NUL_ESCAPE in value:
            for name in contract.strings:
                if "\x00" in getattr(record, name):
                    return Rejected(f"{name} contains a NUL character (\\u0000)", "nul_character")
            if any("\x00" in s for s in getattr(record, "source_message_ids", ())):
                return Rejected("source_message_ids contains a NUL character (\\u0000)", "nul_character")
            for name, item in (getattr(record, "metadata", None) or {}).items():
                if "\x00" in name or (isinstance(item, str) and "\x00" in item):
                    return Rejected(f"metadata {name!r} contains a NUL character (\\u0000)", "nul_character")
            for name in ("correction", "steering"):
                nested = getattr(record, name, None)
                fields = nested.model_dump() if isinstance(nested, BaseModel) else nested or {}
                for field, text in fields.items():
                    if isinstance(text, str) and "\x00" in text:
                        return Rejected(f"{name}.{field} contains a NUL character (\\u0000)", "nul_character")
        return None

    # --- the slow path: pydantic decides and words the reason

    def _slow(self, contract: _Contract, key: bytes | None, value: bytes, partition: int) -> Valid | Rejected:
        if json_too_deep(value):
            return Rejected(f"JSON nested deeper than {MAX_JSON_DEPTH} levels of arrays and objects", "too_deep")
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError as err:
            return Rejected(f"not valid UTF-8: {err}", "not_utf8")
        try:
            data = json.loads(text, parse_constant=_not_a_json_number, parse_float=_finite)
        except ValueError as err:  # JSONDecodeError, NaN/Infinity, an integer of over 4,300 digits
            return Rejected(f"not valid JSON: {err}", "not_json")
        surrogate = _lone_surrogate(data)
        if surrogate is not None:
            return Rejected(f"{surrogate} contains a lone surrogate (not encodable as UTF-8)", "not_utf8")
        try:
            event = contract.model.model_validate_json(value)
        except ValidationError as err:
            return Rejected(describe_validation_error(err), "schema")
        problem = self._placement(event.scope, key, partition) or self._content(contract, event, value)
        if problem:
            return problem
        fields = event.model_dump(include=set(contract.fast.__struct_fields__))
        return Valid(
            contract.kind, msgspec.convert(fields, contract.fast, from_attributes=False, strict=False), value, event
        )


def _not_a_json_number(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON number")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"number {text[:40]} is out of range (it would be read as infinite)")
    return number


def _lone_surrogate(data: Any, path: str = "") -> str | None:
    """The path of the first string (or object key) holding a lone UTF-16 surrogate, else None."""
    if isinstance(data, str):
        return (path or "(value)") if any("\ud800" <= ch <= "\udfff" for ch in data) else None
    if isinstance(data, list):
        for i, item in enumerate(data):
            found = _lone_surrogate(item, f"{path}.{i}" if path else str(i))
            if found:
                return found
    elif isinstance(data, dict):
        for name, item in data.items():
            found = _lone_surrogate(name, f"{path}.(key)" if path else "(key)") or _lone_surrogate(
                item, f"{path}.{name}" if path else str(name)
            )
            if found:
                return found
    return None


_VALIDATORS: dict[int, Validator] = {}


def validator_for(settings: Settings) -> Validator:
    """The Validator of this Settings object (made once; a process has one or a few Settings)."""
    validator = _VALIDATORS.get(id(settings))
    if validator is None or validator.settings is not settings:
        if len(_VALIDATORS) > 64:
            _VALIDATORS.clear()
        validator = _VALIDATORS[id(settings)] = Validator(settings)
    return validator


def validate_record(
    kind: Kind, key: bytes | None, value: bytes | None, partition: int, settings: Settings
) -> Valid | Rejected:
    """Whether one input record is valid: `Valid` (with `.event`, the pydantic contract, and
    `.record`, the fast struct) or `Rejected` (with `.reason` and `.error_type`)."""
    return validator_for(settings).validate(kind, key, value, partition)


def kind_of_topic(settings: Settings, topic: str) -> Kind | None:
    """Which input a topic carries under these settings (None: not an input topic)."""
    topics = settings.topics
    kinds: dict[str, Kind] = {topics.turns: "turns", topics.memory_adds: "memory-adds", topics.control: "control"}
    return kinds.get(topic)
