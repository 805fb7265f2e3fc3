"""The LLM engine: a model proposes the plan through litellm; the pass still checks every action."""

from dreaming.engine.llm.context import PromptLimits
from dreaming.engine.llm.engine import LlmEngine

__all__ = ["LlmEngine", "PromptLimits"]
