"""The LLM engine: a model proposes the plan through litellm; the pass still checks every action."""

import os

# litellm fetches a remote price list when imported unless told to use its bundled copy; a worker
# must not block (or fail) on that at start-up. An explicit setting in the environment still wins.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from consumers.engine.llm.context import PromptLimits  # noqa: E402
from consumers.engine.llm.engine import LlmEngine  # noqa: E402

__all__ = ["LlmEngine", "PromptLimits"]
