"""The consolidation side: workers, passes, engines, stores and embedders."""

import os

# litellm (the LLM engine, the litellm embedder) fetches a remote price list when imported unless
# told to use its bundled copy; no process may block (or fail) on that. Set here, once, because
# every import of litellm is under this package; an explicit setting in the environment still wins.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
