"""A scope is (tenant, agent, subject): the Kafka key everywhere and the unit of isolation."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, WithJsonSchema

_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@:+-]{0,127}")
"""One part of a scope; always used with `fullmatch` (`$` would also match before a trailing newline)."""


class ScopeError(ValueError):
    """A scope string that is not `tenant/agent/subject`."""


def parse_scope(value: str) -> tuple[str, str, str]:
    """Split `tenant/agent/subject`; every part must be a plain, non-empty identifier.

    Strict on purpose: tenant isolation rests on the first part, so nothing like
    `acme/../globex` or an empty tenant may ever pass.
    """
    if not isinstance(value, str):
        raise ScopeError(f"scope must be a string, got {type(value).__name__}")
    parts = value.split("/")
    if len(parts) != 3:
        raise ScopeError(f"scope {value!r} must have three parts: tenant/agent/subject")
    for name, part in zip(("tenant", "agent", "subject"), parts):
        if not _PART.fullmatch(part):
            raise ScopeError(f"scope {value!r}: {name} part {part!r} must be 1-128 chars of letters, digits or ._@:+-")
    return parts[0], parts[1], parts[2]


def tenant_of(scope: str) -> str:
    return parse_scope(scope)[0]


def _check(value: str) -> str:
    parse_scope(value)
    return value


_SCOPE_PATTERN = r"^(?:[A-Za-z0-9][A-Za-z0-9._@:+-]{0,127}/){2}[A-Za-z0-9][A-Za-z0-9._@:+-]{0,127}$"
"""For JSON Schema readers (ECMA regexes, where `$` is the end of input)."""

SCOPE_RE = re.compile(r"(?:[A-Za-z0-9][A-Za-z0-9._@:+-]{0,127}/){2}[A-Za-z0-9][A-Za-z0-9._@:+-]{0,127}")
"""A whole scope; use with `fullmatch`, never `match` or `search`."""

ScopeStr = Annotated[
    str,
    AfterValidator(_check),
    WithJsonSchema({"type": "string", "pattern": _SCOPE_PATTERN, "description": "tenant/agent/subject"}),
]
"""A validated scope string, for use in pydantic models."""
