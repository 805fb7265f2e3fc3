"""What lands on the dead-letter topic: the original bytes, where they came from, and why."""

from __future__ import annotations

import base64
from typing import Literal

from pydantic import AwareDatetime, Field

from schemas.events import Contract


class DeadLetter(Contract):
    schema_version: Literal[1] = 1
    reason: str = Field(min_length=1)
    """Human-readable: which field is wrong and how."""
    error_type: str
    topic: str
    partition: int
    offset: int
    key: str | None
    value_b64: str
    """The original value bytes, base64, so nothing is lost even when they are not text."""
    value_preview: str = ""
    ts: AwareDatetime

    @staticmethod
    def encode(raw: bytes | None) -> str:
        return base64.b64encode(raw or b"").decode("ascii")

    def original_value(self) -> bytes:
        return base64.b64decode(self.value_b64)
