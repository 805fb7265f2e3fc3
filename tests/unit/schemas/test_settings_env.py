"""A child process started with settings_env() sees exactly the parent's settings."""

from __future__ import annotations

from pydantic import SecretStr

from dreamstream_tools.pipeline import settings_env
from schemas.policy import TriggerPolicy
from schemas.settings import Settings


def test_settings_survive_the_trip_through_the_environment(monkeypatch):
    original = Settings(
        partitions=3,
        trigger=TriggerPolicy(idle_s=5, threshold_messages=7),
        tenant_policies={"acme": {"cooldown_s": 1}},
        llm_api_key=SecretStr("sk-secret-value"),
    )
    for name, value in settings_env(original).items():
        monkeypatch.setenv(name, value)
    assert Settings() == original
