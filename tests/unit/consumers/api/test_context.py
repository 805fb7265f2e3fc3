"""The context block: the core tier in its rank, then the query's best other memories, each dated,
never estimated above the budget (the project's own estimate), a memory left out whole."""

from __future__ import annotations

from datetime import timedelta

from consumers.api.routes.context import CORE_HEADING, FRESH, assemble, line_of, related_heading
from dreaming.passes.prune import estimated_tokens
from tests.unit.consumers.api.conftest import T0, memory, memory_add

SCOPE = "acme/bot/u1"
BASE = f"/scopes/{SCOPE}"


def core_memories():
    return [
        memory(SCOPE, f"c{i}", f"Core fact number {i} about the traveller, said plainly.", tier="core",
               evidence_message_ids=tuple(f"m{j}" for j in range(i + 1)),
               created_at=T0 + timedelta(days=i), updated_at=T0 + timedelta(days=i))
        for i in range(6)
    ]  # fmt: skip


def hits():
    text = "Archived detail {}: the hotel in Porto had a quiet courtyard."
    return [(memory(SCOPE, f"a{i}", text.format(i), tier="archive"), 1 - i / 10) for i in range(5)]


def test_the_whole_block_never_estimates_above_the_budget():
    for budget in [*range(1, 200), 250, 400, 1_000]:
        block = assemble(core_memories(), hits(), "where did they stay", budget)
        assert estimated_tokens(block.text) <= budget or not block.text, budget
        chosen = {line.record.memory_id for line in block.chosen}
        assert len(chosen) + sum(block.omitted.values()) == 11, "every candidate is chosen or counted as omitted"


def test_core_comes_first_in_its_rank_then_the_hits_best_first():
    block = assemble(core_memories(), hits(), "hotel", 10_000)
    lines = block.text.splitlines()
    assert lines[0] == CORE_HEADING and lines[7] == related_heading("hotel")
    core_ids = [line.record.memory_id for line in block.chosen if line.section == "core"]
    assert core_ids == ["c5", "c4", "c3", "c2", "c1", "c0"], "more evidence and newer ranks higher, as prune ranks"
    assert [line.record.memory_id for line in block.chosen if line.section == "related"] == [f"a{i}" for i in range(5)]
    assert lines[1] == "- [2026-03-10] Core fact number 5 about the traveller, said plainly."
    assert block.omitted == {"core": 0, "related": 0}


def test_a_query_keeps_up_to_half_the_budget_for_its_hits():
    budget = 60  # the core alone would take it all
    block = assemble(core_memories(), hits(), "hotel", budget)
    related = [line for line in block.chosen if line.section == "related"]
    assert related, "the hits are not crowded out by a large core"
    assert sum(line.cost for line in related) <= (4 * budget + 3) // 2
    assert block.omitted["core"] > 0
    without_query = assemble(core_memories(), [], "", budget)
    assert len([line for line in without_query.chosen if line.section == "core"]) > len(block.chosen) - len(related)


def test_nothing_is_left_out_that_would_still_fit():
    """Room the hits leave goes back to the core, and a line that does not fit does not stop a
    shorter one after it."""
    core = core_memories() + [memory(SCOPE, "short", "Tea.", tier="core", confidence=0.1)]
    for budget in range(20, 160, 7):
        block = assemble(core, hits()[:2], "hotel", budget)
        room = 4 * budget + 3 - (len(block.text) + 1)
        chosen = {line.record.memory_id for line in block.chosen}
        opened = {line.section for line in block.chosen}
        candidates = [line_of(r, "core") for r in core] + [line_of(r, "related", s) for r, s in hits()[:2]]
        for line in candidates:
            if line.record.memory_id in chosen:
                continue
            title = CORE_HEADING if line.section == "core" else related_heading("hotel")
            heading = 0 if line.section in opened else len(title) + 1
            assert line.cost + heading > room, (budget, line.text, room)


def test_a_memory_in_the_core_is_not_repeated_as_a_hit_and_fresh_notes_are_marked():
    core = core_memories()
    fresh = memory(SCOPE, "new", "Moved to Lisbon.", tier="archive", consolidated=False, origin="memory_add")
    block = assemble(core, [(core[0], 0.9), (fresh, 0.5)], "where", 10_000)
    assert [line.record.memory_id for line in block.chosen if line.section == "related"] == ["new"]
    assert block.text.endswith("Moved to Lisbon." + FRESH)


def test_the_route_answers_text_and_items(api):
    api.promote(
        SCOPE,
        [
            memory(SCOPE, "seat", "The user prefers aisle seats on long flights.", tier="core"),
            memory(SCOPE, "hotel", "The user stayed at a quiet hotel in Porto.", tier="archive"),
        ],
    )
    api.add_pending(memory_add(SCOPE, "moved", "The user moved to Lisbon in March.", hours=30))
    status, body = api.get(f"{BASE}/context?q=where+does+the+user+live+now&budget_tokens=200")
    assert status == 200, body
    assert body["budget_tokens"] == 200 and body["tokens"] == estimated_tokens(body["text"]) <= 200
    assert body["text"].startswith(CORE_HEADING + "\n- [2026-03-05] The user prefers aisle seats")
    items = {i["memory_id"]: i for i in body["items"]}
    assert items["seat"]["section"] == "core" and items["seat"]["score"] is None
    assert items["moved"] == {
        "memory_id": "moved",
        "section": "related",
        "tier": "archive",
        "consolidated": False,
        "date": "2026-03-06",
        "text": "The user moved to Lisbon in March.",
        "tokens": estimated_tokens(f"- [2026-03-06] The user moved to Lisbon in March.{FRESH}"),
        "score": items["moved"]["score"],
    }
    status, body = api.get(f"{BASE}/context")
    assert status == 200 and [i["memory_id"] for i in body["items"]] == ["seat"], "no query: the core only"
    assert body["budget_tokens"] == api.settings.core_token_budget


def test_the_route_refuses_bad_parameters(api):
    api.promote(SCOPE, [memory(SCOPE, "seat", "The user prefers aisle seats.", tier="core")])
    for query, message in (
        ("budget_tokens=0", "budget_tokens must be between 1 and 100000"),
        ("budget_tokens=lots", "budget_tokens must be an integer"),
        (f"q={'x' * 1001}", "q must be at most 1000 characters"),
        ("k=3", "unknown query parameter 'k'"),
    ):
        status, body = api.get(f"{BASE}/context?{query}")
        assert status == 400 and message in body["error"], (query, body)
