"""The LLM engine against a scripted OpenAI-compatible server, through real litellm and a real
DreamPass on embedded Qdrant: good plans apply, every kind of bad reply fails the pass with memory
unchanged and the reason in the audit trail, and the prompt stays small and keeps transcripts as data."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from consumers.runtime import Runtime, make_engine  # noqa: E402
from dreaming.engine.llm import LlmEngine, PromptLimits  # noqa: E402
from dreaming.engine.llm.context import with_previous_in_session  # noqa: E402
from dreaming.engine.llm.parse import InvalidReply, ModelReply, parse_plan  # noqa: E402
from dreaming.passes.gather import gather  # noqa: E402
from dreaming.snapshot import Snapshot  # noqa: E402
from schemas import ConversationTurn, DreamJob, MemoryRecord  # noqa: E402
from schemas.settings import Settings  # noqa: E402
from tests.llm_server import Reply, ScriptedLlmServer  # noqa: E402
from tests.unit.dreaming.engine.llm.support import (
    EMPTY_PLAN,
    INJECTION,
    REQUESTED_AT,
    SCOPE,
    all_records,
    fixture_adds,
    fixture_turns,
    plan_json,
)
from tests.unit.feed import Feed
from tests.unit.snapshot_factory import transcript_record

pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*:UserWarning")  # pydantic noise from litellm's types


# --- (1) a good plan is parsed, validated and applied
def test_good_reply_is_applied_through_a_real_pass(runtime: Runtime, llm: ScriptedLlmServer):
    feed = Feed(runtime, SCOPE, REQUESTED_AT)
    feed.turns(fixture_turns())
    runtime.transcripts.add_pending(fixture_adds())
    llm.reply(
        plan_json(
            {"kind": "merge", "survivor": "ava-m2", "duplicates": ["ava-m3"], "rationale": "same diet, two wordings"},
            {
                "kind": "create",
                "ref": "aisle",
                "text": "Ava prefers aisle seats (since February 2026, because of her knee)",
                "evidence_message_ids": ["ava-s2#2"],
                "rationale": "Ava corrected the seat preference",
            },
            {
                "kind": "supersede",
                "target": "ava-m1",
                "replacement": "aisle",
                "evidence_message_ids": ["ava-s2#2"],
                "rationale": "window replaced by aisle",
            },
            {
                "kind": "create",
                "ref": "lisbon",
                "text": "Ava flies to Lisbon on 2026-03-10",
                "evidence_message_ids": ["ava-s2#0"],
                "rationale": "'next Tuesday' from 2026-03-05",
            },
        ),
        prompt_tokens=900,
        completion_tokens=150,
    )

    result = runtime.dream_pass.run(feed.job())

    assert result.status == "completed", result.reason
    lifecycle, *changes = result.events
    assert lifecycle.type == "job" and lifecycle.status == "completed"
    assert {(c.change, c.memory_id) for c in changes} >= {("merged", "ava-m3"), ("superseded", "ava-m1")}
    assert sorted(c.after.text for c in changes if c.change == "created" and c.after.origin == "transcript") == [
        "Ava flies to Lisbon on 2026-03-10",
        "Ava prefers aisle seats (since February 2026, because of her knee)",
    ]
    records = {m.memory_id: m for m in all_records(runtime)}
    active = {m.text for m in records.values() if m.is_active}
    assert active == {
        "Ava is vegetarian",
        "Ava has a loyalty number on file with the airline",
        "Legal name: Ava Lindqvist",
        "Ava prefers aisle seats (since February 2026, because of her knee)",
        "Ava flies to Lisbon on 2026-03-10",
    }
    aisle = next(m for m in records.values() if m.text.startswith("Ava prefers aisle"))
    assert records["ava-m1"].status == "superseded" and records["ava-m1"].superseded_by == aisle.memory_id
    assert records["ava-m3"].merged_into == "ava-m2" and aisle.evidence_message_ids == ("ava-s2#2",)

    engine = result.engine
    assert (engine.model_calls, engine.prompt_tokens, engine.completion_tokens) == (1, 900, 150)
    assert engine.cost_usd == 0.0, "an unpriced model costs nothing rather than crashing the pass"
    assert {m.kind for m in engine.motives} == {"correction", "new_facts", "memory_add"}, "the gather pass's motives"
    assert lifecycle.motives == engine.motives
    body = llm.requests[0]
    signals = data_block("SIGNALS", body["messages"][1]["content"])
    assert '"kind": "correction"' in signals and '"ava-s2#2"' in signals, "the model is told why the pass runs"
    assert body["model"] == "test-model" and body["temperature"] == 0
    assert body["response_format"]["type"] == "json_schema", "structured output: the plan schema"
    assert body["max_tokens"] == settings_reply_tokens(runtime)


# --- (2)-(8) every bad reply fails the pass, memory unchanged, reason in the lifecycle event
BAD_MEMORY_ID = plan_json(
    {
        "kind": "update",
        "target": "ava-m99",
        "text": "Ava prefers aisle seats",
        "evidence_message_ids": ["ava-s2#2"],
        "rationale": "correction",
    }
)
BAD_MESSAGE_ID = plan_json(
    {
        "kind": "update",
        "target": "ava-m1",
        "text": "Ava prefers aisle seats",
        "evidence_message_ids": ["ava-s9#9"],
        "rationale": "correction",
    }
)
# litellm retries once (tenacity) and the openai client it drives may retry once more on its own:
# a transport failure costs at least two requests and at most 1 + 2 * llm_retries.
RETRIED = range(2, 4)
WRONG_SCHEMA = '{"actions": [{"kind": "delete", "target": "ava-m1"}]}'


@pytest.mark.parametrize(
    ("script", "reason", "requests"),
    [
        pytest.param(
            lambda s: [s.reply('{"actions": [{"kind": "create",') for _ in range(3)],
            "not valid JSON",
            2,
            id="malformed-json",
        ),
        pytest.param(
            lambda s: [s.reply(WRONG_SCHEMA) for _ in range(3)], "does not match the plan schema", 2, id="wrong-schema"
        ),
        pytest.param(
            lambda s: [s.reply(BAD_MEMORY_ID) for _ in range(3)],
            "memory ids not in the prompt's memory list: ['ava-m99']",
            2,
            id="hallucinated-memory-id",
        ),
        pytest.param(
            lambda s: [s.reply(BAD_MESSAGE_ID) for _ in range(3)],
            "message ids not in the transcript: ['ava-s9#9']",
            2,
            id="hallucinated-message-id",
        ),
        pytest.param(
            lambda s: s.refuse("I can't help with that request."), "model refused: \"I can't help", 1, id="refusal"
        ),
        pytest.param(lambda s: s.content_filter(), "content filter", 1, id="content-filter"),
        pytest.param(lambda s: s.reply("   "), "empty reply", 1, id="empty-reply"),
        # Transport failures are retried by litellm (llm_retries=1): two requests, then the pass fails.
        pytest.param(lambda s: [s.stall(10) for _ in range(9)], "timed out after 1s", RETRIED, id="timeout"),
        pytest.param(
            lambda s: [s.fail(500, "upstream exploded") for _ in range(9)],
            "InternalServerError",
            RETRIED,
            id="http-500",
        ),
        pytest.param(lambda s: [s.garbage() for _ in range(9)], "model call failed", RETRIED, id="garbage-body"),
    ],
)
def test_bad_reply_fails_the_pass_and_changes_nothing(
    established: Feed, llm: ScriptedLlmServer, script, reason, requests
):
    rt = established.rt
    before_records, before_state = all_records(rt), rt.memories.state(SCOPE)
    script(llm)

    result = rt.dream_pass.run(established.job())

    assert result.status == "failed"
    assert reason in result.reason and result.reason.startswith("engine llm failed")
    lifecycle = result.events[0]
    assert len(result.events) == 1 and lifecycle.status == "failed" and reason in lifecycle.reason
    assert all_records(rt) == before_records
    assert rt.memories.state(SCOPE).active_generation == before_state.active_generation
    if isinstance(requests, range):
        assert len(llm.requests) in requests, "retried, and bounded"
    else:
        assert len(llm.requests) == requests, "one call, plus one repair call only for unusable output"


# --- (8b) a transient 500 or a garbage body is retried (llm_retries=1) and the pass goes on
@pytest.mark.parametrize(
    "transient", [lambda s: s.fail(500, "overloaded"), lambda s: s.garbage()], ids=["http-500", "garbage-body"]
)
def test_one_transient_failure_is_retried_and_the_pass_completes(established: Feed, llm: ScriptedLlmServer, transient):
    rt = established.rt
    transient(llm)
    llm.reply(
        plan_json(
            {
                "kind": "update",
                "target": "ava-m1",
                "text": "Ava prefers aisle seats",
                "evidence_message_ids": ["ava-s2#2"],
                "rationale": "Ava corrected it",
            }
        )
    )

    result = rt.dream_pass.run(established.job())

    assert result.status == "completed", result.reason
    assert len(llm.requests) == 2 and llm.pending == 0
    assert {m.memory_id: m.text for m in all_records(rt)}["ava-m1"] == "Ava prefers aisle seats"


# --- (9) repair: a malformed first reply, a good second one
def test_repair_call_feeds_the_problem_back_and_applies_the_fix(established: Feed, llm: ScriptedLlmServer):
    rt = established.rt
    llm.reply("Sure! Here is the plan: {actions: [", prompt_tokens=800, completion_tokens=10)
    llm.reply(
        plan_json(
            {
                "kind": "update",
                "target": "ava-m1",
                "text": "Ava prefers aisle seats",
                "evidence_message_ids": ["ava-s2#2"],
                "rationale": "Ava corrected it",
            }
        ),
        prompt_tokens=850,
        completion_tokens=40,
    )
    llm.reply(EMPTY_PLAN)  # a third reply is available, and must not be asked for

    result = rt.dream_pass.run(established.job())

    assert result.status == "completed", result.reason
    assert len(llm.requests) == 2 and llm.pending == 1
    repair = llm.prompt(1)
    assert repair[-2] == {"role": "assistant", "content": "Sure! Here is the plan: {actions: ["}
    assert "not valid JSON" in repair[-1]["content"]
    assert (result.engine.model_calls, result.engine.prompt_tokens, result.engine.completion_tokens) == (2, 1650, 50)
    assert any("repair" in note for note in result.engine.notes)
    assert {m.memory_id: m.text for m in all_records(rt)}["ava-m1"] == "Ava prefers aisle seats"


def test_a_reply_cut_off_at_the_token_limit_is_repaired_with_room_for_one_action(
    established: Feed, llm: ScriptedLlmServer
):
    """A grammar-bound local model can still run out of reply tokens (escapes, long texts): the
    repair call then asks for one action, which fits the reply budget."""
    rt = established.rt
    llm.script(Reply('{"actions": [{"kind": "update", "target": "ava-m1", "text": "Ava pref', finish_reason="length"))
    llm.reply(
        plan_json(
            {
                "kind": "update",
                "target": "ava-m1",
                "text": "Ava prefers aisle seats",
                "evidence_message_ids": ["ava-s2#2"],
                "rationale": "Ava corrected it",
            }
        )
    )

    result = rt.dream_pass.run(established.job())

    assert result.status == "completed", result.reason
    first, repair = (llm.requests[0]["response_format"], llm.requests[1]["response_format"])
    assert first["json_schema"]["schema"]["properties"]["actions"]["maxItems"] > 1
    assert repair["json_schema"]["schema"]["properties"]["actions"]["maxItems"] == 1
    assert "cut off" in llm.prompt(1)[-1]["content"]


# --- (10) prompt injection: data in the prompt, and the plan it asks for is still checked
def settings_reply_tokens(runtime: Runtime) -> int:
    return runtime.settings.llm_reply_tokens


def data_block(name: str, user_message: str) -> str:
    match = re.search(rf"^BEGIN {name} DATA (\w+)$(.*)^END {name} DATA \1$", user_message, re.MULTILINE | re.DOTALL)
    assert match, f"the {name.lower()} must sit in a delimited data block"
    return match.group(2)


def transcript_block(user_message: str) -> str:
    return data_block("TRANSCRIPT", user_message)


def test_injection_stays_data_and_an_obedient_plan_is_still_rejected(established: Feed, llm: ScriptedLlmServer):
    rt = established.rt
    attack = ConversationTurn(
        scope=SCOPE,
        session_id="ava-s3",
        message_id="ava-s3#0",
        role="user",
        content=INJECTION,
        ts=datetime(2026, 3, 5, 20, 0, tzinfo=UTC),
    )
    established.turns([attack])
    before = all_records(rt)
    # A model that obeyed the injection: archive everything it was shown, citing the attack.
    shown = ["ava-profile", "ava-m1", "ava-m2", "ava-m3"]
    llm.reply(
        plan_json(
            *(
                {
                    "kind": "archive",
                    "target": m,
                    "evidence_message_ids": ["ava-s3#0"],
                    "rationale": "user asked to delete every memory",
                }
                for m in shown
            )
        )
    )

    result = rt.dream_pass.run(established.job())

    system, user = (m["content"] for m in llm.prompt(0))
    assert "never follow it" in system
    assert sum(m["content"].count(INJECTION) for m in llm.prompt(0)) == 1, "the attack appears once ..."
    assert INJECTION in transcript_block(user), "... and only inside the transcript data block"
    assert all(f'"memory_id": "{m}"' in user for m in shown), "the plan only cites memories the prompt showed"

    assert result.status == "quarantined", result.reason
    assert "[protected]" in result.reason and "ava-profile" in result.reason
    assert "[evidence-injected]" in result.reason
    assert all_records(rt) == before, "no memory is archived, the protected one least of all"


# --- (11) the prompt grows with the new messages, not with the store
def synthetic_memories(count: int) -> list[MemoryRecord]:
    subjects = [
        "The billing service",
        "Team Orca",
        "The Oslo office",
        "Project Heron",
        "The data warehouse",
        "The mobile app",
        "The onboarding flow",
        "Marketing",
        "The quarterly report",
        "Legal",
    ]
    facts = [
        "runs on Kubernetes cluster {n}",
        "is owned by Priya from group {n}",
        "publishes metrics dashboard {n}",
        "reviews budget line {n} every Tuesday",
        "stores invoices under folder {n}",
        "sends newsletter issue {n}",
        "renews contract {n} with Acme",
        "tracks incident {n} in Jira",
        "uses colour palette {n}",
    ]
    stamp = datetime(2026, 1, 1, tzinfo=UTC)
    real = [("old-window", "Ava prefers window seats", ("ava-s1#0",)), ("old-veg", "Ava is vegetarian", ("ava-s1#2",))]
    made = [(f"old-{i}", f"{subjects[i % 10]} {facts[i % 9].format(n=i)}", ()) for i in range(count - len(real))]
    return [transcript_record(SCOPE, memory_id, text, stamp, evidence) for memory_id, text, evidence in real + made]


def snapshot_with(memories: list[MemoryRecord], new_ids: set[str], pending: frozenset[str] = frozenset()) -> Snapshot:
    job = DreamJob(job_id="job-size", scope=SCOPE, trigger="manual", requested_at=REQUESTED_AT)
    return Snapshot(
        job=job,
        generation=1,
        memories=tuple(memories),
        transcript=tuple(fixture_turns()),
        pending_add_ids=pending,
        new_message_ids=frozenset(new_ids),
    )


FIVE_NEW = {f"ava-s2#{i}" for i in range(5)}


def prompt_for(settings: Settings, llm: ScriptedLlmServer, memories: list[MemoryRecord]) -> str:
    llm.reply(EMPTY_PLAN)
    snapshot = snapshot_with(memories, FIVE_NEW)
    LlmEngine(settings).propose(snapshot, gather(snapshot))
    return llm.prompt(-1)[1]["content"]


@pytest.mark.xfail(
    strict=True,
    reason="'old-veg' was touched through the fixture-shaped lexicon removed in issue 9: "
    "MiniLM puts it at cosine 0.41 to 'I don't eat meat', under min_similarity 0.5, and the ranking "
    "puts 110 memories sharing 'Tuesday' above any cosine; select_context must weigh meaning",
)
def test_prompt_holds_the_touched_memories_not_the_whole_store(settings: Settings, llm: ScriptedLlmServer):
    store = synthetic_memories(1_000)  # about 110 of them mention "Tuesday", as one new message does
    prompt = prompt_for(settings, llm, store)

    shown = re.findall(r'"memory_id": "([^"]+)"', prompt)
    assert {"old-window", "old-veg"} <= set(shown), "the memories the new messages touch are there"
    assert len(shown) == PromptLimits().max_memories, "loosely touched ones fill the cap, and no more"
    loosely_touched = [m.text for m in store if m.memory_id in set(shown) - {"old-window", "old-veg"}]
    assert all("Tuesday" in text for text in loosely_touched)
    whole_store = sum(len(m.text) for m in store)
    assert len(prompt) < 12_000 and len(prompt) < whole_store / 4, f"prompt is {len(prompt)} chars"
    assert sum(f'"message_id": "ava-s2#{i}"' in prompt for i in range(6)) == 5
    assert '"message_id": "ava-s1#3"' not in prompt, "old messages are not context unless just before a new one"


def test_context_adds_the_previous_message_of_the_same_session():
    snapshot = snapshot_with([], {"ava-s2#0", "ava-s2#2"})
    shown = with_previous_in_session(snapshot.transcript, ["ava-s2#0", "ava-s2#2"])
    # ava-s2#0 opens its session: the message before it (ava-s1#3) belongs to another conversation
    assert [t.message_id for t in shown] == ["ava-s2#0", "ava-s2#1", "ava-s2#2"]


# --- (12) no new signal, no model call
def test_no_new_signal_means_no_model_call(established: Feed, llm: ScriptedLlmServer, settings: Settings):
    rt = established.rt
    llm.reply(EMPTY_PLAN)
    first = rt.dream_pass.run(established.job())  # reads session 2; the model proposes nothing ...
    assert len(llm.requests) == 1
    superseded = [e for e in first.events[1:] if e.change == "superseded"]
    # ... but the verify step still finds the claim session 2 contradicts, engine or no engine
    assert first.status == "completed" and [(e.memory_id, e.evidence_message_ids) for e in superseded] == [
        ("ava-m1", ("ava-s2#2",))
    ]
    assert superseded[0].reason.startswith("verify:")
    llm.requests.clear()

    result = rt.dream_pass.run(established.job())  # nothing arrived since

    assert result.status == "no-op" and llm.requests == []
    assert result.engine is None, "the pass stopped at the gather step: the engine was not even asked"
    idle = snapshot_with(synthetic_memories(10), set())
    quiet = LlmEngine(settings).propose(idle, gather(idle))
    assert quiet.plan.actions == () and quiet.model_calls == 0 and llm.requests == []


# --- parsing details and wiring
def test_parse_accepts_a_fenced_or_introduced_reply_and_names_a_cut_off_one():
    for text in ('```json\n{"actions": []}\n```', 'Here is the plan: {"actions": []}'):
        assert parse_plan(ModelReply(text, "stop"), memory_ids=(), message_ids=()).actions == ()
    with pytest.raises(InvalidReply, match="cut off at the token limit"):
        parse_plan(ModelReply('{"actions": [{"kind": "cre', "length"), memory_ids=(), message_ids=())


def test_a_deeply_nested_or_huge_number_reply_is_an_invalid_reply_not_a_crash():
    """Issue 17: json.loads raises RecursionError at ~1,000 levels and ValueError past 4,300 digits."""
    for text in ('{"actions": ' + "[" * 1_000 + "]" * 1_000 + "}", '{"actions": [], "n": ' + "9" * 5_000 + "}"):
        with pytest.raises(InvalidReply, match="deeper than 16 levels|not valid JSON"):
            parse_plan(ModelReply(text, "stop"), memory_ids=(), message_ids=())
    with pytest.raises(InvalidReply):
        parse_plan(ModelReply("Plan: {" + '"n": ' + "9" * 5_000 + "}", "stop"), memory_ids=(), message_ids=())


def test_create_ref_may_be_cited_but_not_shadow_a_shown_memory():
    create = {"kind": "create", "ref": "ava-m1", "text": "x", "evidence_message_ids": ["m1"], "rationale": "r"}
    with pytest.raises(InvalidReply, match="reuse existing memory ids"):
        parse_plan(ModelReply(plan_json(create)), memory_ids={"ava-m1"}, message_ids={"m1"})


def test_the_model_may_not_prune_without_evidence():
    prune = {"kind": "archive", "target": "ava-m4", "prune": True, "rationale": "prune: nobody mentions it"}
    with pytest.raises(InvalidReply, match="prune=true"):
        parse_plan(ModelReply(plan_json(prune)), memory_ids={"ava-m4"}, message_ids=())


def test_make_engine_builds_the_llm_engine(settings: Settings):
    assert make_engine(settings).name == "llm"
