"""Reading a request: the scope in the path, query parameters, JSON bodies. Every refusal is a
`BadRequest` naming what is wrong, answered as a 400."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from schemas import parse_scope


class BadRequest(ValueError):
    pass


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response({"error": message}, status=status, headers=headers)


def scope_of(request: web.Request) -> str:
    m = request.match_info
    scope = f"{m['tenant']}/{m['agent']}/{m['subject']}"
    parse_scope(scope)
    return scope


def query_params(request: web.Request, *allowed: str) -> dict[str, str]:
    """The query parameters, refusing unknown, repeated and empty ones: `?tenant[]=acme`,
    `?tenant=a&tenant=b` or `?tenant=` must not quietly mean "every tenant" or "one of them"."""
    query = request.query
    unknown = sorted(set(query) - set(allowed))
    if unknown:
        hint = f" (allowed: {', '.join(allowed)})" if allowed else " (this route takes none)"
        raise BadRequest(f"unknown query parameter {unknown[0]!r}{hint}")
    repeated = sorted(name for name in set(query) if len(query.getall(name)) > 1)
    if repeated:
        raise BadRequest(f"query parameter {repeated[0]!r} given more than once")
    empty = sorted(name for name, value in query.items() if not value.strip())
    if empty:
        raise BadRequest(f"query parameter {empty[0]!r} is empty: leave it out or give it a value")
    return dict(query)


def int_param(params: dict[str, str], name: str, low: int = 0, high: int | None = None) -> int | None:
    raw = params.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"{name} must be an integer, got {raw!r}") from None
    if value < low or (high is not None and value > high):
        raise BadRequest(
            f"{name} must be between {low} and {high}" if high is not None else f"{name} must be at least {low}"
        )
    return value


_DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")


def time_param(params: dict[str, str], name: str) -> datetime | None:
    """An ISO-8601 time with its zone (`2026-03-05T10:00:00Z`), or a date (midnight UTC)."""
    raw = params.get(name, "")
    if raw == "":
        return None
    try:
        value = datetime.fromisoformat(raw)
    except ValueError:
        raise BadRequest(f"{name} must be an ISO-8601 time such as 2026-03-05T10:00:00Z, got {raw!r}") from None
    if value.tzinfo is None:
        if not _DATE_ONLY.fullmatch(raw):
            raise BadRequest(f"{name} must name its time zone (e.g. a trailing Z), got {raw!r}")
        value = value.replace(tzinfo=UTC)
    return value


def page_cursor(raw: str) -> tuple[int, int]:
    """A list cursor as the API gave it out: `generation:offset`."""
    generation, _, offset = raw.partition(":")
    if not (generation.isdigit() and offset.isdigit()):
        raise BadRequest(f"cursor {raw!r} is not one this API gave out")
    return int(generation), int(offset)


def bool_param(params: dict[str, str], name: str) -> bool:
    raw = params.get(name, "").lower()
    if raw in ("", "0", "false", "no"):
        return False
    if raw in ("1", "true", "yes"):
        return True
    raise BadRequest(f"{name} must be true or false, got {raw!r}")


async def decision_body(request: web.Request, *optional: str) -> dict[str, Any]:
    """`{"by": who, "reason": why, ...}`: a decision always says who made it and why."""
    try:
        body = await request.json() if request.can_read_body else None
    except ValueError:
        raise BadRequest('the body must be JSON: {"by": "...", "reason": "..."}') from None
    if not isinstance(body, dict):
        raise BadRequest('the body must be a JSON object: {"by": "...", "reason": "..."}')
    unknown = sorted(set(body) - {"by", "reason", *optional})
    if unknown:
        raise BadRequest(f"unknown field {unknown[0]!r}")
    for name in ("by", "reason"):
        if not isinstance(body.get(name), str) or not body[name].strip():
            raise BadRequest(f"{name} is required (a non-empty string)")
    return body


async def trigger_reason(request: web.Request) -> str:
    """The optional `{"reason": "..."}` body of a trigger (default "manual")."""
    if not request.can_read_body:
        return "manual"
    try:
        body = await request.json()
    except ValueError:  # not JSON, or not UTF-8
        raise BadRequest('the body must be JSON: {"reason": "..."}') from None
    reason = body.get("reason", "manual") if isinstance(body, dict) else None
    if not isinstance(reason, str):
        raise BadRequest("reason must be a string")
    return reason


async def json_fields(
    request: web.Request, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A JSON object body with these fields: an unknown field, a missing one, or a body that is
    not a JSON object is a BadRequest naming it."""
    shape = "{" + ", ".join(f'"{name}": ...' for name in required) + "}"
    try:
        body = await request.json() if request.can_read_body else None
    except ValueError:  # not JSON, or not UTF-8
        raise BadRequest(f"the body must be JSON: {shape}") from None
    if not isinstance(body, dict):
        raise BadRequest(f"the body must be a JSON object: {shape}")
    unknown = sorted(set(body) - {*required, *optional})
    if unknown:
        allowed = ", ".join((*required, *optional))
        raise BadRequest(f"unknown field {unknown[0]!r} (allowed: {allowed})")
    missing = [name for name in required if name not in body]
    if missing:
        raise BadRequest(f"{missing[0]} is required")
    return body


def text_field(body: dict[str, Any], name: str, *, blank_ok: bool = False) -> str:
    value = body.get(name)
    if not isinstance(value, str) or (not blank_ok and not value.strip()):
        raise BadRequest(f"{name} must be a {'' if blank_ok else 'non-empty '}string")
    return value
