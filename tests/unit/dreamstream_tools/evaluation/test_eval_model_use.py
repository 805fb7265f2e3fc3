"""`dreamstream eval --engine llm`: the endpoint from the command line, and the model use per pass
read back from the diary (a direct run against the scripted OpenAI-compatible server)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dreamstream_tools.evaluation.dataset import load_dataset
from dreamstream_tools.evaluation.model_use import model_use, render_model_use, with_model
from dreamstream_tools.evaluation.runner import direct_run
from schemas.settings import Settings
from tests.llm_server import Reply, ScriptedLlmServer

pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*:UserWarning")  # pydantic noise from litellm's types
SCOPES = ("acme/helpdesk/rui", "acme/helpdesk/ines")


def _dataset(tmp_path: Path):
    turns = [
        {
            "scope": scope,
            "session_id": "S1",
            "message_id": f"{scope[-3:]}:{n}",
            "role": "user",
            "content": text,
            "ts": f"2026-02-0{n + 1}T10:00:00+00:00",
        }
        for scope in SCOPES
        for n, text in enumerate(["We decided to ship the beta on Friday.", "My desk moved to the third floor."])
    ]
    question = {"scope": SCOPES[0], "question": "Which floor?", "answer": "third floor", "category": "single_hop"}
    (tmp_path / "e.jsonl").write_text("".join(json.dumps(t) + "\n" for t in turns))
    (tmp_path / "q.jsonl").write_text(json.dumps(question) + "\n")
    return load_dataset(tmp_path / "e.jsonl", tmp_path / "q.jsonl")


def test_the_command_line_endpoint_replaces_the_configured_one():
    configured = Settings(llm_model="openai/gpt-4o-mini", llm_api_base=None, llm_api_key=None)
    local = with_model(configured, "http://127.0.0.1:8000/v1", "openai/qwen2.5-7b")
    assert (local.llm_api_base, local.llm_model) == ("http://127.0.0.1:8000/v1", "openai/qwen2.5-7b")
    assert local.llm_api_key is not None and local.llm_api_key.get_secret_value() == "none"
    assert with_model(configured, None, None) is configured


def test_model_use_per_pass_comes_from_the_diary(tmp_path: Path):
    with ScriptedLlmServer() as llm:
        llm.respond_with(lambda body: Reply('{"actions": []}', prompt_tokens=700, completion_tokens=9))
        base = Settings(home=tmp_path, embedder="hashing", llm_api_base=llm.url, llm_api_key="k", llm_retries=0)
        dataset = _dataset(tmp_path)
        with direct_run(dataset, with_model(base, None, "openai/test-model"), engine="llm") as run:
            use = model_use(run.runtime, dataset.scopes)
        calls = len(llm.requests)

    assert calls == 2 and use["passes"] == 2 and use["calls"] == calls, "one pass and one call per scope"
    assert (use["prompt_tokens"], use["completion_tokens"]) == (1_400, 18)
    assert use["per_pass"]["prompt_tokens"] == 700 and use["model_seconds"] >= 0
    assert {p["scope"] for p in use["pass_list"]} == set(SCOPES) and use["max_calls_in_a_pass"] == 1
    line = render_model_use(use, "openai/test-model")
    assert "2 passes, 2 calls (1.00 per pass" in line and "700 prompt + 9 completion" in line
