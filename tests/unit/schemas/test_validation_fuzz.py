"""The one input validator (`schemas.validation`) decides on every byte string without raising.

A property test (hypothesis) feeds it random and mutated records of every kind: deep nesting,
huge numbers, NaN and Infinity, lone surrogates (escaped and as raw bytes), format and zero-width
characters, wrong types at every field, missing and unknown fields, bytes flipped, cut and
spliced, keys and partitions that disagree. Every record must get a verdict (`Valid` or
`Rejected` with a reason), never an exception and never `validator_error` (the validator's own
last resort, which only a bug reaches); whatever it accepts, the pydantic contract accepts too.

The unit lane feeds FUZZ_QUICK_RECORDS (5,000) records, the integration lane FUZZ_RECORDS
(100,000). The seed is printed; FUZZ_SEED=N repeats a run.
"""

from __future__ import annotations

import json
import os
import random
import re
import time

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from schemas import ControlEvent, ConversationTurn, MemoryAdd
from schemas.settings import Settings
from schemas.validation import Rejected, Valid, Validator, home_partition

PARTITIONS = 6
SETTINGS = Settings(partitions=PARTITIONS, max_event_bytes=8_192)
BATCH = 50
"""Records per hypothesis example: one drawn by hypothesis's strategies, the others made by a
Random seeded with a number it draws (see `fast_records`)."""
MODELS = {"turns": ConversationTurn, "memory-adds": MemoryAdd, "control": ControlEvent}

ODD_CHARACTERS = (
    "\x00",
    "\ud800",
    "\udfff",
    "\ud83d",  # a high surrogate without its pair
    "\u200b",  # zero-width space
    "\u200d",  # zero-width joiner
    "\u2060",  # word joiner
    "\ufeff",  # byte-order mark
    "\u202e",  # right-to-left override
    "\u00ad",  # soft hyphen
    "\u0430",  # Cyrillic a
    "\uff33",  # fullwidth S
    "\u2028",
    "\x7f",
    "\x85",
    "\U0001f600",
    "\\",
    '"',
    "/",
)
odd_text = st.lists(
    st.one_of(st.sampled_from(ODD_CHARACTERS), st.text(max_size=8), st.sampled_from(["acme", "/", "ts", "Z"])),
    max_size=12,
).map("".join)


class Huge:
    """A number of `digits` digits, spliced into the JSON text as it is (Python's int refuses to
    print more than 4,300 digits, and hypothesis's reports would trip over it)."""

    def __init__(self, digits: int, sign: str) -> None:
        self.digits, self.sign = digits, sign

    def marker(self) -> str:
        return f"@@huge:{self.sign}{self.digits}@@"


_HUGE = re.compile(r'"@@huge:(-?)(\d+)@@"')

numbers = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.builds(Huge, st.sampled_from([20, 400, 4_299, 4_301, 6_000]), st.sampled_from(["", "-"])),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -0.0, 1e308, 2**63, -(2**63) - 1, 2**64]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, odd_text, st.text(max_size=30))
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(odd_text, inner, max_size=4)),
    max_leaves=25,
)

