"""One chat completion through litellm, with structured output where the provider has it.

Each call asks for the chunk's plan schema (`response_format` json_schema). A provider that
refuses that (HTTP 400 naming the response format or schema) gets JSON mode (`json_object`) from
then on, and the engine's parse-and-repair path checks the reply either way. Transport and provider
failures become `EngineError`, so the pass fails with the reason and memory stays as it was; a
prompt over the model's context is `PromptTooLong`, which the engine answers with a smaller chunk.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import litellm
import openai
from litellm.exceptions import ModelNotMappedError

from dreaming.engine.base import EngineError
from dreaming.engine.llm.parse import ModelRefused, ModelReply
from dreaming.engine.llm.prompt import ChatMessage
from schemas.settings import Settings

litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banners in worker logs
log = logging.getLogger(__name__)
JSON_MODE = {"type": "json_object"}
Prompt = Callable[[bool], list[ChatMessage]]
_SCHEMA_WORDS = ("response_format", "json_schema", "schema")


class PromptTooLong(EngineError):
    """The provider says the prompt and the reply budget exceed the model's context."""


@dataclass
class Spend:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0
    """Wall seconds spent waiting for the model."""


class ModelClient:
    def __init__(self, settings: Settings) -> None:
        self.model = settings.llm_model
        self._api_base = settings.llm_api_base
        self._api_key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
        self._timeout_s = settings.llm_timeout_s
        self._retries = settings.llm_retries
        self._reply_tokens = settings.llm_reply_tokens
        self.structured = settings.llm_structured_output
        """False when switched off, or once the provider refused a json_schema response format:
        JSON mode from then on."""

    def complete(self, messages: Prompt, schema_format: dict[str, Any], spend: Spend) -> ModelReply:
        """`messages(structured)`: the chat messages for a call with (True) or without the schema
        as the response format."""
        if self.structured:
            try:
                return self._call(messages(True), schema_format, spend)
            except litellm.exceptions.BadRequestError as err:
                if isinstance(err, litellm.exceptions.ContextWindowExceededError) or not _about_schema(err):
                    raise self._failure(err) from err
                log.warning("%s refused structured output (%s): JSON mode from now on", self.model, _first_line(err))
                self.structured = False
            except openai.OpenAIError as err:
                raise self._failure(err) from err
        try:
            return self._call(messages(False), JSON_MODE, spend)
        except openai.OpenAIError as err:
            raise self._failure(err) from err

    def _call(self, messages: list[ChatMessage], response_format: dict[str, Any], spend: Spend) -> ModelReply:
        spend.calls += 1
        started = time.perf_counter()
        try:
            response = litellm.completion(
                model=self.model,
                messages=messages,
                api_base=self._api_base,
                api_key=self._api_key,
                timeout=self._timeout_s,
                num_retries=self._retries,
                response_format=response_format,
                max_tokens=self._reply_tokens,
                temperature=0,
            )
        finally:
            spend.seconds += time.perf_counter() - started
        self._record_usage(response, spend)
        if not response.choices:
            raise ModelRefused(f"model returned no choices ({self.model})")
        choice = response.choices[0]
        message = choice.message
        return ModelReply(
            content=message.content, finish_reason=choice.finish_reason, refusal=getattr(message, "refusal", None)
        )

    def _failure(self, err: Exception) -> EngineError:
        if isinstance(err, litellm.exceptions.ContextWindowExceededError):
            return PromptTooLong(f"prompt over the model's context ({self.model}): {_first_line(err)}")
        if isinstance(err, litellm.exceptions.Timeout):
            return EngineError(f"model call timed out after {self._timeout_s:g}s ({self.model})")
        if isinstance(err, litellm.exceptions.ContentPolicyViolationError):
            return EngineError(f"model refused: the provider's content policy blocked the request: {_first_line(err)}")
        # every litellm API exception derives from openai.OpenAIError
        return EngineError(f"model call failed ({type(err).__name__}): {_first_line(err)}")

    def _record_usage(self, response: Any, spend: Spend) -> None:
        usage = getattr(response, "usage", None)
        spend.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
        spend.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        try:
            spend.cost_usd += float(litellm.completion_cost(completion_response=response, model=self.model) or 0.0)
        except (ModelNotMappedError, openai.NotFoundError, ValueError) as err:
            # a self-hosted or unlisted model has no price: the pass still counts its tokens
            log.debug("no price for %s: %s", self.model, err)


def _about_schema(err: Exception) -> bool:
    text = str(err).lower()
    return any(word in text for word in _SCHEMA_WORDS)


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0][:300] if text else type(err).__name__
