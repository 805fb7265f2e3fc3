"""Both workers log a broker they cannot reach the same way (issue 17: the consolidation worker
wrote 214 ERROR lines in 60 s while the stream worker kept to one line per interval): one line
per `broker_retry_log_s` with the count of failed attempts, librdkafka's own lines at most once
per interval each, and the worker keeps running."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest

from dreamstream_tools.pipeline import settings_env

pytestmark = pytest.mark.integration

INTERVAL_S = 3.0
DOWN_S = 15.0


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("role", ["consumers", "streams"])
def test_an_unreachable_broker_is_one_line_per_interval_with_the_attempts(make_settings, tmp_path, role):
    settings = make_settings(embedder="hashing").model_copy(
        update={"kafka_bootstrap_servers": f"127.0.0.1:{_closed_port()}", "broker_retry_log_s": INTERVAL_S}
    )
    log_path = tmp_path / f"{role}.log"
    with open(log_path, "wb") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "dreamstream.cli", "worker", role],
            env={**os.environ, **settings_env(settings)},
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        deadline = time.monotonic() + 120  # start-up (imports, store) on a busy machine, then the outage
        while "unreachable for" not in log_path.read_text(errors="replace"):
            assert worker.poll() is None, log_path.read_text(errors="replace")[-3000:]
            assert time.monotonic() < deadline, log_path.read_text(errors="replace")[-3000:]
            time.sleep(0.5)
        time.sleep(DOWN_S)
        assert worker.poll() is None, "the worker keeps retrying"
    finally:
        worker.terminate()
        worker.wait(timeout=60)
    lines = [line for line in log_path.read_text(errors="replace").splitlines() if not line.startswith("|")]
    unreachable = [line for line in lines if "unreachable for" in line]
    assert "failed attempts so far" in unreachable[0], "\n".join(lines[-30:])
    assert len(unreachable) <= DOWN_S / INTERVAL_S + 2, unreachable
    errors = [line for line in lines if " ERROR " in line or " CRITICAL " in line]
    assert len(errors) <= 10, f"{len(errors)} ERROR lines in {DOWN_S:.0f} s: {errors[:5]}"
    kafka_lines = [line for line in lines if "rdkafka" in line]
    assert len(kafka_lines) <= 30, f"{len(kafka_lines)} librdkafka lines: {kafka_lines[:5]}"
