"""Coverage, not a cap: a pass sends every new message to the model, in chunks that fit the
context, and joins the chunks' plans; the call budget leaves the rest for the next pass, whose
watermark says how far this one got. Real litellm, a real DreamPass, the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.llm_server import HttpError, Reply, ScriptedLlmServer
from tests.unit.dreaming.engine.llm.coverage_support import (
    LONG_SCOPE,
    blocks,
    llm_settings,
    long_turns,
    memory_runtime,
    new_ids,
    one_create_per_chunk,
)
from tests.unit.feed import Feed

pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*:UserWarning")  # pydantic noise from litellm's types


def _turns_mark(runtime, job_id: str) -> int:
    applied = runtime.memories.state(LONG_SCOPE).applied(job_id)
    assert applied is not None
    return applied.watermarks[runtime.settings.topics.turns]


def test_a_thousand_new_messages_all_reach_the_model_in_chunks(tmp_path: Path, llm: ScriptedLlmServer):
    settings = llm_settings(tmp_path, llm)
    llm.respond_with(one_create_per_chunk)
    turns = long_turns(1_000)
    with memory_runtime(settings) as rt:
        feed = Feed(rt, LONG_SCOPE)
        feed.turns(turns)

        result = rt.dream_pass.run(feed.job())

        assert result.status == "completed", result.reason
        shown = [new_ids(body) for body in llm.requests]
        assert len(shown) > 1, "a thousand messages do not fit one prompt of 6,000 tokens"
        flat = [i for ids in shown for i in ids]
        assert sorted(flat) == [t.message_id for t in turns], "every new message in exactly one prompt"
        budget = (settings.llm_context_tokens - settings.llm_reply_tokens) * settings.llm_chars_per_token
        assert all(sum(len(m["content"]) for m in body["messages"]) <= budget for body in llm.requests)
        assert all(body["max_tokens"] == settings.llm_reply_tokens for body in llm.requests)

        engine = result.engine
        assert engine is not None and engine.model_calls == len(llm.requests) and not engine.unread_message_ids
        created = [e for e in result.events[1:] if e.change == "created"]
        assert len(created) == len(llm.requests), "one memory per part: the plans were joined"
        assert len({e.after.text for e in created}) == len(created), "each part's ref made pass-wide"
        [entry] = rt.diary.entries(LONG_SCOPE)
        assert entry.model_calls == len(llm.requests) and entry.unread_messages == 0
        assert entry.prompt_tokens == sum(sum(len(m["content"]) for m in b["messages"]) // 3 for b in llm.requests)
        assert entry.completion_tokens == 40 * len(llm.requests) and entry.model_seconds > 0
        assert any(note.startswith(f"merge: {len(llm.requests)} parts joined") for note in entry.notes)
        assert _turns_mark(rt, "job-1") == 1_000, "everything read: the watermark is the job's"


def test_the_call_budget_leaves_the_rest_for_the_next_pass(tmp_path: Path, llm: ScriptedLlmServer):
    settings = llm_settings(tmp_path, llm, llm_max_calls_per_pass=3)
    llm.respond_with(one_create_per_chunk)
    turns = long_turns(400)
    order = [t.message_id for t in turns]
    with memory_runtime(settings) as rt:
        feed = Feed(rt, LONG_SCOPE)
        feed.turns(turns)
        read: list[list[str]] = []
        for number in range(1, 20):
            llm.requests.clear()
            result = rt.dream_pass.run(feed.job())
            assert result.status == "completed", result.reason
            assert 1 <= len(llm.requests) <= 3
            read.append([i for body in llm.requests for i in new_ids(body)])
            unread = result.engine.unread_message_ids
            if not unread:
                break
            first_unread = min(unread, key=order.index)
            assert read[-1][-1] < first_unread, "a pass reads a prefix of its new messages"
            assert _turns_mark(rt, f"job-{number}") == order.index(first_unread), "the watermark stops there"
            assert "new messages left for the next pass" in result.events[0].reason
            assert any("llm_max_calls_per_pass (3) reached" in note for note in result.notes)
        assert len(read) > 1, "400 messages need more than three parts of 6,000 tokens"
        flat = [i for ids in read for i in ids]
        assert flat == order, "pass after pass, every message read once and in order"


def test_a_later_part_that_fails_keeps_the_earlier_parts(tmp_path: Path, llm: ScriptedLlmServer):
    settings = llm_settings(tmp_path, llm)
    answers = iter([None, Reply(None, refusal="I will not read this part.")])

    def second_refuses(body):
        scripted = next(answers, None)
        return scripted if scripted is not None else one_create_per_chunk(body)

    llm.respond_with(second_refuses)
    with memory_runtime(settings) as rt:
        feed = Feed(rt, LONG_SCOPE)
        feed.turns(long_turns(300))

        result = rt.dream_pass.run(feed.job())

        assert result.status == "completed", result.reason
        assert len(llm.requests) == 2, "a refusal is not repaired, and the pass stops at it"
        first, second = (new_ids(b) for b in llm.requests)
        unread = result.engine.unread_message_ids
        assert set(second) <= unread and not set(first) & unread
        assert any("part 2 failed (model refused" in note for note in result.notes)
        assert [e.change for e in result.events[1:]] == ["created"], "part 1's plan stands"
        assert _turns_mark(rt, "job-1") == int(second[0][1:])


def test_a_refusal_of_the_first_part_fails_the_pass(tmp_path: Path, llm: ScriptedLlmServer):
    settings = llm_settings(tmp_path, llm)
    llm.refuse("No.")
    with memory_runtime(settings) as rt:
        feed = Feed(rt, LONG_SCOPE)
        feed.turns(long_turns(300))
        result = rt.dream_pass.run(feed.job())
        assert result.status == "failed" and "model refused" in result.reason
        assert rt.memories.state(LONG_SCOPE).active_generation == 0


def test_a_provider_without_structured_output_gets_json_mode(tmp_path: Path, llm: ScriptedLlmServer):
    settings = llm_settings(tmp_path, llm)
    llm.script(HttpError(400, "response_format json_schema is not supported by this model"))
    llm.respond_with(one_create_per_chunk)
    with memory_runtime(settings) as rt:
        feed = Feed(rt, LONG_SCOPE)
        feed.turns(long_turns(300))

        result = rt.dream_pass.run(feed.job())

        assert result.status == "completed", result.reason
        formats = [body["response_format"]["type"] for body in llm.requests]
        assert formats[0] == "json_schema" and set(formats[1:]) == {"json_object"} and len(formats) > 2
        assert new_ids(llm.requests[0]) == new_ids(llm.requests[1]), "the refused call is made again"
        assert "JSON Schema" not in llm.requests[0]["messages"][0]["content"], "the schema travels as the format"
        assert "JSON Schema" in llm.requests[1]["messages"][0]["content"], "... and in the prompt without it"
        assert any("JSON mode" in note for note in result.notes)


def test_a_prompt_the_model_finds_too_long_is_read_in_smaller_parts(tmp_path: Path, llm: ScriptedLlmServer):
    settings = llm_settings(tmp_path, llm)
    llm.script(HttpError(400, "This model's maximum context length is 4096 tokens. However, you requested 5900."))
    llm.respond_with(one_create_per_chunk)
    turns = long_turns(300)
    with memory_runtime(settings) as rt:
        feed = Feed(rt, LONG_SCOPE)
        feed.turns(turns)

        result = rt.dream_pass.run(feed.job())

        assert result.status == "completed", result.reason
        refused, *read = (new_ids(b) for b in llm.requests)
        assert len(read[0]) == len(refused) // 2, "the refused part is halved"
        assert sorted(i for ids in read for i in ids) == [t.message_id for t in turns]
        assert any("read again in smaller parts" in note for note in result.notes)


def test_a_later_part_sees_and_may_supersede_what_an_earlier_part_created(tmp_path: Path, llm: ScriptedLlmServer):
    """Parts are read in order; a create of part 1 that part 2 touches is in part 2's MEMORY block
    under its pass-wide ref, and part 2 may supersede it: the joined plan resolves the ref."""
    settings = llm_settings(tmp_path, llm)
    seen_created: list[list[dict]] = []

    def model(body):
        memories = blocks(body)["MEMORY"]
        seen_created.append([m for m in memories if m.get("created_this_pass")])
        first = new_ids(body)[0]
        if len(seen_created) == 1:
            plan = [
                {
                    "kind": "create",
                    "ref": "desk",
                    "text": "Batch tracking lives on the kanban board",
                    "evidence_message_ids": [first],
                    "rationale": "decided",
                }
            ]
        elif len(seen_created) == 2:
            earlier = seen_created[-1][0]["memory_id"]
            plan = [
                {
                    "kind": "create",
                    "ref": "desk",
                    "text": "Batch tracking moved to the shared drive",
                    "evidence_message_ids": [first],
                    "rationale": "moved",
                },
                {
                    "kind": "supersede",
                    "target": earlier,
                    "replacement": "desk",
                    "evidence_message_ids": [first],
                    "rationale": "newer",
                },
            ]
        else:
            plan = []
        return Reply(json.dumps({"actions": plan}))

    llm.respond_with(model)
    with memory_runtime(settings) as rt:
        feed = Feed(rt, LONG_SCOPE)
        feed.turns(long_turns(300))

        result = rt.dream_pass.run(feed.job())

        assert result.status == "completed", result.reason
        assert seen_created[0] == [] and [m["memory_id"] for m in seen_created[1]] == ["c1.desk"]
        changes = {(e.change, e.after.text) for e in result.events[1:]}
        assert ("superseded", "Batch tracking lives on the kanban board") in changes
        active = {m.text for m in rt.memories.active_records(LONG_SCOPE)}
        assert "Batch tracking moved to the shared drive" in active
        assert "Batch tracking lives on the kanban board" not in active
