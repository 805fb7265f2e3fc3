"""The offline engine on the shared fixtures (its own scenarios, with other names and values so the
rules cannot be keyed on fixture ids: test_offline_scenarios.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from dreaming.engine.offline.assistant_notes import is_assistant_note, is_reported_speech
from language.dates import without_stamp
from schemas import CreateAction, MergeAction, SupersedeAction
from tests.unit.dreaming.engine.offline.engine_plans import created, of_kind, propose, targeted_ids
from tests.unit.snapshot_factory import FIXTURES, build_snapshot, fixture_snapshot, load_fixture_rows, turn_row

REPO = Path(__file__).resolve().parents[5]
AVA = "demo/travel-assistant/ava"
FALCON = "demo/research-assistant/team-falcon"
U7 = "demo/support-bot/u7"
ACME = "acme/support-bot/u1"
GLOBEX = "globex/support-bot/u1"
LEAD = "demo/strategy-assistant/lead"


@pytest.fixture(scope="module", autouse=True)
def fixtures_present() -> None:
    if not FIXTURES.exists():
        pytest.fail(f"fixtures not found at {FIXTURES}: the repo must be cloned with ../shared beside it")


# --- the shared fixtures -------------------------------------------------------------------------


def test_ava_window_is_superseded_by_aisle_citing_the_correction() -> None:
    result = propose(fixture_snapshot(AVA))
    [supersede] = [a for a in of_kind(result, SupersedeAction) if a.target == "ava-m1"]
    assert supersede.evidence_message_ids == ("ava-s2#2",)
    replacement = created(result, supersede.replacement)
    assert replacement.text == "Ava prefers aisle seats"
    # "prefers" is the old memory's word, "aisle" the correction's: the replacement cites both
    assert replacement.evidence_message_ids == ("ava-s1#0", "ava-s2#2")
    retired = targeted_ids(result)
    assert not any("window" in a.text for a in of_kind(result, CreateAction) if a.ref not in retired), (
        "what the plan itself wrote with the old value (her request, the assistant's confirmation) is retired too"
    )


def test_ava_vegetarian_and_no_meat_merge_into_the_older_memory() -> None:
    result = propose(fixture_snapshot(AVA))
    # The survivor keeps its wording, led by the day of the message the agent's note cites.
    assert of_kind(result, MergeAction) == [
        MergeAction(
            survivor="ava-m2",
            duplicates=("ava-m3",),
            text="[2026-03-02] Ava is vegetarian",
            rationale=of_kind(result, MergeAction)[0].rationale,
        )
    ]


def test_ava_flight_fact_gets_an_absolute_date_from_its_message() -> None:
    result = propose(fixture_snapshot(AVA))
    flight = [a for a in of_kind(result, CreateAction) if "flight to Lisbon" in a.text]
    assert [(a.text, a.evidence_message_ids) for a in flight] == [
        ("[2026-03-05] Ava's flight to Lisbon is on 2026-03-10 (next Tuesday).", ("ava-s2#0",))
    ], "the date it names, made absolute beside the words said, and the day it was said"


def test_ava_unmentioned_and_protected_memories_are_untouched() -> None:
    result = propose(fixture_snapshot(AVA))
    assert {i for i in targeted_ids(result) if not i.startswith("new-")} == {"ava-m1", "ava-m2", "ava-m3"}
    assert "ava-m4" not in targeted_ids(result) and "ava-profile" not in targeted_ids(result)


def test_ava_cited_messages_are_not_extracted_again() -> None:
    result = propose(fixture_snapshot(AVA))
    said_by_ava = [a for a in of_kind(result, CreateAction) if not is_assistant_note(a.text)]
    evidence = {i for a in said_by_ava for i in a.evidence_message_ids}
    # s1#2 and s2#4 (vegetarian, no meat) are what memory-adds already say; s1#0 is cited by one
    # too, but names the Berlin flight, which no add says.
    assert evidence == {"ava-s1#0", "ava-s2#0", "ava-s2#2"}


def test_ava_motives() -> None:
    motives = {m.kind: m.message_ids for m in propose(fixture_snapshot(AVA)).motives}
    assert motives["correction"] == ("ava-s2#2",)
    assert "memory_add" in motives


def test_falcon_decision_is_created_then_superseded_in_one_plan() -> None:
    result = propose(fixture_snapshot(FALCON))
    creates = {a.ref: a for a in of_kind(result, CreateAction)}
    postgres = [a for a in creates.values() if "PostgreSQL 16" in a.text]
    duckdb = [a for a in creates.values() if "DuckDB" in a.text]
    assert [a.evidence_message_ids for a in postgres] == [("falcon-s1#0",)]
    # the decision says the new fact in full: the memory made from it is the replacement
    assert [a.evidence_message_ids for a in duckdb] == [("falcon-s2#0",)]
    assert "switch the warehouse to DuckDB" in duckdb[0].text
    [supersede] = of_kind(result, SupersedeAction)
    assert (supersede.target, supersede.replacement) == (postgres[0].ref, duckdb[0].ref)
    assert supersede.evidence_message_ids == ("falcon-s2#0",)
    order = [getattr(a, "ref", None) or a.target for a in result.plan.actions]
    assert order.index(postgres[0].ref) < order.index(duckdb[0].ref)  # created before it is superseded


def test_falcon_deadline_and_owner() -> None:
    texts = {
        a.evidence_message_ids: without_stamp(a.text) for a in of_kind(propose(fixture_snapshot(FALCON)), CreateAction)
    }
    assert texts[("falcon-s1#2",)] == "Project Falcon's deadline is 2026-05-31 (the end of next month)."
    assert "Maria" in texts[("falcon-s2#2",)]


def test_falcon_motives_name_the_decisions_and_the_repeated_project() -> None:
    motives = {m.kind: m for m in propose(fixture_snapshot(FALCON)).motives}
    assert motives["decision"].message_ids == ("falcon-s1#0", "falcon-s2#0")
    assert "Project Falcon" in motives["repetition"].summary


def test_u7_router_fact_injection_noted_and_plan_memory_untouched() -> None:
    result = propose(fixture_snapshot(U7))
    router, advice = of_kind(result, CreateAction)
    assert "AX3000" in router.text and router.evidence_message_ids == ("u7-s1#0",)
    assert without_stamp(advice.text) == "The assistant recommended: Try channel 36."
    assert len(result.plan.actions) == 2  # nothing from the injection, nothing on u7-m1
    assert any("u7-s1#2" in note for note in result.notes)
    assert not any("u7-s1#2" in m.message_ids for m in result.motives)


@pytest.mark.parametrize(("scope", "mine", "theirs"), [(ACME, "green", "red"), (GLOBEX, "red", "green")])
def test_tenants_only_see_their_own_colour(scope: str, mine: str, theirs: str) -> None:
    [fact] = of_kind(propose(fixture_snapshot(scope)), CreateAction)
    assert without_stamp(fact.text) == f"The user's favourite colour is {mine}."
    assert theirs not in fact.text


def test_lead_three_complaints_are_one_motive_and_one_memory() -> None:
    result = propose(fixture_snapshot(LEAD))
    complaints = ("lead-s1#2", "lead-s1#5", "lead-s1#8")
    [motive] = [m for m in result.motives if m.kind == "dissatisfaction"]
    assert motive.message_ids == complaints
    made = of_kind(result, CreateAction)
    [memory] = [a for a in made if set(a.evidence_message_ids) & set(complaints)]
    assert "direction" in memory.text and memory.evidence_message_ids == complaints
    assert all(is_reported_speech(a.text) for a in made if a is not memory), "the rest: the user's requests, as asked"


def test_every_fixture_plan_passes_the_apply_step_and_a_replay_is_a_no_op() -> None:
    from dreaming.passes.apply import apply_plan

    events, _ = load_fixture_rows()
    for scope in dict.fromkeys(row["scope"] for row in events):
        snapshot = fixture_snapshot(scope)
        candidate = apply_plan(snapshot, propose(snapshot).plan)
        after = replace(
            snapshot,
            generation=1,
            pending_add_ids=frozenset(),
            memories=tuple(sorted(candidate.records.values(), key=lambda m: m.memory_id)),
        )
        again = propose(after)
        assert again.plan.actions == () and again.motives == (), scope


# --- no signal, determinism, performance-shaped inputs ------------------------------------------


def test_empty_transcript_and_no_pending_adds_is_an_empty_plan() -> None:
    result = propose(build_snapshot(AVA, [], []))
    assert result.plan.actions == () and result.motives == ()


def test_chit_chat_only_is_an_empty_plan_even_with_old_memories() -> None:
    scope = "test/helpdesk/nils"
    events = [
        turn_row(scope, "n1", 0, "user", "Hi there!", "2026-05-01T10:00:00+00:00"),
        turn_row(scope, "n1", 1, "assistant", "Hello! The weather is sunny.", "2026-05-01T10:00:05+00:00"),
        turn_row(scope, "n1", 2, "user", "Thanks, bye.", "2026-05-01T10:00:10+00:00"),
    ]
    adds = [
        {"scope": scope, "memory_id": "n-1", "text": "Nils is vegetarian", "ts": "2026-04-01T10:00:00+00:00"},
        {"scope": scope, "memory_id": "n-2", "text": "Nils does not eat meat", "ts": "2026-04-02T10:00:00+00:00"},
    ]
    result = propose(build_snapshot(scope, events, adds, pending=False))
    assert result.plan.actions == () and result.motives == ()


def test_same_snapshot_same_plan_across_processes() -> None:
    script = (
        "import json; from dreaming.engine.offline import OfflineEngine; "
        "from dreaming.passes.gather import gather; "
        "from tests.unit.snapshot_factory import fixture_snapshot; "
        f"s = fixture_snapshot({AVA!r}); r = OfflineEngine().propose(s, gather(s)); "
        "print(r.plan.model_dump_json()); print(json.dumps([m.model_dump() for m in r.motives]))"
    )
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, cwd=REPO, capture_output=True, text=True, check=True
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert propose(fixture_snapshot(AVA)).plan.model_dump_json() == next(iter(outputs)).splitlines()[0]
