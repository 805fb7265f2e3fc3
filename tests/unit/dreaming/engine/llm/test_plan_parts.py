"""The pieces a chunked pass is made of, on their own: the reply schema sent as the response
format, and the joining of the parts' plans (pass-wide refs, newest evidence wins)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import jsonschema
import pytest

from dreaming.engine.llm.merge import ChunkPlan, merge_plans, scoped_refs
from dreaming.engine.llm.schema import MAX_ACTIONS, plan_schema
from dreaming.snapshot import Snapshot
from schemas import ActionPlan, ConversationTurn, DreamJob

SCOPE = "acme/planner/parts"
T0 = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


def turn(message_id: str, minutes: int) -> ConversationTurn:
    return ConversationTurn(
        scope=SCOPE, session_id="s", message_id=message_id, role="user", content="x", ts=T0 + timedelta(minutes=minutes)
    )


SNAPSHOT = Snapshot(
    job=DreamJob(job_id="j", scope=SCOPE, trigger="manual", requested_at=T0 + timedelta(days=1)),
    generation=1,
    memories=(),
    transcript=(turn("early", 1), turn("late", 50)),
)


def plan(*actions: dict) -> ActionPlan:
    return ActionPlan.model_validate({"actions": list(actions)})


def update(target: str, evidence: str, text: str) -> dict:
    return {"kind": "update", "target": target, "text": text, "evidence_message_ids": [evidence], "rationale": "r"}


# --- the reply schema
def test_the_schema_offers_only_the_ids_the_prompt_shows():
    schema = plan_schema({"mem-1", "mem-2"}, {"early", "late"}, reply_tokens=2_000)
    good = {
        "actions": [
            {"kind": "update", "target": "mem-1", "text": "t", "evidence_message_ids": ["late"], "rationale": "r"}
        ]
    }
    jsonschema.validate(good, schema)
    ActionPlan.model_validate(good)  # a plan the schema allows is a valid ActionPlan
    for bad_target, bad_evidence in (("mem-9", "late"), ("mem-1", "invented")):
        invented = json.loads(json.dumps(good))
        invented["actions"][0].update(target=bad_target, evidence_message_ids=[bad_evidence])
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(invented, schema)


def test_without_memories_only_creates_are_offered_and_the_reply_budget_bounds_the_actions():
    schema = plan_schema(set(), {"late"}, reply_tokens=950)
    actions = schema["properties"]["actions"]
    assert [v["properties"]["kind"]["const"] for v in actions["items"]["oneOf"]] == ["create"]
    assert (
        actions["maxItems"] == 3
        and plan_schema(set(), {"late"}, 100_000)["properties"]["actions"]["maxItems"] == MAX_ACTIONS
    )
    nothing = plan_schema(set(), set(), reply_tokens=2_000)["properties"]["actions"]
    assert nothing["maxItems"] == 0 and "items" not in nothing
    jsonschema.validate({"actions": []}, plan_schema(set(), set(), 2_000))


# --- joining the parts
def test_refs_become_pass_wide_and_shown_ids_stay():
    local = plan(
        {"kind": "create", "ref": "aisle", "text": "t", "evidence_message_ids": ["late"], "rationale": "r"},
        {
            "kind": "supersede",
            "target": "mem-1",
            "replacement": "aisle",
            "evidence_message_ids": ["late"],
            "rationale": "r",
        },
    )
    create, supersede = scoped_refs(local, 3, frozenset({"mem-1"})).actions
    assert create.ref == "c3.aisle" and (supersede.target, supersede.replacement) == ("mem-1", "c3.aisle")


@pytest.mark.parametrize(("early_part", "late_part"), [(1, 2), (2, 1)], ids=["newer-part-newer", "older-part-newer"])
def test_two_parts_changing_one_memory_the_newest_evidence_wins(early_part: int, late_part: int):
    early = ChunkPlan(early_part, plan(update("mem-1", "early", "window seat")), T0)
    late = ChunkPlan(late_part, plan(update("mem-1", "late", "aisle seat")), T0)
    parts = sorted([early, late], key=lambda p: p.part)

    merged, notes = merge_plans(parts, SNAPSHOT)

    assert [a.text for a in merged.actions] == ["aisle seat"]
    assert len(notes) == 1 and f"part {early_part}'s update of mem-1" in notes[0] and "newer evidence" in notes[0]


def test_actions_of_one_part_are_left_to_the_pass_and_unrelated_ones_all_stay():
    one = ChunkPlan(1, plan(update("mem-1", "early", "a"), update("mem-1", "early", "b")), T0)
    two = ChunkPlan(2, plan(update("mem-2", "late", "c")), T0)
    merged, notes = merge_plans([one, two], SNAPSHOT)
    assert [a.text for a in merged.actions] == ["a", "b", "c"] and notes == []


def test_a_merge_without_evidence_dates_from_its_part():
    merge = {"kind": "merge", "survivor": "mem-2", "duplicates": ["mem-1"], "rationale": "same"}
    older = ChunkPlan(1, plan(merge), T0 + timedelta(minutes=90))  # its part's newest message is after "late"
    newer = ChunkPlan(2, plan(update("mem-1", "late", "aisle seat")), T0)
    merged, notes = merge_plans([older, newer], SNAPSHOT)
    assert [a.kind for a in merged.actions] == ["merge"] and "part 2's update of mem-1" in notes[0]
