"""A long scope for the coverage tests (sentences written for these tests), a runtime on an
in-memory Qdrant with the hashing embedder, and a scripted model that reads each prompt."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient

from consumers.runtime import Runtime, open_runtime
from dreaming.engine.llm import LlmEngine
from schemas import ConversationTurn
from schemas.settings import Settings
from tests.llm_server import Reply, ScriptedLlmServer

LONG_SCOPE = "acme/planner/long"
T0 = datetime(2026, 4, 1, 8, 0, tzinfo=UTC)
_TOOLS = ["spreadsheet", "kanban board", "wiki page", "shared drive", "calendar", "ticket queue"]
_COLOURS = ["teal", "amber", "violet", "crimson", "olive", "indigo", "coral"]
_BLOCK = re.compile(r"^BEGIN (\w+) DATA (\w+)$(.*?)^END \1 DATA \2$", re.MULTILINE | re.DOTALL)


def long_turns(count: int, scope: str = LONG_SCOPE) -> list[ConversationTurn]:
    """`count` messages in sessions of ten: the user states and decides things, the assistant answers."""
    turns = []
    for i in range(count):
        session, position = divmod(i, 10)
        tool, colour = _TOOLS[i % len(_TOOLS)], _COLOURS[i % len(_COLOURS)]
        if position % 2:
            role, content = "assistant", f"Understood, I noted the {tool} for batch {i - 1}."
        elif i % 4 == 0:
            role, content = "user", f"We decided to track batch {i} on the {tool}, labelled {colour}."
        else:
            role, content = "user", f"Batch {i} belongs to the {colour} group and its owner is desk {i % 13}."
        turns.append(
            ConversationTurn(
                scope=scope,
                session_id=f"s{session}",
                message_id=f"m{i:05d}",
                role=role,
                content=content,
                ts=T0 + timedelta(minutes=i),
            )
        )
    return turns


def blocks(body: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The data blocks of a request's user message, each as its JSON rows."""
    user = body["messages"][1]["content"]
    return {m.group(1): [json.loads(line) for line in m.group(3).strip().splitlines()] for m in _BLOCK.finditer(user)}


def new_ids(body: dict[str, Any]) -> list[str]:
    return [row["message_id"] for row in blocks(body)["TRANSCRIPT"] if row["new"]]


def one_create_per_chunk(body: dict[str, Any]) -> Reply:
    """A model that writes one memory per request, citing the first new message it was shown."""
    first = new_ids(body)[0]
    plan = {
        "actions": [
            {
                "kind": "create",
                "ref": "fact",
                "text": f"Batch record {first} was read",
                "evidence_message_ids": [first],
                "rationale": "one fact per part",
            }
        ]
    }
    chars = sum(len(m["content"]) for m in body["messages"])
    return Reply(json.dumps(plan), prompt_tokens=chars // 3, completion_tokens=40)


def llm_settings(home: Path, llm: ScriptedLlmServer, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "home": home,
        "engine": "llm",
        "embedder": "hashing",
        "llm_model": "openai/test-model",
        "llm_api_base": llm.url,
        "llm_api_key": "test-key",
        "llm_timeout_s": 5.0,
        "llm_retries": 0,
        "llm_context_tokens": 6_000,
        "llm_reply_tokens": 1_000,
        "llm_max_calls_per_pass": 1_000,
    }
    return Settings(**(values | overrides))


@contextmanager
def memory_runtime(settings: Settings) -> Iterator[Runtime]:
    """The real stores on an in-memory Qdrant: a thousand turns index in a second."""
    runtime = open_runtime(settings, engine=LlmEngine(settings), client=QdrantClient(location=":memory:"))
    try:
        yield runtime
    finally:
        runtime.close()
