"""A scripted OpenAI-compatible server, settings for the llm engine against it, a runtime on
embedded Qdrant, and a scope whose first generation holds the fixture's memory-adds."""

from __future__ import annotations

from pathlib import Path

import pytest

from consumers.runtime import Runtime, open_runtime  # noqa: E402
from dreaming.engine.llm import LlmEngine  # noqa: E402
from schemas.settings import Settings  # noqa: E402
from tests.llm_server import ScriptedLlmServer  # noqa: E402
from tests.unit.dreaming.engine.llm.support import EMPTY_PLAN, REQUESTED_AT, SCOPE, fixture_adds, fixture_turns
from tests.unit.feed import Feed


@pytest.fixture
def llm():
    with ScriptedLlmServer() as server:
        yield server


@pytest.fixture
def settings(tmp_path: Path, llm: ScriptedLlmServer) -> Settings:
    return Settings(
        home=tmp_path,
        engine="llm",
        llm_model="openai/test-model",
        llm_api_base=llm.url,
        llm_api_key="test-key",
        llm_timeout_s=1.0,
    )  # default llm_retries (1): litellm retries through tenacity


@pytest.fixture
def runtime(settings: Settings):
    rt = open_runtime(settings, engine=LlmEngine(settings))
    yield rt
    rt.close()


@pytest.fixture
def established(runtime: Runtime, llm: ScriptedLlmServer) -> Feed:
    """Generation 1 holds the fixture's memory-adds (session 1 read, and the session-2 message an
    add cites: an add citing a message not indexed yet would wait); session 2 is new, unread."""
    feed = Feed(runtime, SCOPE, REQUESTED_AT)
    adds = fixture_adds()
    cited = {m for a in adds for m in a.source_message_ids}
    feed.turns(fixture_turns("ava-s1") + [t for t in fixture_turns("ava-s2") if t.message_id in cited])
    runtime.transcripts.add_pending(adds)
    llm.reply(EMPTY_PLAN)
    assert runtime.dream_pass.run(feed.job()).status == "completed"
    feed.turns(fixture_turns("ava-s2"))
    llm.requests.clear()
    return feed
