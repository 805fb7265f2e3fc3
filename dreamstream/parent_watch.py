"""A worker started by a local harness (the demo, the eval, the tests) stops when the harness is gone.

The harness stops its workers on the way out, but a harness killed with SIGKILL runs no way out,
and one stopped by a signal in the instant it is starting a worker never learns that worker's pid:
either leaves a worker retrying a broker that is gone, forever. `--exit-with-parent PID` makes the
worker watch for it: once its parent is no longer PID (the harness is dead and the worker was handed
to init), it sends itself SIGTERM and stops as an operator's `kill` would stop it. A worker run by
a supervisor (Kubernetes, systemd) is started without it.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time

log = logging.getLogger(__name__)

POLL_S = 1.0


def exit_with_parent(parent_pid: int | None, poll_s: float = POLL_S) -> None:
    """Watch in a daemon thread; nothing when `parent_pid` is None."""
    if parent_pid is None:
        return

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(poll_s)
        log.warning("the process that started this worker (pid %d) is gone: stopping", parent_pid)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
