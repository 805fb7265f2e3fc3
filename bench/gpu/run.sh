#!/usr/bin/env bash
# The LLM engine on a real open model, on a machine with a GPU: start an OpenAI-compatible server
# (vLLM by default, or llama.cpp's llama-server) on 127.0.0.1, run `dreamstream eval --engine llm`
# on the development sets, keep the tables and the JSON reports, stop the server. Not part of CI.
#
#   bench/gpu/run.sh                                   # vLLM, Qwen/Qwen2.5-7B-Instruct, both dev sets
#   MODEL=meta-llama/Llama-3.1-8B-Instruct bench/gpu/run.sh
#   SERVER=llamacpp GGUF=/models/qwen2.5-7b-instruct-q4_k_m.gguf bench/gpu/run.sh
#
# Settings (environment): MODEL, SERVER (vllm|llamacpp), GGUF (llamacpp), PORT (8000), CONTEXT
# (32768: the server's context and llm_context_tokens), REPLY (4000: llm_reply_tokens), SETS
# ("locomo beam"), DATA (../shared/eval beside the checkout), OUT (bench/gpu/out/<time>), MODE
# (--direct, or "" for the pipeline through a local Kafka), VENV (bench/gpu/.venv, for vLLM).
set -euo pipefail
cd "$(dirname "$0")/../.."

MODEL=${MODEL:-Qwen/Qwen2.5-7B-Instruct}
SERVER=${SERVER:-vllm}
PORT=${PORT:-8000}
CONTEXT=${CONTEXT:-32768}
REPLY=${REPLY:-4000}
SETS=${SETS:-locomo beam}
DATA=${DATA:-$PWD/../shared/eval}
OUT=${OUT:-$PWD/bench/gpu/out/$(date -u +%Y%m%dT%H%M%SZ)}
MODE=${MODE---direct}
VENV=${VENV:-$PWD/bench/gpu/.venv}
mkdir -p "$OUT"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total --format=csv | tee "$OUT/gpu.csv"

case "$SERVER" in
vllm)
    if [ ! -x "$VENV/bin/vllm" ]; then  # vLLM pulls torch: it lives in a venv of its own, never the project's
        python3 -m venv "$VENV"
        "$VENV/bin/pip" install -q "vllm>=0.6"
    fi
    "$VENV/bin/vllm" serve "$MODEL" --host 127.0.0.1 --port "$PORT" --served-model-name local \
        --max-model-len "$CONTEXT" >"$OUT/server.log" 2>&1 &
    ;;
llamacpp)
    : "${GGUF:?SERVER=llamacpp needs GGUF=/path/to/model.gguf}"
    command -v llama-server >/dev/null || { echo "llama-server (llama.cpp, built with CUDA) is not on PATH" >&2; exit 2; }
    MODEL=$(basename "$GGUF" .gguf)
    llama-server -m "$GGUF" --host 127.0.0.1 --port "$PORT" -c "$CONTEXT" -ngl 999 --alias local \
        >"$OUT/server.log" 2>&1 &
    ;;
*)
    echo "SERVER must be vllm or llamacpp, not $SERVER" >&2
    exit 2
    ;;
esac
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null || true' EXIT

# Loading a 7-8B model takes a few minutes (longer when its weights are fetched first).
for _ in $(seq 1 180); do
    if curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null; then break; fi
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "the server exited; see $OUT/server.log" >&2; exit 1; }
    sleep 5
done
curl -sf "http://127.0.0.1:$PORT/v1/models" >"$OUT/models.json" || { echo "no server after 15 minutes" >&2; exit 1; }

export LITELLM_LOCAL_MODEL_COST_MAP=True
export DREAMSTREAM_LLM_CONTEXT_TOKENS=$CONTEXT DREAMSTREAM_LLM_REPLY_TOKENS=$REPLY
export DREAMSTREAM_LLM_MAX_CALLS_PER_PASS=${MAX_CALLS:-400} DREAMSTREAM_LLM_TIMEOUT_S=${TIMEOUT_S:-600}
export DREAMSTREAM_HOME=${DREAMSTREAM_HOME:-$OUT/home}
for set in $SETS; do
    dir="$DATA/$set"
    adds=()
    [ -f "$dir/memory_adds.jsonl" ] && adds=(--memory-adds "$dir/memory_adds.jsonl")
    echo "== $set with $MODEL ($SERVER) $(uptime)" | tee "$OUT/$set.txt"
    # shellcheck disable=SC2086  # MODE is one flag or nothing
    dreamstream eval --events "$dir/events.jsonl" "${adds[@]}" --questions "$dir/questions.jsonl" \
        --engine llm --llm-base-url "http://127.0.0.1:$PORT/v1" --llm-model openai/local $MODE --json \
        >"$OUT/$set.json" 2>>"$OUT/$set.log"
    python3 - "$OUT/$set.json" <<'PY' | tee -a "$OUT/$set.txt"
import json, sys
report = json.load(open(sys.argv[1]))
from dreamstream_tools.evaluation.model_use import render_model_use
from dreamstream_tools.evaluation.report import render_table
print(render_table(report))
print(render_model_use(report["model_use"], "openai/local"))
PY
done
echo "reports in $OUT"
