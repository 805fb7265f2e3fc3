"""Helpers for integration tests that need a real Kafka (imported by tests/conftest.py).

`broker_bootstrap()` uses KAFKA_BOOTSTRAP_SERVERS when set (CI starts one broker for the whole
run), else starts or reuses a local broker on 127.0.0.1:19092 whose state lives in
`<repo>/.dreamstream/test-kafka`. That broker is left running for the next test run; stop it with
`python -m dreamstream_tools.local_kafka stop --home .dreamstream/test-kafka`.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from dreamstream.replay import REPLAY_PRODUCER
from dreamstream.topic_admin import ensure_topics
from dreamstream_tools import local_kafka
from schemas.settings import Settings

REPO_ROOT = Path(__file__).resolve().parents[2]
TEST_KAFKA_HOME = REPO_ROOT / ".dreamstream" / "test-kafka"
TEST_KAFKA_PORT = 19092


def broker_bootstrap() -> str:
    """Bootstrap servers of the Kafka the tests use (started on first use when none is configured)."""
    configured = os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
    if configured:
        return configured
    return local_kafka.start(TEST_KAFKA_HOME, port=TEST_KAFKA_PORT).bootstrap


def unique_settings(bootstrap: str, home: Path, **overrides: Any) -> Settings:
    """Settings with topic prefix, app id and consumer group of their own, and their topics created.

    `home` should be a per-test temporary directory (pytest's tmp_path). Defaults suit a test:
    2 partitions, a 6 s session timeout so a consumer group forms quickly."""
    unknown = set(overrides) - set(Settings.model_fields)
    if unknown:  # Settings ignores unknown keys, so a typo would silently test the default
        raise TypeError(f"Settings has no field(s) {sorted(unknown)}")
    suffix = uuid.uuid4().hex[:10]
    settings = Settings(
        **{
            "kafka_bootstrap_servers": bootstrap,
            "home": home,
            "topic_prefix": f"test-{suffix}",
            "app_id": f"test-app-{suffix}",
            "consumer_group": f"test-group-{suffix}",
            "partitions": 2,
            "session_timeout_ms": 6000,
            "trusted_producers": [REPLAY_PRODUCER],  # fixtures replayed by the test are the operator's data
            **overrides,
        }
    )
    ensure_topics(settings)
    return settings
