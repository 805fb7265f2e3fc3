"""Which process is the local broker, decided on the process that was started: its pid and its
start time, recorded in a pid file as it is launched (`local_kafka` uses this).

A process is "ours" while a process with that pid and that start time lives (a reused pid has
another start time); a child of this process is asked directly (`Popen.poll`). Never a read of a
command line: a process that has not exec'd the broker yet shows its launcher's. Only a pid file
written before start times were recorded falls back to the command line (`legacy_marker`).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


class PidFileError(RuntimeError):
    """The pid file holds something else than a process id."""


@dataclass(frozen=True)
class PidRecord:
    pid: int
    started: str | None
    """The process's start time as the system reports it (None: a pid file of an older version)."""


CHILDREN: dict[int, subprocess.Popen[bytes]] = {}
"""Processes this process launched, by pid: their exit is known from the process itself."""


def start_time(pid: int) -> str | None:
    """When process `pid` started (clock ticks since boot from /proc, else `ps`'s lstart), or
    None when there is no such live process."""
    if Path("/proc/self/stat").exists():
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except (FileNotFoundError, ProcessLookupError):
            return None
        fields = stat.rsplit(")", 1)[1].split()
        return None if fields[0] in ("Z", "X") else fields[19]  # state; starttime (field 22)
    result = subprocess.run(["ps", "-o", "stat=,lstart=", "-p", str(pid)], capture_output=True, text=True)
    line = result.stdout.strip()
    return None if not line or line.startswith("Z") else line.split(None, 1)[1]


def read_pid(pid_file: Path) -> PidRecord | None:
    try:
        text = pid_file.read_text().split()
    except FileNotFoundError:
        return None
    try:
        return PidRecord(int(text[0]), text[1] if len(text) > 1 else None)
    except (ValueError, IndexError):
        raise PidFileError(f"{pid_file} does not hold a process id; delete it") from None


def launch(command: list[str], log_file: Path, pid_file: Path) -> int:
    """Start `command` detached (its own session, stdin closed, output appended to `log_file`)
    and record its pid and start time at once: `Popen` returns once the program is exec'd, so the
    pid is the program's from the start."""
    pid_file.unlink(missing_ok=True)
    with log_file.open("ab") as log:
        child = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    CHILDREN[child.pid] = child
    started = start_time(child.pid)
    pid_file.write_text(f"{child.pid} {started}\n" if started else f"{child.pid}\n")
    return child.pid


def alive(record: PidRecord, legacy_marker: str) -> bool:
    """True while the process of this record runs (see the module docstring)."""
    child = CHILDREN.get(record.pid)
    if child is not None:
        return child.poll() is None
    started = start_time(record.pid)
    if started is None:
        return False
    if record.started is not None:
        return started == record.started
    return _legacy_command_line_has(record.pid, legacy_marker)


def _legacy_command_line_has(pid: int, marker: str) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except (FileNotFoundError, ProcessLookupError):
        cmdline = subprocess.run(["ps", "-o", "args=", "-p", str(pid)], capture_output=True, text=True).stdout
    return marker in cmdline


def send(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # it exited on its own meanwhile: that's the goal
        os.kill(pid, signum)


def wait_gone(record: PidRecord, legacy_marker: str, timeout_s: float) -> bool:
    """Wait until the process has exited (a child of ours is reaped: no zombie left)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not alive(record, legacy_marker):
            child = CHILDREN.pop(record.pid, None)
            if child is not None:
                child.wait()
            return True
        time.sleep(0.2)
    return False
