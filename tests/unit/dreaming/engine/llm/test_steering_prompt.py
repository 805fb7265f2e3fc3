"""The LLM engine puts the job's steering in its prompt as the operator's words: a system message
of its own, apart from the DATA blocks (against the scripted OpenAI-compatible server)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from schemas import Steering
from tests.llm_server import ScriptedLlmServer
from tests.unit.dreaming.engine.llm.support import EMPTY_PLAN
from tests.unit.feed import Feed

pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*:UserWarning")  # pydantic noise from litellm's types
SET_AT = datetime(2026, 3, 1, tzinfo=UTC)


def test_the_prompt_carries_the_tenant_and_scope_steering_as_the_operators_words(
    established: Feed, llm: ScriptedLlmServer
):
    llm.reply(EMPTY_PLAN)
    job = established.job().model_copy(
        update={
            "tenant_steering": Steering(text="Keep loyalty programmes exact.", by="ops-ines", set_at=SET_AT),
            "scope_steering": Steering(text="Drop chatter about the weather.", by="ops-joao", set_at=SET_AT),
        }
    )
    assert established.rt.dream_pass.run(job).status in ("completed", "no-op")
    messages = llm.prompt()
    steering = [m for m in messages if m["role"] == "system" and "Steering from the operator" in m["content"]]
    assert len(steering) == 1 and messages.index(steering[0]) == 1, "right after the rules, before any data"
    text = steering[0]["content"]
    assert "- for the whole tenant (set by ops-ines): Keep loyalty programmes exact." in text
    assert "- for this scope (set by ops-joao): Drop chatter about the weather." in text
    user = next(m["content"] for m in messages if m["role"] == "user")
    assert "loyalty programmes exact" not in user, "never inside the transcript's blocks"


def test_without_steering_the_prompt_has_no_steering_message(established: Feed, llm: ScriptedLlmServer):
    llm.reply(EMPTY_PLAN)
    established.rt.dream_pass.run(established.job())
    assert not any("Steering from the operator" in m["content"] for m in llm.prompt())
