"""When a scope dreams: the trigger policy, with defaults and per-tenant overrides."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class TriggerPolicy(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    threshold_messages: int = Field(default=40, ge=1, description="turns + memory-adds since the last pass")
    threshold_signals: int = Field(default=3, ge=1, description="corrections + decisions + repeated entities")
    threshold_tokens: int = Field(
        default=8_000, ge=1, description="context pressure: estimated tokens since the last pass"
    )
    idle_s: float = Field(default=900.0, gt=0, description="quiet time after activity that ends a session")
    schedule_s: float = Field(
        default=86_400.0, ge=0, description="pass scopes active since their last pass this often; 0 = off"
    )
    cooldown_s: float = Field(default=60.0, ge=0, description="minimum time between automatic passes")
    inflight_timeout_s: float = Field(
        default=900.0, gt=0, description="after this a job with no outcome may be retried"
    )
    max_failures: int = Field(default=3, ge=1, description="consecutive failures before a scope is skipped")
