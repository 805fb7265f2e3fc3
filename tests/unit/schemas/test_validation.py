"""schemas.validation: every rule, its reason, and the fast path agreeing with the pydantic contract."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from schemas import ControlEvent, ConversationTurn, MemoryAdd
from schemas.settings import Settings
from schemas.validation import (
    FastControl,
    FastTurn,
    Rejected,
    Valid,
    Validator,
    home_partition,
    kind_of_topic,
    validate_record,
)

SETTINGS = Settings(partitions=6, max_event_bytes=4_096)
SCOPE = "acme/support-bot/u1"
KEY = SCOPE.encode()
HOME = home_partition(KEY, 6)


def turn(**changes) -> dict:
    return {
        "scope": SCOPE,
        "session_id": "s1",
        "message_id": "m1",
        "role": "user",
        "content": "hello there",
        "ts": "2026-04-12T11:00:00+00:00",
        **changes,
    }


def add(**changes) -> dict:
    return {"scope": SCOPE, "memory_id": "a1", "text": "prefers aisle seats", "ts": "2026-04-12T11:00:00Z", **changes}


def control(**changes) -> dict:
    return {"scope": SCOPE, "action": "trigger", "request_id": "r1", **changes}


def check(kind, payload, key: bytes | None = KEY, partition: int = HOME, settings: Settings = SETTINGS):
    value = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return validate_record(kind, key, value, partition, settings)


def rejected(kind, payload, **kw) -> Rejected:
    result = check(kind, payload, **kw)
    assert isinstance(result, Rejected), result
    return result


def test_valid_records_of_every_kind_give_the_fast_struct_and_the_contract():
    for kind, payload, model, struct in (
        ("turns", turn(), ConversationTurn, FastTurn),
        ("memory-adds", add(source_message_ids=["m1"]), MemoryAdd, None),
        ("control", control(ts="2026-04-12T11:00:00Z"), ControlEvent, FastControl),
    ):
        result = check(kind, payload)
        assert isinstance(result, Valid) and result.valid and result.scope == SCOPE
        assert isinstance(result.event, model)
        if struct:
            assert isinstance(result.record, struct)
    assert check("turns", turn()).event.content == "hello there"


def test_size_limit():
    r = rejected("turns", turn(content="x" * 5_000))
    assert r.error_type == "too_large" and "exceeds the limit of 4096" in r.reason


def test_tombstone():
    assert validate_record("turns", KEY, None, HOME, SETTINGS).error_type == "empty_value"


def test_invalid_utf8_and_lone_surrogates():
    r = rejected("turns", json.dumps(turn()).encode().replace(b"hello", b"hel\xfflo"))
    assert r.error_type == "not_utf8" and "UTF-8" in r.reason
    r = rejected("turns", json.dumps(turn()).encode().replace(b"hello", b"hel\xed\xa0\x80lo"))  # encoded surrogate
    assert r.error_type == "not_utf8"
    r = rejected("turns", json.dumps(turn()).encode().replace(b"hello", b"hel\\ud800lo"))  # escaped, alone
    assert r.error_type == "not_utf8" and "content" in r.reason and "surrogate" in r.reason
    pair = check("turns", json.dumps(turn()).encode().replace(b"hello", b"hel\\ud83d\\ude00lo"))  # a proper pair
    assert isinstance(pair, Valid) and "\U0001f600" in pair.record.content


def test_not_json():
    for raw in (b"{not json", b"", b'{"scope": "a/b/c"} trailing', b"garbage"):
        r = rejected("turns", raw)
        assert r.error_type == "not_json" and r.reason.startswith("not valid JSON"), raw


@pytest.mark.parametrize(
    "payload, field",
    [
        ({**turn(), "schema_version": 9}, "schema_version"),
        ({**turn(), "content": 12345}, "content"),
        ({k: v for k, v in turn().items() if k != "scope"}, "scope"),
        (turn(role="wizard"), "role"),
        (turn(ts="2026-04-12T11:00:00"), "ts"),  # no time zone
        (turn(ts="yesterday"), "ts"),
        ({**turn(), "extra": 1}, "extra"),
        (turn(session_id=""), "session_id"),
        (turn(scope="acme/../globex"), "scope"),
        (turn(scope="acme/support-bot/u1\n"), "scope"),
    ],
)
def test_schema_violations_name_the_field(payload, field):
    r = rejected("turns", payload)
    assert r.error_type == "schema" and field in r.reason, r.reason


def test_unknown_control_command_and_memory_add_rules():
    r = rejected("control", control(action="self-destruct"))
    assert r.error_type == "schema" and "action" in r.reason
    r = rejected("memory-adds", add(text=""))
    assert r.error_type == "schema" and "text" in r.reason


def test_key_must_be_present_and_equal_the_scope():
    r = rejected("turns", turn(), key=None)
    assert r.error_type == "no_key" and "no key" in r.reason
    other = b"globex/support-bot/u1"
    r = rejected("turns", turn(), key=other, partition=home_partition(other, 6))
    assert r.error_type == "key_mismatch" and "disagrees with scope" in r.reason


def test_record_must_sit_in_its_scopes_home_partition():
    wrong = (HOME + 1) % 6
    r = rejected("turns", turn(), partition=wrong)
    assert r.error_type == "wrong_partition" and f"partition {wrong} is not the home partition {HOME}" in r.reason
    r = rejected("control", control(), partition=wrong)
    assert r.error_type == "wrong_partition"


def test_home_partition_is_kafkas_murmur2():
    # Reference values of Kafka's Java murmur2 (org.apache.kafka.common.utils.Utils.murmur2), made positive.
    assert [
        home_partition(k, 2**31 - 1)
        for k in (
            b"21",
            b"foobar",
            b"a-little-bit-long-string",
            b"a-little-bit-longer-string",
            b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8",
        )
    ] == [x & 0x7FFFFFFF for x in (-973932308, -790332482, -985981536, -1486304829, -58897971)]


def test_ts_must_be_within_the_sane_window():
    for ts in ("9999-12-31T00:00:00+00:00", "1800-01-01T00:00:00+00:00", "0001-01-01T00:00:00Z"):
        r = rejected("turns", turn(ts=ts))
        assert r.error_type == "ts_out_of_range" and "outside 1900-01-01" in r.reason
    narrow = Settings(
        partitions=6, event_time_min=datetime(2026, 1, 1, tzinfo=UTC), event_time_max=datetime(2026, 12, 31, tzinfo=UTC)
    )
    assert rejected("turns", turn(ts="2027-01-01T00:00:00Z"), settings=narrow).error_type == "ts_out_of_range"
    assert rejected("control", control(ts="2300-01-01T00:00:00Z")).error_type == "ts_out_of_range"
    assert isinstance(check("control", control()), Valid), "a control event may leave ts out (stamped on reading)"


def test_content_must_not_be_empty_or_whitespace_only():
    for content in ("", "   ", "\n\t ", "\u2003"):
        r = rejected("turns", turn(content=content))
        assert r.error_type == "empty_content" and "content is empty or whitespace only" in r.reason
    assert rejected("memory-adds", add(text="  ")).error_type == "empty_content"


def test_no_nul_character_anywhere():
    for payload, kind, field in (
        (turn(content="a\x00b"), "turns", "content"),
        (turn(message_id="m\x00"), "turns", "message_id"),
        (add(text="x\x00"), "memory-adds", "text"),
        (add(source_message_ids=["ok", "m\x00"]), "memory-adds", "source_message_ids"),
        (control(reason="\x00"), "control", "reason"),
    ):
        r = rejected(kind, payload)
        assert r.error_type == "nul_character" and field in r.reason, r.reason


def test_the_slow_path_accepts_what_the_contract_accepts():
    """A record with metadata always takes the slow path: the contract decides, and the fast struct
    is built from what it accepted."""
    result = check("turns", turn(metadata={"channel": "web", "score": 0.5}))
    assert isinstance(result, Valid) and result.record.ts.year == 2026 and result.event.metadata["score"] == 0.5


@pytest.mark.parametrize("ts", [1_776_000_000, 1_776_000_000.5, True, ["2026-04-12T11:00:00Z"], {"at": "now"}])
def test_ts_must_be_a_string(ts):
    """Lax pydantic would read a number as a unix time; the stream worker's decoder never did."""
    for kind, payload in (("turns", turn(ts=ts)), ("memory-adds", add(ts=ts)), ("control", control(ts=ts))):
        r = rejected(kind, payload)
        assert r.error_type == "schema" and r.reason.startswith("ts:"), r.reason


