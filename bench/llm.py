"""What the LLM engine sends per pass as a scope grows: calls and prompt tokens against new
messages (40, 400, 4,000) and against stored memories (10 ... 5,000), on the scripted
OpenAI-compatible server (fast, replies an empty plan), plus one small cell on the real model
(SmolLM2-135M behind tools/model_server, one thread).

    python -m bench.llm              # both grids and the real-model cell (a few minutes on 2 cores)
    python -m bench.llm --no-real    # the scripted grids only (no Node, no weights)

Scopes are `bench.dream.make_scope` (deterministic, seeded): 100 old messages before the new ones,
two pending memory-adds, stored memories about one project each. Prompt tokens are counted on the
requests the engine sent with litellm's token counter (cl100k, as gpt-4o-mini counts them); the real
model's are its own tokenizer's (its floor is still cl100k, so its ratio mixes the two). Beside each
figure: the **floor**, the tokens of the new messages' and memory-adds' own rows alone (what any
engine must send to read them once), and the ratio prompt / floor (the system prompt, context
messages and memories on top). "Per consolidated message" divides the prompt tokens by the new
messages plus memory-adds the pass read. The engine runs with the defaults (`llm_context_tokens`
16,000, `llm_reply_tokens` 4,000, `llm_max_calls_per_pass` raised so that every cell reads
everything) and the hashing embedder (the MiniLM one only changes which memories are ranked first).
CPU seconds are the engine's own (chunking, ranking, parsing), beside wall seconds. The load average
is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # `tests.llm_server` lives in the repo, not the package
    sys.path.insert(0, str(REPO_ROOT))

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench.dream import make_scope  # noqa: E402
from dreaming.engine.llm import LlmEngine  # noqa: E402
from dreaming.engine.llm.prompt import data_line, memory_row, message_row  # noqa: E402
from dreaming.passes.gather import gather  # noqa: E402
from dreaming.snapshot import Snapshot  # noqa: E402
from schemas.settings import Settings  # noqa: E402
from tests.llm_server import Reply, ScriptedLlmServer  # noqa: E402

OLD_MESSAGES = 100
NEW_SIZES = (40, 400, 4_000)
MEMORY_SIZES = (10, 100, 1_000, 5_000)
FIXED_MEMORIES = 100
FIXED_NEW = 40
FIGURES: dict[str, Any] = {}


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def count_tokens(messages: list[dict[str, str]]) -> int:
    import litellm

    return int(litellm.token_counter(model="gpt-4o-mini", messages=messages))


def floor_tokens(snapshot: Snapshot) -> int:
    """The rows of the new messages and memory-adds alone, counted like a prompt."""
    rows = [
        message_row(t, new=True, max_chars=2_000)
        for t in snapshot.transcript
        if t.message_id in snapshot.new_message_ids
    ]
    rows += [
        memory_row(m, pending_add=True, created=False, max_chars=2_000)
        for m in snapshot.memories
        if m.memory_id in snapshot.pending_add_ids
    ]
    return count_tokens([{"role": "user", "content": "\n".join(data_line(r) for r in rows)}])


def cell(engine: LlmEngine, server: ScriptedLlmServer | None, n_memories: int, n_new: int) -> dict[str, Any]:
    snapshot = make_scope(n_memories, OLD_MESSAGES + n_new, n_new)
    if server is not None:
        server.requests.clear()
    wall, cpu = time.perf_counter(), time.process_time()
    result = engine.propose(snapshot, gather(snapshot))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    read = n_new + len(snapshot.pending_add_ids) - len(result.unread_message_ids)
    if server is not None:
        prompt = sum(count_tokens(body["messages"]) for body in server.requests)
    else:
        prompt = result.prompt_tokens
    floor = floor_tokens(snapshot)
    shown = [n for n in result.notes if n.startswith("prompt part")]
    return {
        "memories": n_memories,
        "new_messages": n_new,
        "calls": result.model_calls,
        "parts": len(shown),
        "prompt_tokens": prompt,
        "completion_tokens": result.completion_tokens,
        "floor_tokens": floor,
        "ratio_to_floor": round(prompt / floor, 2) if floor else None,
        "prompt_tokens_per_consolidated_message": round(prompt / read, 1) if read else None,
        "unread": len(result.unread_message_ids),
        "engine_cpu_s": round(cpu, 3),
        "wall_s": round(wall, 2),
        "model_seconds": round(result.model_seconds, 2),
    }


def show(row: dict[str, Any]) -> None:
    print(
        f"  {row['memories']:>5} memories, {row['new_messages']:>5} new: {row['calls']:>3} calls, "
        f"{row['prompt_tokens']:>8,} prompt tokens ({row['prompt_tokens_per_consolidated_message']:>6} per "
        f"consolidated message; floor {row['floor_tokens']:,}, x{row['ratio_to_floor']}), "
        f"engine {row['engine_cpu_s']:.2f} s CPU, "
        f"{row['wall_s']:.2f} s wall" + (f", {row['unread']} unread" if row["unread"] else ""),
        flush=True,
    )


def scripted(home: Path) -> None:
    with ScriptedLlmServer() as server:
        server.respond_with(lambda body: Reply('{"actions": []}', prompt_tokens=0, completion_tokens=5))
        settings = Settings(
            home=home,
            engine="llm",
            embedder="hashing",
            llm_model="openai/bench-model",
            llm_api_base=server.url,
            llm_api_key="bench",
            llm_retries=0,
            llm_max_calls_per_pass=1_000,
        )
        engine = LlmEngine(settings)
        print(f"== scripted server: new messages grow ({FIXED_MEMORIES} stored memories); {load()}", flush=True)
        FIGURES["new_messages_grow"] = rows = [cell(engine, server, FIXED_MEMORIES, n) for n in NEW_SIZES]
        for row in rows:
            show(row)
        print(f"== scripted server: stored memories grow ({FIXED_NEW} new messages); {load()}", flush=True)
        FIGURES["memories_grow"] = rows = [cell(engine, server, m, FIXED_NEW) for m in MEMORY_SIZES]
        for row in rows:
            show(row)


def real_model(home: Path) -> None:
    from dreamstream_tools.model_server import MODEL_NAME, ModelServer, ensure_node_packages, ensure_weights

    weights = ensure_weights()
    ensure_node_packages()
    print(f"== real model ({MODEL_NAME}, one thread): 10 memories, 40 new messages; {load()}", flush=True)
    with ModelServer(weights, threads=1) as server:
        settings = Settings(
            home=home,
            engine="llm",
            embedder="hashing",
            llm_model=MODEL_NAME,
            llm_api_base=server.url,
            llm_api_key="local",
            llm_timeout_s=900,
            llm_retries=0,
            llm_context_tokens=8_192,
            llm_reply_tokens=600,
        )
        row = cell(LlmEngine(settings), None, 10, FIXED_NEW)
    row["completion_tokens_per_model_second"] = (
        round(row["completion_tokens"] / row["model_seconds"], 2) if row["model_seconds"] else None
    )
    FIGURES["real_model"] = row
    show(row)
    print(
        f"  the model: {row['completion_tokens']} completion tokens in {row['model_seconds']:.1f} s of calls "
        f"({row['completion_tokens_per_model_second']} per second, prompt reading included); "
        f"prompt tokens by its own tokenizer; {load()}",
        flush=True,
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-real", action="store_true", help="skip the real-model cell")
    args = parser.parse_args(argv)
    home = Path(tempfile.mkdtemp(prefix="bench-llm-"))
    began = time.perf_counter()
    scripted(home)
    if not args.no_real:
        real_model(home)
    FIGURES["total_wall_s"] = round(time.perf_counter() - began, 1)
    print(f"== done in {FIGURES['total_wall_s']:.0f} s; {load()}", flush=True)
    print(json.dumps(FIGURES), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
