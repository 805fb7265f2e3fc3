"""The dreaming core: a dream pass over one scope (`dream_pass.py`) and its phases (`passes/`), the engines
behind one interface (`engine/`), the Qdrant store (`store/`), the embedders (`embedding/`), the snapshot and
the signals a pass reads. Kafka-free: it imports no worker code (the consolidation worker in `consumers/`
drives it; `tests/unit/test_layers.py` checks the direction)."""

import os

# litellm (the LLM engine, the litellm embedder) fetches a remote price list when imported unless
# told to use its bundled copy; no process may block (or fail) on that. Set here, once, because
# every import of litellm is under this package; an explicit setting in the environment still wins.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
