"""Steering: an operator's words on what a scope's (or a whole tenant's) memory is for.

- `PUT {scope}/steering`, `PUT /tenants/{tenant}/steering`: body `{"text", "by"}` (operator role;
  `""` clears it), 202 `{"text", "by", "set_at"}`;
- `GET {scope}/steering`, `GET /tenants/{tenant}/steering`: `{"text", "by", "set_at"}` (`""`, null,
  null when never set).

A PUT is a `steer` control event (a tenant's, one copy per partition: `plumbing.tenant_broadcast`).
The stream worker keeps it in the scope's (the tenant's) signals row and every later dream job
carries it; it does not start a pass by itself. GET reads what the consolidation worker recorded
from those events, and the API records what it sent, so a GET right after a PUT answers it.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from aiohttp import web
from pydantic import ValidationError

from consumers.api.context import ApiContext
from consumers.api.middleware import require_operator
from consumers.api.params import BadRequest, json_fields, query_params, scope_of, text_field
from consumers.api.routes import SCOPE_PATH
from plumbing.tenant_broadcast import carrier_scopes
from schemas import ControlEvent, SteeringChange, parse_scope
from schemas.errors import describe_validation_error

NOT_SET = {"text": "", "by": None, "set_at": None}


def tenant_of_path(request: web.Request) -> str:
    tenant = request.match_info["tenant"]
    parse_scope(f"{tenant}/agent/subject")  # the tenant part's rules, worded as a scope error
    return tenant


def routes(ctx: ApiContext) -> list[web.RouteDef]:
    async def put(request: web.Request) -> web.Response:
        require_operator(request, "setting steering")
        scoped = "subject" in request.match_info
        scope = scope_of(request) if scoped else None
        tenant = tenant_of_path(request) if scope is None else scope.split("/", 1)[0]
        query_params(request)
        body = await json_fields(request, ("text", "by"))
        text, by = text_field(body, "text", blank_ok=True), text_field(body, "by")
        try:
            change = SteeringChange(text=text, by=by, applies_to="scope" if scoped else "tenant")
        except ValidationError as err:
            raise BadRequest(describe_validation_error(err)) from None
        at, request_id = datetime.now(UTC), f"steer-{uuid.uuid4().hex[:20]}"
        targets = [scope] if scope is not None else list(carrier_scopes(tenant, ctx.settings.partitions))
        events = [
            ControlEvent(scope=target, action="steer", request_id=request_id, ts=at, steering=change)
            for target in targets
        ]
        writes = ctx.write()
        await asyncio.to_thread(writes.outbox.publish, "control", events)
        await ctx.blocking(lambda: writes.record_steering(tenant, scope, change.text, change.by, at))
        return web.json_response({"text": change.text, "by": change.by, "set_at": at.isoformat()}, status=202)

    async def get(request: web.Request) -> web.Response:
        scope = scope_of(request) if "subject" in request.match_info else None
        tenant = tenant_of_path(request) if scope is None else scope.split("/", 1)[0]
        query_params(request)
        writes = ctx.write()
        found = await ctx.blocking(lambda: writes.steering(tenant, scope))
        return web.json_response(found.to_json() if found is not None else NOT_SET)

    return [
        web.put(f"{SCOPE_PATH}/steering", put),
        web.get(f"{SCOPE_PATH}/steering", get),
        web.put("/tenants/{tenant}/steering", put),
        web.get("/tenants/{tenant}/steering", get),
    ]