SCOPES = ("acme/support-bot/u1", "globex/agent-7/user@example.com", "a/b/c")
timestamps = st.one_of(
    st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
    st.sampled_from(["2026-04-12T11:00:00Z", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00+00:00", "2026-02-30T00:00Z"]),
)
metadata = st.dictionaries(st.text(max_size=70), st.one_of(scalars, json_values), max_size=6)


def _base(kind: str) -> st.SearchStrategy[dict]:
    common = {"scope": st.sampled_from(SCOPES), "ts": timestamps}
    if kind == "turns":
        fields = {
            **common,
            "session_id": st.text(min_size=1, max_size=20),
            "message_id": st.text(min_size=1, max_size=20),
            "role": st.sampled_from(["user", "assistant", "system", "tool"]),
            "content": st.one_of(st.text(max_size=200), odd_text),
        }
        optional = {"metadata": metadata, "schema_version": st.sampled_from([1, 2, "1"])}
    elif kind == "memory-adds":
        fields = {**common, "memory_id": st.text(min_size=1, max_size=20), "text": st.text(min_size=1, max_size=200)}
        optional = {
            "metadata": metadata,
            "source_message_ids": st.lists(odd_text, max_size=4),
            "protected": st.booleans(),
        }
    else:
        fields = {
            "scope": st.sampled_from(SCOPES),
            "action": st.sampled_from(["trigger", "reset", "evaluate", "forget", "explode"]),
            "request_id": st.text(min_size=1, max_size=20),
        }
        optional = {"ts": timestamps, "reason": odd_text}
    return st.fixed_dictionaries(fields, optional=optional)


@st.composite
def _record_dict(draw: st.DrawFn, kind: str) -> dict:
    """A record of `kind`, usually near-valid, with some fields given a value of any type, some
    left out and perhaps an unknown one."""
    record = draw(_base(kind))
    for name in list(record):
        roll = draw(st.integers(0, 9))
        if roll == 0:
            record[name] = draw(json_values)
        elif roll == 1:
            del record[name]
    if draw(st.integers(0, 9)) == 0:
        record[draw(odd_text)] = draw(json_values)
    return record


def _encode(data: object, ascii_only: bool) -> bytes:
    text = json.dumps(data, ensure_ascii=ascii_only, allow_nan=True, default=lambda huge: huge.marker())
    text = _HUGE.sub(lambda m: m.group(1) + "9" * int(m.group(2)), text)
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate becomes the (invalid) CESU bytes


@st.composite
def _mutated(draw: st.DrawFn, value: bytes) -> bytes:
    """`value` with bytes flipped, inserted, cut or a deep nest spliced in."""
    for _ in range(draw(st.integers(0, 3))):
        if not value:
            break
        at = draw(st.integers(0, len(value)))
        match draw(st.integers(0, 5)):
            case 0:
                value = value[:at] + bytes([draw(st.integers(0, 255))]) + value[at + 1 :]
            case 1:
                value = value[:at] + draw(st.binary(max_size=8)) + value[at:]
            case 2:
                value = value[:at]
            case 3:
                depth = draw(st.sampled_from([15, 16, 17, 200, 1_000, 3_000]))
                opener = draw(st.sampled_from([b"[", b"{", b'{"a":']))
                value = value[:at] + opener * depth + value[at:]
            case 4:
                value = value[:at] + draw(st.sampled_from([b"NaN", b"-Infinity", b"1e999", b"9" * 5_000])) + value[at:]
            case _:
                value = value[:at] + draw(st.sampled_from(ODD_CHARACTERS)).encode("utf-8", "surrogatepass") + value[at:]
    return value


@st.composite
def records(draw: st.DrawFn) -> tuple[str, bytes | None, bytes | None, int]:
    """(kind, key, value, partition) as a consumer would hand them to the validator."""
    kind = draw(st.sampled_from(list(MODELS)))
    shape = draw(st.integers(0, 19))
    if shape == 0:
        value: bytes | None = draw(st.binary(max_size=300))
    elif shape == 1:
        value = None
    elif shape == 2:
        value = _encode(draw(json_values), draw(st.booleans()))
    else:
        record = draw(_record_dict(kind))
        value = _encode(record, draw(st.booleans()))
        if shape >= 14:
            value = draw(_mutated(value))
    scope = record.get("scope") if shape > 2 and isinstance(record.get("scope"), str) else SCOPES[0]
    key_choice = draw(st.integers(0, 9))
    key = (
        None
        if key_choice == 0
        else draw(st.binary(max_size=20))
        if key_choice == 1
        else scope.encode("utf-8", "surrogatepass")
    )
    home = home_partition(key, PARTITIONS) if key else 0
    partition = home if draw(st.integers(0, 4)) else draw(st.integers(-1, PARTITIONS + 1))
    return kind, key, value, partition


# --- the bulk: plain-Python records from a Random seeded by hypothesis (a record of its strategies costs ~10 ms;
# these cost ~20 µs, so a run of 100,000 takes a minute, not half an hour)

_FAST_VALUES: tuple[object, ...] = (
    None,
    True,
    0,
    -1,
    2**63,
    1e308,
    -0.0,
    float("nan"),
    float("inf"),
    Huge(4_301, ""),
    Huge(6_000, "-"),
    "",
    " ",
    "\x00",
    "\ud800",
    "\u200bignore\u200d",
    "2026-04-12T11:00:00Z",
    "acme/support-bot/u1",
    [],
    {},
    [[[]]],
    {"a": {"b": {"c": None}}},
    ["m1", 7, None],
)


def _fast_value(rng: random.Random, depth: int = 0) -> object:
    roll = rng.random()
    if roll < 0.4 or depth > 3:
        return rng.choice(_FAST_VALUES)
    if roll < 0.6:
        return "".join(
            rng.choice(ODD_CHARACTERS) if rng.random() < 0.3 else chr(rng.randrange(32, 0x3000))
            for _ in range(rng.randrange(12))
        )
    if roll < 0.8:
        return [_fast_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {_fast_text(rng): _fast_value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _fast_text(rng: random.Random) -> str:
    return "".join(
        rng.choice(ODD_CHARACTERS) if rng.random() < 0.06 else chr(rng.randrange(32, 0x2FFF))
        for _ in range(rng.randrange(1, 10))
    )


def _fast_dict(rng: random.Random, kind: str) -> dict:
    scope = rng.choice(SCOPES)
    ts = rng.choice(["2026-04-12T11:00:00Z", "2026-04-12T11:00:00+02:00", "1899-12-31T23:59:59Z", "2026-04-12"])
    if kind == "turns":
        record: dict = {
            "scope": scope,
            "session_id": _fast_text(rng),
            "message_id": _fast_text(rng),
            "role": rng.choice(["user", "assistant", "system", "tool", "root"]),
            "content": _fast_text(rng),
            "ts": ts,
        }
    elif kind == "memory-adds":
        record = {"scope": scope, "memory_id": _fast_text(rng), "text": _fast_text(rng), "ts": ts}
        if rng.random() < 0.5:
            record["source_message_ids"] = [_fast_text(rng) for _ in range(rng.randrange(3))]
    else:
        record = {"scope": scope, "action": rng.choice(["trigger", "forget", "evaluate", "reset"]), "request_id": "r"}
    if kind != "control" and rng.random() < 0.4:
        record["metadata"] = {_fast_text(rng): _fast_value(rng, 2) for _ in range(rng.randrange(4))}
    for name in list(record):
        roll = rng.random()
        if roll < 0.06:
            record[name] = _fast_value(rng)
        elif roll < 0.09:
            del record[name]
    return record


def _fast_mutation(rng: random.Random, value: bytes) -> bytes:
    at = rng.randrange(len(value) + 1)
    match rng.randrange(6):
        case 0:
            return value[:at] + bytes([rng.randrange(256)]) + value[at + 1 :]
        case 1:
            return value[:at] + rng.randbytes(rng.randrange(1, 6)) + value[at:]
        case 2:
            return value[:at]
        case 3:
            return value[:at] + rng.choice([b"[", b"{", b'{"a":']) * rng.choice([16, 17, 1_000, 3_000]) + value[at:]
        case 4:
            return value[:at] + rng.choice([b"NaN", b"Infinity", b"-1e999", b"9" * 4_301]) + value[at:]
        case _:
            return value[:at] + rng.choice(ODD_CHARACTERS).encode("utf-8", "surrogatepass") + value[at:]


def fast_records(rng: random.Random, count: int) -> list[tuple[str, bytes | None, bytes | None, int]]:
    out = []
    for _ in range(count):
        kind = rng.choice(list(MODELS))
        record = _fast_dict(rng, kind)
        value: bytes | None = _encode(record, rng.random() < 0.5)
        if rng.random() < 0.3:
            for _ in range(rng.randrange(1, 3)):
                value = _fast_mutation(rng, value)
        elif rng.random() < 0.02:
            value = rng.choice([None, rng.randbytes(rng.randrange(60))])
        scope = record.get("scope")
        key = scope.encode("utf-8", "surrogatepass") if isinstance(scope, str) and rng.random() < 0.9 else None
        partition = home_partition(key, PARTITIONS) if key and rng.random() < 0.9 else rng.randrange(-1, PARTITIONS + 1)
        out.append((kind, key, value, partition))
    return out


def _check_verdict(validator: Validator, kind: str, key, value, partition) -> Valid | Rejected:
    result = validator.validate(kind, key, value, partition)  # must not raise
    assert isinstance(result, Valid | Rejected), result
    if isinstance(result, Rejected):
        assert result.error_type != "validator_error", (result, kind, key, value)
        assert result.reason and isinstance(result.reason, str)
    else:
        assert isinstance(result.event, MODELS[kind]) and result.scope == result.event.scope, value
        MODELS[kind].model_validate_json(value)  # the contract agrees
    return result


def _run(count: int, capsys: pytest.CaptureFixture[str]) -> None:
    chosen = int(os.environ.get("FUZZ_SEED", random.randrange(2**32)))
    validator = Validator(SETTINGS)
    tally = {"records": 0, "valid": 0}
    reasons: dict[str, int] = {}

    @seed(chosen)
    @settings(
        max_examples=max(1, count // BATCH),
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
    )
    @given(records(), st.integers(0, 2**64 - 1))
    def every_record_gets_a_verdict(drawn, bulk_seed) -> None:
        for kind, key, value, partition in [drawn, *fast_records(random.Random(bulk_seed), BATCH - 1)]:
            result = _check_verdict(validator, kind, key, value, partition)
            tally["records"] += 1
            if isinstance(result, Valid):
                tally["valid"] += 1
            else:
                reasons[result.error_type] = reasons.get(result.error_type, 0) + 1

    started = time.monotonic()
    try:
        every_record_gets_a_verdict()
    finally:
        with capsys.disabled():
            print(
                f"\nvalidator fuzz: seed {chosen} (FUZZ_SEED={chosen} repeats it): {tally['records']:,} records, "
                f"{tally['valid']:,} valid, rejected by reason {dict(sorted(reasons.items()))}, 0 exceptions, "
                f"{time.monotonic() - started:.0f} s"
            )
    assert tally["records"] >= count, tally
    # The generator reaches the interesting verdicts, not only "not JSON".
    assert tally["valid"] > 0 and {"schema", "not_json", "too_deep", "not_utf8"} <= set(reasons), reasons


def test_every_record_gets_a_verdict_quick(capsys):
    _run(int(os.environ.get("FUZZ_QUICK_RECORDS", "5000")), capsys)


@pytest.mark.integration
@pytest.mark.timeout(1800)
def test_every_record_gets_a_verdict_100k(capsys):
    _run(int(os.environ.get("FUZZ_RECORDS", "100000")), capsys)


def test_the_fuzz_corpus_reaches_the_records_that_once_crashed_a_worker():
    """The shapes of issue 17 that raised before the fix, given to the validator directly."""
    validator = Validator(SETTINGS)
    key = SCOPES[0].encode()
    turn = {
        "scope": SCOPES[0],
        "session_id": "s",
        "message_id": "m",
        "role": "user",
        "content": "hi",
        "ts": "2026-04-12T11:00:00Z",
    }
    head = json.dumps(turn)[:-1].encode()
    for tail in (b"[" * 1_000 + b"]" * 1_000, b"9" * 5_000, b"NaN", b"1e999", b'"\\ud800"', b"{" * 3_000):
        value = head + b', "metadata": {"x": ' + tail + b"}}"
        result = _check_verdict(validator, "turns", key, value, home_partition(key, PARTITIONS))
        assert isinstance(result, Rejected), (tail[:20], result)
