"""The LLM engine: one model call per pass through litellm, plus one repair call when the first
reply is not a usable plan. Any provider litellm knows (OpenAI-compatible servers, ollama, ...)
works through `llm_model` / `llm_api_base`.

The model only proposes. Its plan is validated here (schema, ids it was shown) and then again by
the pass (apply and gate), so a model that obeys a prompt injection still cannot delete anything
it has no evidence for, or touch a protected memory.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import litellm
import openai
from litellm.exceptions import ModelNotMappedError

from consumers.embedding import make_embedder
from consumers.engine.base import Curated, EngineError, EngineResult, Search, Verified
from consumers.engine.llm.context import PromptContext, PromptLimits, select_context
from consumers.engine.llm.parse import InvalidReply, ModelRefused, ModelReply, parse_plan
from consumers.engine.llm.prompt import ChatMessage, build_messages, repair_messages
from consumers.engine.offline.verifier import verify_claims
from consumers.signals import Signals
from consumers.snapshot import Snapshot
from schemas import ActionPlan
from schemas.settings import Settings

litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banners in worker logs
log = logging.getLogger(__name__)


@dataclass
class _Spend:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


class LlmEngine:
    name = "llm"

    def __init__(self, settings: Settings, limits: PromptLimits | None = None) -> None:
        self._model = settings.llm_model
        self._api_base = settings.llm_api_base
        self._api_key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
        self._timeout_s = settings.llm_timeout_s
        self._retries = settings.llm_retries
        self._limits = limits or PromptLimits()
        self._embed = make_embedder(settings).embed

    def verify(
        self, snapshot: Snapshot, candidate: Curated, search: Search, *, top_k: int, max_claims: int
    ) -> Verified:
        """The offline engine's verifier (the same rules, no model call): a verify judged by the
        model is future work."""
        return verify_claims(snapshot, candidate, search, top_k=top_k, max_claims=max_claims, embed=self._embed)

    def propose(self, snapshot: Snapshot, signals: Signals) -> EngineResult:
        if not signals.has_signal:
            return EngineResult(
                plan=ActionPlan(), notes=("no signal in new messages or memory-adds: the model was not called",)
            )

        context = select_context(snapshot, self._limits, self._embed)
        spend = _Spend()
        notes = _context_notes(context)
        try:
            plan = self._plan(snapshot, signals, context, spend, notes)
        except EngineError as err:
            # The pass records only the reason; the spend of a failed pass is worth a log line.
            log.warning(
                "llm pass on %s failed after %d model calls (%d prompt + %d completion tokens, $%.6f): %s",
                snapshot.scope,
                spend.calls,
                spend.prompt_tokens,
                spend.completion_tokens,
                spend.cost_usd,
                err,
            )
            raise
        return EngineResult(
            plan=plan,
            motives=signals.motives,
            model_calls=spend.calls,
            prompt_tokens=spend.prompt_tokens,
            completion_tokens=spend.completion_tokens,
            cost_usd=spend.cost_usd,
            notes=tuple(notes),
        )

    def _plan(
        self, snapshot: Snapshot, signals: Signals, context: PromptContext, spend: _Spend, notes: list[str]
    ) -> ActionPlan:
        """One call; one repair call only when the first reply is not a usable plan."""
        messages = build_messages(snapshot, context, self._limits.max_text_chars, signals.motives)
        known_messages = frozenset(t.message_id for t in snapshot.transcript)
        reply = self._complete(messages, spend)
        try:
            return parse_plan(reply, memory_ids=context.memory_ids, message_ids=known_messages)
        except InvalidReply as first_problem:
            notes.append(f"first reply unusable ({first_problem}); asked the model once to repair it")
            reply = self._complete(repair_messages(messages, reply.content or "", str(first_problem)), spend)
        try:
            return parse_plan(reply, memory_ids=context.memory_ids, message_ids=known_messages)
        except InvalidReply as second_problem:
            raise InvalidReply(f"{second_problem} (still unusable after one repair call)") from second_problem

    def _complete(self, messages: list[ChatMessage], spend: _Spend) -> ModelReply:
        """One chat completion. Transport and provider failures become EngineError, so the pass
        fails with the reason and memory stays as it was."""
        spend.calls += 1
        try:
            response = litellm.completion(
                model=self._model,
                messages=messages,
                api_base=self._api_base,
                api_key=self._api_key,
                timeout=self._timeout_s,
                num_retries=self._retries,
                response_format={"type": "json_object"},
                temperature=0,
            )
        except litellm.exceptions.Timeout as err:
            raise EngineError(f"model call timed out after {self._timeout_s:g}s ({self._model})") from err
        except litellm.exceptions.ContentPolicyViolationError as err:
            raise EngineError(
                f"model refused: the provider's content policy blocked the request: {_first_line(err)}"
            ) from err
        except openai.OpenAIError as err:  # every litellm API exception derives from it
            raise EngineError(f"model call failed ({type(err).__name__}): {_first_line(err)}") from err
        self._record_usage(response, spend)
        if not response.choices:
            raise ModelRefused(f"model returned no choices ({self._model})")
        choice = response.choices[0]
        message = choice.message
        return ModelReply(
            content=message.content, finish_reason=choice.finish_reason, refusal=getattr(message, "refusal", None)
        )

    def _record_usage(self, response: Any, spend: _Spend) -> None:
        usage = getattr(response, "usage", None)
        spend.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
        spend.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        try:
            spend.cost_usd += float(litellm.completion_cost(completion_response=response, model=self._model) or 0.0)
        except (ModelNotMappedError, openai.NotFoundError, ValueError) as err:
            # a self-hosted or unlisted model has no price: the pass still counts its tokens
            log.debug("no price for %s: %s", self._model, err)


def _context_notes(context: PromptContext) -> list[str]:
    notes = [
        f"prompt: {len(context.new_message_ids)} new messages (+{len(context.messages) - len(context.new_message_ids)} "
        f"context), {len(context.pending_add_ids)} pending memory-adds, "
        f"{len(context.memories) - len(context.pending_add_ids)} of {context.memories_stored} stored memories"
    ]
    if context.new_messages_left_out:
        notes.append(f"{context.new_messages_left_out} older new messages did not fit the prompt and were not read")
    if context.pending_adds_left_out:
        notes.append(
            f"{context.pending_adds_left_out} older memory-adds did not fit the prompt; they are kept as written"
        )
    return notes


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0][:300] if text else type(err).__name__
