"""Both workers as the chart runs them — `dreamstream worker streams` and `dreamstream worker
consumers` as separate processes — driven through the CLI and read through the HTTP API."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from dreamstream.control import wait_until_read
from dreamstream_tools.pipeline import settings_env

pytestmark = pytest.mark.integration
AVA = "demo/travel-assistant/ava"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cli(settings, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    env = {**os.environ, **settings_env(settings)}
    return subprocess.run(
        [sys.executable, "-m", "dreamstream.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def get_json(url: str, token: str, attempts: int = 60) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    for _ in range(attempts):
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return json.loads(response.read())
        except (ConnectionError, urllib.error.URLError):
            time.sleep(0.5)
    raise AssertionError(f"nothing answered at {url}")


def test_two_worker_processes_dream_the_fixtures(make_settings, workers, tmp_path, fixtures_dir):
    api_port = free_port()
    settings = make_settings(api_port=api_port, api_token="test-token-0123456789", metrics_port=free_port())
    workers(settings.model_copy(update={"metrics_port": 0, "api_port": 0}), "streams")
    env = {**os.environ, **settings_env(settings)}
    with open(tmp_path / "consumers.log", "wb") as log:
        consumers = subprocess.Popen(
            [sys.executable, "-m", "dreamstream.cli", "worker", "consumers"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        ready = get_json(f"http://127.0.0.1:{api_port}/readyz", "test-token-0123456789")
        assert ready["store_reachable"]
        replay = cli(
            settings, "replay", str(fixtures_dir / "events.jsonl"), str(fixtures_dir / "memory_adds.jsonl"), "--json"
        )
        assert replay.returncode == 0, replay.stderr[-2000:]
        wait_until_read(settings, timeout_s=120)  # the trigger must not overtake the replay
        triggered = cli(settings, "trigger", AVA, "--wait", "--json")
        assert triggered.returncode == 0, triggered.stderr[-2000:]
        memories = get_json(f"http://127.0.0.1:{api_port}/scopes/{AVA}/memories", "test-token-0123456789")["memories"]
        texts = [m["text"] for m in memories]
        assert any("aisle" in t for t in texts) and not any("window" in t for t in texts)
        listed = cli(settings, "memories", "list", AVA, "--json", "--api", f"http://127.0.0.1:{api_port}")
        assert listed.returncode == 0, listed.stderr[-2000:]
    finally:
        consumers.terminate()
        consumers.wait(timeout=60)
    assert consumers.returncode == 0, (tmp_path / "consumers.log").read_text()[-3000:]


def test_kafka_status_json_names_the_local_broker(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "dreamstream.cli", "kafka", "status", "--json", "--port", "19999"],
        env={**os.environ, "DREAMSTREAM_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stderr
    status = json.loads(run.stdout)
    assert status["running"] is False and status["bootstrap"] == "127.0.0.1:19999"