def test_deep_nesting_is_refused_before_any_parser():
    """Issue 17: 1,000 nested brackets in metadata raised RecursionError out of json.loads and
    msgspec, in both workers, on every restart."""
    for depth in (17, 1_000, 100_000):
        deep = "[" * depth + "]" * depth
        for kind, payload in (("turns", turn()), ("memory-adds", add()), ("control", control())):
            value = json.dumps(payload)[:-1] + f', "metadata": {{"x": {deep}}}}}'
            r = rejected(kind, value.encode(), settings=Settings(partitions=6, max_event_bytes=1 << 20))
            assert r.error_type == "too_deep" and "deeper than 16 levels" in r.reason, r
    assert rejected("turns", b"{" * 3_000).error_type == "too_deep"
    assert rejected("turns", b'{"a":' * 20 + b"1" + b"}" * 20).error_type == "too_deep"


def test_brackets_inside_strings_do_not_count_as_nesting():
    from schemas.validation import json_too_deep

    brackets = "[{" * 50 + '\\"' + "]}" * 50
    result = check("turns", turn(content=f'code: {brackets} and " quotes \\'))
    assert isinstance(result, Valid), result
    assert not json_too_deep(b'["' + b"[" * 40 + b'", {"a": ["\\"[[[[[[[[[[[[[[[[[[["]}]')
    assert json_too_deep(b"[" * 17) and not json_too_deep(b"[" * 16)


