"""`MemoryFilter`: the store query (payload conditions, on every store backend: the embedded
engine, qdrant-client's local mode, a server when QDRANT_URL is set) and the in-hand match select
the same records, for every filter tried over records that differ in every field a filter reads;
and a generation the store has cached answers the same as one it reads."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from dreaming.store import MemoryStore
from dreaming.store.filters import MemoryFilter
from schemas import MemoryRecord

SCOPE = "acme/bot/u1"
T0 = datetime(2026, 3, 5, tzinfo=UTC)
DIMS = 8

RECORDS = [
    MemoryRecord(
        scope=SCOPE,
        memory_id=f"m{i}",
        text=text,
        origin=origin,
        tier=tier,
        created_at=T0 + timedelta(days=i),
        updated_at=T0 + timedelta(days=2 * i),
        metadata=metadata,
    )
    for i, (origin, tier, metadata, text) in enumerate(
        [
            ("transcript", "core", None, "Ava moved to Porto in May"),
            ("memory_add", "core", {"channel": "email", "ticket": 123}, "AVA's sister runs a bakery"),
            ("memory_add", "archive", {"channel": "chat", "ticket": "123", "vip": True}, "Two pottery classes a week"),
            ("motive", "archive", {"channel": "chat", "score": 0.5, "vip": False}, "Avalon is the film Bo likes"),
            ("transcript", "archive", {"ticket": 124, "note": "true"}, "bo prefers the pottery-class on Fridays"),
            ("memory_add", "core", {"channel": "Email", "ticket": 123.0}, "memory number 5"),
        ]
    )
]

FILTERS = [
    MemoryFilter(),
    MemoryFilter(tier="core"),
    MemoryFilter(tier="archive", origin="memory_add"),
    MemoryFilter(origin="motive"),
    MemoryFilter(consolidated=True),
    MemoryFilter(consolidated=False),
    MemoryFilter(created_after=T0 + timedelta(days=2)),
    MemoryFilter(created_before=T0 + timedelta(days=2)),
    MemoryFilter(created_after=T0 + timedelta(days=1), created_before=T0 + timedelta(days=4)),
    MemoryFilter(updated_after=T0 + timedelta(days=4), updated_before=T0 + timedelta(days=8, hours=1)),
    MemoryFilter(metadata=(("channel", "email"),)),
    MemoryFilter(metadata=(("channel", "chat"),)),
    MemoryFilter(metadata=(("ticket", "123"),)),
    MemoryFilter(metadata=(("ticket", "123.0"),)),
    MemoryFilter(metadata=(("vip", "true"),)),
    MemoryFilter(metadata=(("vip", "false"),)),
    MemoryFilter(metadata=(("note", "true"),)),
    MemoryFilter(metadata=(("score", "0.5"),)),
    MemoryFilter(metadata=(("channel", "chat"), ("vip", "true"))),
    MemoryFilter(metadata=(("missing", "x"),)),
    MemoryFilter(tier="core", metadata=(("ticket", "123"),), created_after=T0 + timedelta(days=2)),
    MemoryFilter(about="Ava"),
    MemoryFilter(about="pottery class"),
    MemoryFilter(about="Bo", tier="archive"),
]


def embed(texts):
    return [[1.0] * DIMS for _ in texts]


@pytest.fixture
def store(store_client):
    """A store that has not read the generation yet (so reads go to the store query), over the
    records another store instance wrote."""
    writer = MemoryStore(store_client, "test", DIMS, embed, generations_kept=3)
    writer.write_candidate(SCOPE, 1, RECORDS)
    writer.write_candidate("acme/bot/other", 1, [r.model_copy(update={"scope": "acme/bot/other"}) for r in RECORDS])
    return MemoryStore(store_client, "test", DIMS, embed, generations_kept=3)


@pytest.mark.parametrize("where", FILTERS, ids=lambda f: str(f.to_json()) or "none")
def test_the_store_query_keeps_every_record_the_filter_matches(store_client, store, where):
    """The payload conditions alone, on each backend: never narrower than the filter."""
    from qdrant_client import models

    from dreaming.store.client import payload_of, scope_filter, scroll_all

    members = store.manifests.read(SCOPE, 1).point_ids()
    flt = scope_filter(SCOPE, models.HasIdCondition(has_id=members), *where.conditions())
    kept = {payload_of(r)["record"]["memory_id"] for r in scroll_all(store_client, "test_memories", flt)}
    assert {r.memory_id for r in RECORDS if where.matches(r)} <= kept


@pytest.mark.parametrize("where", FILTERS, ids=lambda f: str(f.to_json()) or "none")
def test_the_store_query_and_the_in_hand_match_agree(store, where):
    in_store = {r.memory_id for r in store.generation_records(SCOPE, 1, where)}
    in_hand = {r.memory_id for r in RECORDS if where.matches(r)}
    assert in_store == in_hand
    store.generation_records(SCOPE, 1)  # now cached: the same filter runs over the cached records
    assert {r.memory_id for r in store.generation_records(SCOPE, 1, where)} == in_hand


def test_each_filter_selects_what_it_says():
    def ids(where: MemoryFilter) -> list[str]:
        return [r.memory_id for r in RECORDS if where.matches(r)]

    assert ids(MemoryFilter(tier="core")) == ["m0", "m1", "m5"]
    assert ids(MemoryFilter(metadata=(("ticket", "123"),))) == ["m1", "m2", "m5"], "string, int and float alike"
    assert ids(MemoryFilter(metadata=(("vip", "true"),))) == ["m2"], "a boolean, not the string 'true' only"
    assert ids(MemoryFilter(metadata=(("note", "true"),))) == ["m4"], "the string 'true' too"
    assert ids(MemoryFilter(metadata=(("channel", "email"),))) == ["m1"], "case matters"
    assert ids(MemoryFilter(created_after=T0 + timedelta(days=2), created_before=T0 + timedelta(days=3))) == ["m2"]
    assert ids(MemoryFilter(consolidated=False)) == []
    assert ids(MemoryFilter(about="Ava")) == ["m0", "m1"], "any case, possessive too, never inside a word"
    assert ids(MemoryFilter(about="pottery class")) == ["m2", "m4"], "plural and hyphenated alike"
    assert ids(MemoryFilter(about="bo")) == ["m3", "m4"]
    assert ids(MemoryFilter(about="Porto", tier="archive")) == []


def test_about_must_name_something():
    for about in ("", "  ", "?!", "x" * 101):
        with pytest.raises(ValueError, match="about must name"):
            MemoryFilter(about=about)


def test_pending_records_are_filtered_in_hand_and_curated_ones_skipped_when_unwanted(store):
    assert store.generation_records(SCOPE, 1, MemoryFilter(consolidated=False)) == []
    fresh = RECORDS[2].model_copy(update={"consolidated": False})
    assert MemoryFilter(consolidated=False, tier="archive").matches(fresh)
    assert not MemoryFilter(consolidated=True).matches(fresh)


def test_a_key_that_would_read_as_a_payload_path_is_refused():
    for key in ("a.b", "a[0]", "", "x" * 65, 'a"b'):
        with pytest.raises(ValueError, match="metadata filter key"):
            MemoryFilter(metadata=((key, "v"),))


def test_every_combination_of_two_filters_agrees(store):
    for first, second in itertools.combinations(FILTERS[1:12], 2):
        merged = MemoryFilter(
            **{
                name: getattr(second, name) if getattr(second, name) not in (None, ()) else getattr(first, name)
                for name in MemoryFilter.__dataclass_fields__
            }
        )
        in_store = {r.memory_id for r in store.generation_records(SCOPE, 1, merged)}
        assert in_store == {r.memory_id for r in RECORDS if merged.matches(r)}, merged
