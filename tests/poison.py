"""The poison corpus of issues 10 and 17: input records that once crashed, stalled or fooled a
worker. Each is (name, topic kind, key, value bytes); the scope is the record's own unless said.
Every one of them must be dead-lettered by the stream worker and never indexed."""

from __future__ import annotations

import json

SCOPE = "acme/support-bot/u1"
OTHER = "globex/support-bot/u1"


def _turn(
    index: int, content: str = "hello", ts: str = "2026-05-01T10:00:00+00:00", scope: str = SCOPE, **extra: object
) -> dict:
    return {
        "scope": scope,
        "session_id": "poison",
        "message_id": f"poison#{index}",
        "role": "user",
        "content": content,
        "ts": ts,
        **extra,
    }


def _bytes(data: object) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode()


def _with_metadata(index: int, raw: bytes) -> bytes:
    """A turn whose metadata is `raw`, JSON text json.dumps would never write."""
    return _bytes(_turn(index, "my seat is 12C"))[:-1] + b', "metadata": ' + raw + b"}"


def poison_records(max_event_bytes: int) -> list[tuple[str, str, bytes | None, bytes | None]]:
    key = SCOPE.encode()
    add = {"scope": SCOPE, "memory_id": "poison-add", "text": "Ava flies tomorrow", "ts": "9999-12-31T23:00:00+00:00"}
    return [
        ("not-json", "turns", key, b"{not json"),
        ("wrong-types", "turns", key, _bytes(_turn(1, content=42))),
        ("unknown-version", "turns", key, _bytes(_turn(2, schema_version=99))),
        ("oversize", "turns", key, _bytes(_turn(3, content="x" * (max_event_bytes + 10)))),
        ("invalid-utf8", "turns", key, b'{"scope": "' + SCOPE.encode() + b'", "content": "\xff\xfe"}'),
        ("lone-surrogate", "turns", key, json.dumps(_turn(4, content="\ud800 hi")).encode()),
        ("unicode-100k", "turns", key, _bytes(_turn(5, content="\u00e9\u4e2d" * 50_000))),
        ("far-future", "turns", key, _bytes(_turn(6, "I fly to Oslo tomorrow", ts="9999-12-31T23:00:00+00:00"))),
        ("far-past", "turns", key, _bytes(_turn(7, "I flew yesterday", ts="0001-01-01T00:30:00+00:00"))),
        ("empty-content", "turns", key, _bytes(_turn(8, content="   "))),
        ("nul-byte", "turns", key, _bytes(_turn(9, content="my colour is\u0000 purple"))),
        ("key-not-scope", "turns", key, _bytes(_turn(10, "my favourite colour is purple", scope=OTHER))),
        ("no-key", "turns", None, _bytes(_turn(11))),
        ("tombstone", "turns", key, None),
        ("far-future-add", "memory-adds", key, _bytes(add)),
        ("empty-add", "memory-adds", key, _bytes({**add, "text": " ", "ts": "2026-05-01T10:00:00+00:00"})),
        # issue 17: this one took both workers down (RecursionError), again on every restart
        ("nested-metadata", "turns", key, _with_metadata(12, b'{"x": ' + b"[" * 1_000 + b"]" * 1_000 + b"}")),
        ("nan-metadata", "turns", key, _with_metadata(13, b'{"score": NaN}')),
        ("infinite-metadata", "turns", key, _with_metadata(14, b'{"score": 1e999}')),
        ("huge-integer-metadata", "turns", key, _with_metadata(15, b'{"score": ' + b"7" * 5_000 + b"}")),
        ("nul-in-metadata", "turns", key, _with_metadata(16, b'{"channel": "web\\u0000"}')),
        ("integer-ts", "turns", key, _bytes({**_turn(17, "my seat is 14A"), "ts": 1_776_000_000})),
    ]
