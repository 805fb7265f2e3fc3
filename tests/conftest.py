"""Shared fixtures. Integration tests talk to a real Kafka broker (KAFKA_BOOTSTRAP_SERVERS, or a
local one started on 127.0.0.1:19092) and to embedded Qdrant in a temporary directory."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

try:
    from dreamstream_tools.fixtures import FIXTURES_DIR as FIXTURES
except ModuleNotFoundError as err:  # the harness, the local broker and the fixtures path live there
    if err.name != "dreamstream_tools":
        raise
    raise ModuleNotFoundError(
        "the tests need the development tools as well: python3 -m pip install -e '.[dev]' -e ./tools", name=err.name
    ) from err

TESTS = Path(__file__).resolve().parent
SLOW_DIRS = (TESTS / "integration", TESTS / "chaos")
BROKER_FIXTURES = {"kafka_bootstrap", "make_settings", "workers"}


def pytest_collection_modifyitems(config, items) -> None:
    """The unit lane (`-m "not integration"`) must stay fast and broker-free whatever a test forgets
    to say: everything under integration/ and chaos/, and every test that asks for a broker or
    worker processes, is marked `integration` here."""
    for item in items:
        path = Path(str(item.path))
        if any(path.is_relative_to(d) for d in SLOW_DIRS) or BROKER_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    if not FIXTURES.exists():
        pytest.fail(f"fixtures not found at {FIXTURES}: the repo must be cloned with ../shared beside it")
    return FIXTURES


@pytest.fixture(scope="session")
def kafka_bootstrap() -> str:
    from tests.integration.kafka_env import broker_bootstrap

    return broker_bootstrap()


@pytest.fixture
def make_settings(kafka_bootstrap, tmp_path):
    """Settings with a private topic set (created) and a private embedded Qdrant."""
    from tests.integration.kafka_env import unique_settings

    def make(**overrides):
        return unique_settings(kafka_bootstrap, tmp_path, **overrides)

    return make


@pytest.fixture
def workers(tmp_path):
    """Start stream worker subprocesses (logs in tmp_path/<name>.log); all stopped afterwards."""
    started = []

    def start(settings, name: str):
        from dreamstream_tools.pipeline import start_stream_worker

        proc = start_stream_worker(settings, tmp_path / f"{name}.log")
        started.append(proc)
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
