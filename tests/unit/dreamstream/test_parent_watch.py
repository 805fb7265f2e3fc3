"""A worker started with `--exit-with-parent PID` stops once its parent is not PID any more
(`dreamstream.parent_watch`), and keeps running while it is: real child processes, a short poll."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

WATCHING = (
    "import sys, time\n"
    "from dreamstream.parent_watch import exit_with_parent\n"
    "exit_with_parent(int(sys.argv[1]), poll_s=0.05)\n"
    "print('watching', flush=True)\n"
    "time.sleep(60)\n"
)


def start(parent_pid: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WATCHING, str(parent_pid)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        stdin=subprocess.DEVNULL,
    )


def test_a_worker_whose_parent_is_gone_stops_itself_with_sigterm() -> None:
    # Its parent is this process, never the pid it was told: as if that harness had died.
    child = start(parent_pid=os.getpid() + 1_000_000)
    assert child.wait(timeout=30) == -signal.SIGTERM


def test_a_worker_keeps_running_while_its_parent_lives() -> None:
    child = start(parent_pid=os.getpid())
    try:
        assert child.stdout is not None and child.stdout.readline() == "watching\n"
        time.sleep(0.5)  # ten polls
        assert child.poll() is None
    finally:
        child.kill()
        child.wait(timeout=30)
