"""The evaluation metrics and answer matching, on hand-built inputs (no store, no Kafka)."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from dreamstream_tools.evaluation.matching import (
    Haystack,
    answer_date,
    contains_answer,
    contains_words,
    has_undated_relative_time,
    normalised_date,
    with_iso_dates,
)
from dreamstream_tools.evaluation.metrics import (
    Item,
    WordStats,
    answer_containment,
    compression,
    coverage,
    date_resolved,
    evidence_recall,
    is_visible,
    isolation_leaks,
    knowledge_update,
    mean,
    memory_add_retained,
    near_duplicate_pairs,
    near_duplicates,
    rests_only_on,
    retention,
    stale_leak,
    states_old_value,
    undated_relative_times,
    values,
    values_conflict,
    word_stats,
)
from schemas import MemoryRecord

SCOPE = "demo/travel-assistant/ava"
OTHER = "globex/travel-assistant/ava"
T0 = datetime(2026, 3, 1, tzinfo=UTC)


def item(text: str, *provenance: str, scope: str = SCOPE, key: str = "") -> Item:
    return Item(text, tuple(provenance), scope, key or text)


def record(memory_id: str, text: str = "x", status: str = "active", **extra) -> MemoryRecord:
    return MemoryRecord(
        scope=SCOPE,
        memory_id=memory_id,
        text=text,
        status=status,
        origin="memory_add",
        created_at=T0,
        updated_at=T0,
        **extra,
    )


# --- matching
@pytest.mark.parametrize(
    "spelling",
    [
        "2026-03-10",
        "March 10, 2026",
        "10 March 2026",
        "Mar 10 2026",
        "10th of March, 2026",
        "Tuesday, March 10, 2026",
        "2026/03/10",
        "march 10th 2026",
    ],
)
def test_every_spelling_of_a_date_normalises_to_iso(spelling):
    assert normalised_date(spelling) == "2026-03-10"


def test_a_month_and_non_dates_normalise_as_such():
    assert normalised_date("March 2026") == "2026-03"
    assert normalised_date("aisle") is None
    assert normalised_date("March 10") is None  # no year: not a date
    assert normalised_date("2026-02-30") is None  # no such day
    assert normalised_date("flight on 2026-03-10") == "2026-03-10"  # one exact day inside an answer
    assert normalised_date("the first week of March 2026") is None  # a month inside other words


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Ava's flight to Lisbon is on 2026-03-10.", "March 10, 2026"),
        ("The flight is on March 10, 2026 (next Tuesday).", "2026-03-10"),
        ("Booked for 10 March 2026 at 09:00", "10 March 2026"),
        ("Landing 2026-03-10T09:00:00+00:00", "2026-03-10"),
        ("The deadline is 2026-03-31.", "March 2026"),
    ],
)
def test_a_date_answer_matches_any_spelling_of_that_date(text, answer):
    assert contains_answer(text, answer)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Ava's flight to Lisbon is on 2026-03-11.", "2026-03-10"),  # another day
        ("Ava's flight to Lisbon is next Tuesday.", "2026-03-10"),  # undated
        ("The deadline is in March.", "March 2026"),
        ("Ticket 2026-03-10", "2026-03-11"),
    ],
)
def test_a_date_answer_needs_that_date(text, answer):
    assert not contains_answer(text, answer)


@pytest.mark.parametrize(
    ("answer", "day"),
    [
        ("On 14.01.2024", "2024-01-14"),
        ("3.9.2025", "2025-09-03"),
        ("7 May 2023", "2023-05-07"),
        ("May 7, 2023", "2023-05-07"),
        ("2023-05-07", "2023-05-07"),
        ("the 7th of May, 2023.", "2023-05-07"),
        ("12Nov, 2024", "2024-11-12"),  # hand-typed, run together
        ("Sometime the week before 12 November 2024", "2024-11-12"),  # the anchor day of a resolved relative time
        ("Paid on Friday, 2 February 2024 by card", "2024-02-02"),
    ],
)
def test_an_answer_is_a_date_when_it_contains_one_exact_day(answer, day):
    assert normalised_date(answer) == day


@pytest.mark.parametrize(
    "answer",
    [
        "in 2021",  # a year, not a day
        "Summer 2024",
        "between 3 March 2024 and 9 March 2024",  # two days: not one exact date
        "14.01",  # no year
        "version 1.14.01.2024",  # part of a longer dotted number
        "31.02.2024",  # no such day
    ],
)
def test_years_ranges_and_non_days_are_not_date_answers(answer):
    found = answer_date(answer)
    assert found is None or found.day is None


@pytest.mark.parametrize(
    "text",
    [
        "Noor's exam was on 2024-01-14.",
        "Exam: January 14, 2024",
        "exam 14 Jan 2024",
        "Exam on 14.01.2024 at noon",
        "Sunday, 14th of January 2024",
    ],
)
def test_a_dotted_date_answer_matches_every_spelling_of_its_day(text):
    assert contains_answer(text, "On 14.01.2024")
    assert not contains_answer(text.replace("14", "15"), "On 14.01.2024")


def test_a_haystack_answers_like_any_single_text_but_never_across_two():
    texts = ["Noor keeps bees", "in the garden", "Her exam was on 2024-01-14"]
    hay = Haystack(texts)
    for answer in ("bees", "keeps bee", "the garden", "14 January 2024", "January 2024"):
        assert hay.contains(answer) == any(contains_answer(t, answer) for t in texts) == True  # noqa: E712
    assert not hay.contains("bees in")  # "bees" ends one text, "in" starts the next
    assert not Haystack([]).contains("bees")


def test_words_match_whole_words_in_order_with_a_plural_on_the_last():
    assert contains_words("Ava prefers aisle seats", "aisle")
    assert contains_words("Ava prefers aisle seats", "aisle seat")
    assert contains_words("DuckDB replaces PostgreSQL.", "duckdb")
    assert contains_words("The router is an AX3000!", "AX3000")
    assert contains_words("Ava\u2019s loyalty number is on file", "loyalty number")
    assert not contains_words("Ava preferred the window", "red")
    assert not contains_words("Ava lives in Redmond", "red")
    assert not contains_words("number loyalty", "loyalty number")
    assert not contains_words("Ava seats aisle", "aisle seat")
    assert not contains_words("anything", "")


@pytest.mark.parametrize(
    ("text", "undated"),
    [
        ("Ava's flight is next Tuesday.", True),
        ("It broke yesterday.", True),
        ("Summary for next week's meeting", True),  # possessives the resolver leaves alone
        ("Ava has a haircut next weekend.", True),
        ("The plumber comes in a fortnight.", True),
        ("Ava's flight is on 2026-03-10 (next Tuesday).", False),  # annotated: dated
        ("Ava's haircut is on 2026-03-14 (next weekend).", False),
        ("Ava's flight is on 2026-03-10.", False),
        ("Ava's team sync is on Monday.", False),  # bare weekday: no relative claim
    ],
)
def test_undated_relative_times(text, undated):
    assert has_undated_relative_time(text) is undated


def test_iso_dates_rewrites_only_valid_day_dates():
    assert with_iso_dates("on March 10, 2026 and 3rd of May 2026") == "on 2026-03-10 and 2026-05-03"
    assert with_iso_dates("on February 30, 2026") == "on February 30, 2026"


# --- evidence recall@k
def test_evidence_recall_is_the_share_of_evidence_found_in_top_k_provenance():
    top = [item("a", "m1", "m9"), item("b", "m2")]
    assert evidence_recall(["m1", "m2"], top) == 1.0
    assert evidence_recall(["m1", "m3"], top) == 0.5
    assert evidence_recall(["m3"], top) == 0.0
    assert evidence_recall(["m1", "m1"], top) == 1.0  # ids counted once


def test_evidence_recall_does_not_apply_without_evidence():
    assert evidence_recall([], [item("a", "m1")]) is None


# --- answer containment@k
def test_answer_containment_looks_at_every_top_k_text():
    top = [item("Ava prefers window seats"), item("Ava prefers aisle seats")]
    assert answer_containment("aisle", top)
    assert not answer_containment("middle", top)
    assert not answer_containment("aisle", [])


# --- knowledge update
def test_rests_only_on_stale_needs_every_cited_message_stale():
    assert rests_only_on(["s1"], ["s1", "s2"])
    assert not rests_only_on(["s1", "n1"], ["s1"])
    assert not rests_only_on([], ["s1"])  # cites nothing: not resting on the stale message


def test_knowledge_update_passes_when_the_top_k_has_the_new_value_and_nothing_stale_only():
    new = item("Ava prefers aisle seats", "n1")
    assert knowledge_update("aisle", ["s1"], [new, item("Ava is vegetarian", "v1")]) is True
    # an item citing a stale message and a fresh one does not rest only on the stale one
    assert knowledge_update("aisle", ["s1"], [new, item("Ava moved from window to aisle", "s1", "n1")]) is True


def test_knowledge_update_fails_when_a_stale_only_item_is_in_the_top_k():
    new, old = item("Ava prefers aisle seats", "n1"), item("Ava prefers window seats", "s1")
    assert knowledge_update("aisle", ["s1"], [new, old]) is False


def test_knowledge_update_fails_when_the_new_value_is_not_retrieved():
    old = item("Ava prefers window seats", "s1", "n0")
    assert knowledge_update("aisle", ["s1"], [old]) is False


def test_knowledge_update_does_not_apply_without_stale_messages():
    assert knowledge_update("aisle", [], [item("aisle")]) is None


def test_knowledge_update_is_one_rule_for_memories_messages_and_memory_adds():
    """A raw message cites itself and a raw memory-add its sources: the same function judges them."""
    stale_message, fresh_message = item("Book me a window seat", "s1"), item("No, it's aisle", "n1")
    stale_add = item("Ava prefers window seats", "s1")  # a memory-add written from the stale message
    assert knowledge_update("aisle", ["s1"], [fresh_message]) is True
    assert knowledge_update("aisle", ["s1"], [fresh_message, stale_message]) is False
    assert knowledge_update("aisle", ["s1"], [fresh_message, stale_add]) is False
    assert knowledge_update("aisle", ["s1"], [stale_message]) is False


# --- stale leak
def test_an_item_states_the_old_value_when_it_cites_a_stale_message_without_the_new_answer():
    assert states_old_value("aisle", ["s1"], item("Ava prefers window seats", "s1"))
    assert states_old_value("aisle", ["s1"], item("[2026-03-01] user: window seat please", "s1", "n1"))
    # the memory citing the stale message has taken the new value: it does not mislead
    assert not states_old_value("aisle", ["s1"], item("Ava switched from window to aisle seats", "s1", "n1"))
    assert not states_old_value("aisle", ["s1"], item("Ava is vegetarian", "v1"))  # cites no stale message


def test_stale_leak_is_any_item_read_stating_the_old_value_one_rule_for_both_sides():
    fresh = item("Ava prefers aisle seats", "n1")
    stale_memory = item("Ava prefers window seats (said on 2026-03-01)", "s1")
    stale_message = item("[2026-03-01] user: I always sit by the window", "s1")
    assert stale_leak("aisle", ["s1"], [fresh]) is False
    assert stale_leak("aisle", ["s1"], [fresh, stale_memory]) is True
    assert stale_leak("aisle", ["s1"], [fresh, stale_message]) is True
    assert stale_leak("aisle", ["s1"], []) is False  # nothing read, nothing stale read
    assert stale_leak("aisle", [], [stale_memory]) is None  # not an update question
    # a leak is not the same as a missed update: the new value may be read beside the old one
    assert knowledge_update("aisle", ["s1"], [fresh, stale_memory]) is False


# --- coverage and date resolution
def test_coverage_looks_at_every_item_of_the_scope():
    everything = Haystack(["Noor keeps bees", "Noor's exam was on 2024-01-14"])
    assert coverage("bees", everything)
    assert coverage("January 14, 2024", everything)
    assert not coverage("wasps", everything)


def test_a_date_is_resolved_only_by_an_item_citing_the_evidence():
    dated = item("Noor sat the exam on 2024-01-14", "m5")
    assert date_resolved("14 January 2024", ["m5"], [dated]) is True
    assert date_resolved("The week before 14 January 2024", ["m5", "m6"], [dated]) is True
    assert date_resolved("14 January 2024", ["m7"], [dated]) is False  # right date, other evidence
    assert date_resolved("14 January 2024", ["m5"], [item("Noor sat the exam yesterday", "m5")]) is False
    assert date_resolved("15 January 2024", ["m5"], [dated]) is False


def test_date_resolution_applies_to_exact_days_with_evidence_only():
    dated = item("Noor sat the exam on 2024-01-14", "m5")
    assert date_resolved("January 2024", ["m5"], [dated]) is None
    assert date_resolved("in 2024", ["m5"], [dated]) is None
    assert date_resolved("14 January 2024", [], [dated]) is None


# --- retention
def test_a_memory_add_is_retained_when_active_or_merged_into_an_active_record():
    records = {
        "kept": record("kept"),
        "reworded": record("reworded", "Ava's flight is on 2026-03-10"),
        "dup": record("dup", status="merged", merged_into="survivor"),
        "survivor": record("survivor", merged_from=("dup", "gone-dup")),
        "chain": record("chain", status="merged", merged_into="dup"),
        "old": record("old", status="superseded", superseded_by="kept"),
        "pruned": record("pruned", status="archived"),
        "dead-end": record("dead-end", status="merged", merged_into="pruned"),
    }
    assert memory_add_retained("kept", records)
    assert memory_add_retained("reworded", records)
    assert memory_add_retained("dup", records)
    assert memory_add_retained("gone-dup", records)  # listed by an active survivor
    assert memory_add_retained("chain", records)  # chain → dup → survivor
    assert not memory_add_retained("old", records)
    assert not memory_add_retained("pruned", records)
    assert not memory_add_retained("dead-end", records)
    assert not memory_add_retained("never-absorbed", records)


def test_archive_tier_memories_are_visible_and_count_as_retained():
    records = {
        "core": record("core", tier="core"),
        "archived-tier": record("archived-tier", tier="archive"),
        "absorbed": record("absorbed", status="merged", merged_into="archived-tier"),
        "old": record("old", status="superseded", tier="archive", superseded_by="core"),
    }
    assert is_visible(records["core"]) and is_visible(records["archived-tier"])
    assert not is_visible(records["old"])  # a tier never revives a superseded record
    assert memory_add_retained("archived-tier", records)
    assert memory_add_retained("absorbed", records)
    assert not memory_add_retained("old", records)


def test_merge_cycles_do_not_loop():
    records = {"a": record("a", status="merged", merged_into="b"), "b": record("b", status="merged", merged_into="a")}
    assert not memory_add_retained("a", records)


def test_retention_leaves_out_contradicted_adds_and_counts_facts_in_active_memories():
    records = {
        SCOPE: {
            "window": record("window", "Ava prefers window seats", status="superseded"),
            "loyalty": record("loyalty", "Ava has a loyalty number on file"),
            "plan": record("plan", "Customer is on the premium plan", status="archived"),
            "owner": record("owner", "Project Falcon reports to Maria"),
            "old-owner": record("old-owner", "Project Falcon reports to Jonas", status="superseded"),
        }
    }
    adds = [(SCOPE, "window", ("s1",)), (SCOPE, "loyalty", ()), (SCOPE, "plan", ())]
    facts = [(SCOPE, "Who owns Falcon?", "Maria"), (SCOPE, "Who owned Falcon?", "Jonas")]
    result = retention(adds, {SCOPE: {"s1"}}, records, facts)
    assert (result.adds_total, result.adds_retained) == (2, 1)  # "window" is contradicted: not counted
    assert (result.facts_total, result.facts_retained) == (2, 1)  # a superseded record does not hold a fact
    assert result.share == 0.5
    assert result.lost_adds == (f"{SCOPE}:plan",)
    assert result.lost_facts == (f"{SCOPE}: Who owned Falcon?",)


def test_a_memory_add_still_pending_in_the_inbox_is_retained():
    adds = [(SCOPE, "fresh", ()), (SCOPE, "gone", ())]
    result = retention(adds, {}, {SCOPE: {}}, [], {SCOPE: {"fresh"}})
    assert (result.adds_total, result.adds_retained, result.lost_adds) == (2, 1, (f"{SCOPE}:gone",))


def test_retention_of_nothing_is_not_applicable():
    assert retention([], {}, {}, []).share is None


# --- compression
def test_compression_is_active_memories_per_input_message():
    assert compression(13, 41) == pytest.approx(13 / 41)
    assert compression(0, 10) == 0.0
    assert compression(3, 0) is None


# --- near duplicates
class TableEmbedder:
    """Unit-test double: fixed, hand-chosen unit vectors per text."""

    def __init__(self, table: dict[str, tuple[float, ...]]) -> None:
        self.table = table

    def embed_array(self, texts):
        rows = np.array([self.table[t] for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_values_are_numbers_and_dates_spelled_alike():
    assert values("Ava's flight is on March 10, 2026") == values("Ava's flight is on 2026-03-10")
    assert values("The library has 45 sources") == frozenset({"45"})
    assert values_conflict(values("45 sources"), values("52 sources"))
    assert not values_conflict(values("45 sources"), values("45 sources, all peer reviewed"))
    assert not values_conflict(values("Ava flew to Lisbon"), values("Ava flew to Lisbon on 2026-03-10"))  # detail


def test_near_duplicate_pairs_need_high_cosine_and_no_differing_value():
    texts = [
        "The library has 45 sources",
        "The library holds 45 sources",
        "The library has 52 sources",
        "Ava likes tea",
    ]
    close = np.array([1.0, 0.05, 0.0])
    vectors = TableEmbedder(
        {texts[0]: (1.0, 0.0, 0.0), texts[1]: tuple(close), texts[2]: (1.0, 0.0, 0.01), texts[3]: (0.0, 1.0, 0.0)}
    ).embed_array(texts)
    assert near_duplicate_pairs(texts, vectors) == [(0, 1)]  # 45 vs 52 conflicts despite the cosine
    assert near_duplicate_pairs(texts, vectors, threshold=0.0) == [(0, 1), (0, 3), (1, 3), (2, 3)]
    assert near_duplicate_pairs(texts[:1], vectors[:1]) == []


def test_near_duplicate_rate_counts_memories_with_a_partner_in_their_own_scope():
    table = {
        "Ava is vegetarian": (1.0, 0.0),
        "Ava eats no meat": (1.0, 0.1),
        "Ava prefers aisle seats": (0.0, 1.0),
        "Ava prefers window seats": (0.6, 0.8),
    }
    found = near_duplicates(
        {
            SCOPE: [item(text, key=f"m{i}") for i, text in enumerate(table)],
            OTHER: [item("Ava is vegetarian", scope=OTHER, key="m1")],  # same text, other scope: not counted
        },
        TableEmbedder(table).embed_array,
    )
    assert (found.memories, found.total) == (2, 5)
    assert found.rate == pytest.approx(0.4)
    assert found.pairs == (("Ava is vegetarian", "Ava eats no meat"),)
    assert near_duplicates({}, TableEmbedder({}).embed_array).rate is None


def test_near_duplicates_compare_the_statement_the_caller_names():
    table = {"Noor swims": (1.0, 0.0), "Noor keeps bees": (0.0, 1.0)}
    stamped = [
        item("Noor swims (said on 2026-02-03)", key="a"),
        item("Noor swims (said on 2026-03-09)", key="b"),
        item("Noor keeps bees (said on 2026-02-03)", key="c"),
    ]
    strip = lambda text: text.split(" (said on")[0]  # noqa: E731
    found = near_duplicates({SCOPE: stamped}, TableEmbedder(table).embed_array, statement=strip)
    assert (found.memories, found.total) == (2, 3)
    assert found.pairs == (("Noor swims (said on 2026-02-03)", "Noor swims (said on 2026-03-09)"),)  # shown whole


# --- undated relative times
def test_undated_relative_times_lists_the_offending_memories():
    texts = ["Ava's flight is on 2026-03-10 (next Tuesday).", "Ava's flight is next Tuesday.", "Ava is vegetarian"]
    assert undated_relative_times(texts) == ["Ava's flight is next Tuesday."]


def test_the_said_on_stamp_does_not_date_what_a_memory_says():
    """The body is judged without its "(said on DATE)" stamp: the stamp says when, not what day "yesterday" was."""
    stamped = [
        "Ava's flight is next Tuesday (said on 2026-03-05)",
        "Ava flew back yesterday (said on 2026-03-05)",
        "Ava flew back on 2026-03-04 (yesterday) (said on 2026-03-05)",
        "Ava is vegetarian (said on 2026-03-05)",
        "Ava moved to Porto in 2019 (said on 2026-03-05)",
    ]
    assert undated_relative_times(stamped) == stamped[:2]


# --- words per item
def test_word_stats_are_the_median_and_the_90th_percentile():
    assert word_stats([]) == WordStats(0, None, None)
    stats = word_stats([3, 1, 2, 10, 4, 5, 6, 7, 8, 9])
    assert stats.items == 10 and stats.median == 5.5 and stats.p90 == pytest.approx(9.1)


# --- isolation
def test_isolation_leaks_flag_other_scopes_and_their_messages():
    owners = {"a1": frozenset({SCOPE}), "g1": frozenset({OTHER}), "shared": frozenset({SCOPE, OTHER})}
    items = [
        item("mine", "a1", key="ok"),
        item("shared id", "shared", key="ok2"),
        item("theirs", "g1", key="cites"),
        item("stored elsewhere", scope=OTHER, key="elsewhere"),
    ]
    leaks = isolation_leaks(SCOPE, items, owners)
    assert len(leaks) == 2
    assert "cites" in leaks[0] and "g1" in leaks[0]
    assert "elsewhere" in leaks[1]
    assert isolation_leaks(SCOPE, items[:2], owners) == []


# --- aggregation
def test_mean_skips_what_does_not_apply():
    assert mean([True, False, None, 1.0]) == pytest.approx(2 / 3)
    assert mean([None, None]) is None
    assert mean([]) is None
