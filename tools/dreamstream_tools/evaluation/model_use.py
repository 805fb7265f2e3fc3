"""What the passes of an evaluation cost in model use: calls, tokens and seconds per pass, read
from the dream diary (the same figures the worker records for every pass), so the pipeline and
`--direct` runs report them alike. `--engine llm --llm-base-url URL` points the LLM engine at any
OpenAI-compatible server (vLLM, llama.cpp's server, the project's own `tools/model_server/`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import SecretStr

from consumers.runtime import Runtime
from schemas.settings import Settings

PASS_STATUSES = ("completed", "no-op", "failed", "quarantined")


def with_model(settings: Settings, base_url: str | None, model: str | None) -> Settings:
    """The settings with the LLM endpoint the command line gave (unset ones as configured)."""
    update: dict[str, Any] = {}
    if base_url:
        update["llm_api_base"] = base_url
        if settings.llm_api_key is None:  # a local server needs none, but litellm wants one
            update["llm_api_key"] = SecretStr("none")
    if model:
        update["llm_model"] = model
    return settings.model_copy(update=update) if update else settings


def model_use(runtime: Runtime, scopes: Iterable[str]) -> dict[str, Any]:
    """Totals and per-pass figures over every pass the diary holds for these scopes."""
    passes: list[dict[str, Any]] = [
        {
            "scope": entry.scope,
            "job_id": entry.job_id,
            "status": entry.status,
            "calls": entry.model_calls,
            "prompt_tokens": entry.prompt_tokens,
            "completion_tokens": entry.completion_tokens,
            "cost_usd": entry.cost_usd,
            "model_seconds": round(entry.model_seconds, 3),
            "pass_seconds": round(entry.pass_seconds, 3),
            "unread_messages": entry.unread_messages,
        }
        for scope in scopes
        for entry in runtime.diary.entries(scope)
        if entry.status in PASS_STATUSES
    ]
    count = len(passes)

    def total(key: str) -> float:
        return float(sum(p[key] for p in passes))

    def per_pass(key: str) -> float:
        return round(total(key) / count, 3) if count else 0.0

    model_seconds = total("model_seconds")
    return {
        "passes": count,
        "calls": int(total("calls")),
        "prompt_tokens": int(total("prompt_tokens")),
        "completion_tokens": int(total("completion_tokens")),
        "cost_usd": round(total("cost_usd"), 6),
        "model_seconds": round(model_seconds, 1),
        "per_pass": {k: per_pass(k) for k in ("calls", "prompt_tokens", "completion_tokens", "model_seconds")},
        "max_calls_in_a_pass": max((p["calls"] for p in passes), default=0),
        "completion_tokens_per_model_second": round(total("completion_tokens") / model_seconds, 2)
        if model_seconds
        else None,
        "unread_messages": int(total("unread_messages")),
        "pass_list": passes,
    }


def render_model_use(use: dict[str, Any], model: str) -> str:
    per = use["per_pass"]
    speed = use["completion_tokens_per_model_second"]
    lines = [
        f"model use ({model}): {use['passes']} passes, {use['calls']} calls "
        f"({per['calls']:.2f} per pass, at most {use['max_calls_in_a_pass']}); "
        f"tokens per pass {per['prompt_tokens']:.0f} prompt + {per['completion_tokens']:.0f} completion; "
        f"{per['model_seconds']:.1f} s of model time per pass"
        + (f" ({speed:.1f} completion tokens per model second)" if speed else "")
        + (f"; ${use['cost_usd']:.4f}" if use["cost_usd"] else "")
    ]
    if use["unread_messages"]:
        lines.append(f"{use['unread_messages']} new messages were left unread by call budgets (llm_max_calls_per_pass)")
    return "\n".join(lines)
