"""The README's first command, as a newcomer runs it (pointed at the test broker)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration


def test_demo_json_prints_scopes_and_audit(kafka_bootstrap, tmp_path):
    env = {
        **os.environ,
        "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "DREAMSTREAM_HOME": str(tmp_path),
        "DREAMSTREAM_PARTITIONS": "2",
    }
    run = subprocess.run(
        [sys.executable, "-m", "dreamstream.cli", "demo", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout)
    assert set(result) == {"scopes", "audit"}
    ava = [m["text"] for m in result["scopes"]["demo/travel-assistant/ava"]]
    assert any("aisle" in t for t in ava) and not any("window" in t for t in ava)
    finished = [e for e in result["audit"] if e["type"] == "job"]
    assert {e["scope"] for e in finished} == set(result["scopes"]) and all(e["status"] != "failed" for e in finished)
    assert any(e["type"] == "memory" and e["change"] == "superseded" for e in result["audit"])


def test_demo_fails_with_one_clear_line_on_a_missing_file(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "dreamstream.cli", "demo", str(tmp_path / "nope.jsonl")],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode != 0 and "nope.jsonl" in run.stderr and "Traceback" not in run.stderr
