"""The consolidation process runs polars on one thread (dreaming/passes/__init__.py)."""

import os
import subprocess
import sys

PROBE = "import dreaming.passes.gather, polars; print(polars.thread_pool_size())"


def _pool_size(env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_a_pass_process_sizes_the_polars_pool_at_one_thread():
    env = {k: v for k, v in os.environ.items() if k != "POLARS_MAX_THREADS"}
    assert _pool_size(env) == "1"


def test_an_operators_own_thread_count_wins():
    assert _pool_size({**os.environ, "POLARS_MAX_THREADS": "2"}) == "2"