@pytest.mark.parametrize(
    "raw, error_type, says",
    [
        (b'{"score": NaN}', "not_json", "NaN is not a JSON number"),
        (b'{"score": Infinity}', "not_json", "Infinity is not a JSON number"),
        (b'{"score": -Infinity}', "not_json", "-Infinity is not a JSON number"),
        (b'{"score": 1e999}', "not_json", "out of range"),
        (b'{"score": -1e400}', "not_json", "out of range"),
        (b'{"score": ' + b"9" * 5_000 + b"}", "not_json", "digits"),
        (b'{"note": "a\\u0000b"}', "nul_character", "metadata 'note'"),
        (b'{"no\\u0000te": "ab"}', "nul_character", "metadata 'no"),
        (b'{"note": "\\udc00"}', "not_utf8", "metadata.note"),
        (b'{"note": {"nested": 1}}', "schema", "metadata.note"),
    ],
)
def test_metadata_numbers_must_be_finite_and_strings_free_of_nul(raw, error_type, says):
    for kind, payload in (("turns", turn()), ("memory-adds", add())):
        value = json.dumps(payload)[:-1].encode() + b', "metadata": ' + raw + b"}"
        r = rejected(kind, value, settings=Settings(partitions=6, max_event_bytes=16_384))
        assert r.error_type == error_type and says in r.reason, r


def test_an_unexpected_error_inside_the_validator_is_a_verdict_not_a_crash(monkeypatch, caplog):
    validator = Validator(SETTINGS)

    def broken(*_args):
        raise KeyError("a bug")

    monkeypatch.setattr(validator, "_placement", broken)
    r = validator.validate("turns", KEY, json.dumps(turn()).encode(), HOME)
    assert isinstance(r, Rejected) and r.error_type == "validator_error" and "KeyError" in r.reason
    assert "the validator failed" in caplog.text


@pytest.mark.parametrize(
    "payload",
    [
        turn(),
        turn(content="x" * 3_000),
        turn(role="tool"),
        turn(ts="2026-04-12 11:00:00+02:00"),
        turn(ts="2026-04-12T11:00:00.123456Z"),
        {**turn(), "schema_version": 1},
        turn(session_id="s" * 256),
        turn(session_id="s" * 257),
        turn(role=None),
        turn(content=None),
        {**turn(), "ts": None},
        turn(scope=" acme/b/c"),
        turn(scope="acme/b/c "),
        turn(content=["a"]),
        turn(ts="2026-13-01T00:00:00Z"),
        turn(ts="2026-04-12T25:00:00Z"),
        turn(scope="ACME/b/c"),
        turn(message_id=7),
    ],
)
def test_fast_path_agrees_with_the_pydantic_contract(payload):
    """Either both accept or both reject, for a spread of near-misses."""
    value = json.dumps(payload).encode()
    key = str(payload.get("scope", SCOPE)).encode()
    fast = validate_record("turns", key, value, home_partition(key, 6), SETTINGS)
    try:
        ConversationTurn.model_validate_json(value)
        contract_ok = True
    except ValueError:
        contract_ok = False
    assert fast.valid == contract_ok, (fast, payload)


def test_every_control_character_in_a_scope_is_refused_everywhere():
    for code in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), 0x2028, 0x2029]:
        ch = chr(code)
        for scope in (f"acme/support-bot/u1{ch}", f"{ch}acme/support-bot/u1", f"acme/sup{ch}port-bot/u1"):
            key = scope.encode()
            r = validate_record("turns", key, json.dumps(turn(scope=scope)).encode(), home_partition(key, 6), SETTINGS)
            assert isinstance(r, Rejected) and r.error_type == "schema", (code, r)


def test_kind_of_topic_and_validator_reuse():
    topics = SETTINGS.topics
    assert [kind_of_topic(SETTINGS, t) for t in (topics.turns, topics.memory_adds, topics.control, topics.jobs)] == [
        "turns",
        "memory-adds",
        "control",
        None,
    ]
    validator = Validator(SETTINGS)
    assert validator.home(KEY) == HOME and validator.home(KEY) == HOME


def test_parse_scope_refuses_every_control_character_and_a_trailing_newline():
    from schemas.scope import ScopeError, parse_scope

    assert parse_scope("acme/support-bot/u1") == ("acme", "support-bot", "u1")
    for code in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]:
        ch = chr(code)
        for scope in (f"acme/support-bot/u1{ch}", f"{ch}acme/support-bot/u1", f"acme/support{ch}/u1", f"acme{ch}/b/c"):
            with pytest.raises(ScopeError):
                parse_scope(scope)


def test_metadata_is_left_to_the_contract():
    """The fast structs carry an optional `metadata` object, but whether a record may have one
    (and how big) is the pydantic contract's call: with it, the slow path decides."""
    with_metadata = check("turns", {**turn(), "metadata": {"channel": "web"}})
    has_field = "metadata" in ConversationTurn.model_fields
    assert with_metadata.valid == has_field, with_metadata
    if not has_field:
        assert "metadata" in with_metadata.reason
