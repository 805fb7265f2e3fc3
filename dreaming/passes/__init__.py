"""The engine-agnostic phases of a dream pass: apply a plan, prune, gate.

Polars (the gather phase) runs on one thread here, set before any of these modules imports it
(polars sizes its pool once, at its first import): a pass's frames are one scope's window, tens
to a few thousand rows, and spreading each small operation over the cores cost more CPU than it
did (a fleet scope's gather, 20 messages: 16.8 ms CPU a pass with a pool of 2 threads, 10.9 ms with
1). An operator's own POLARS_MAX_THREADS wins.
"""

import os

os.environ.setdefault("POLARS_MAX_THREADS", "1")
