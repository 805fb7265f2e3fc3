"""What operators and agents ask the worker to do: trigger a pass, roll back, approve or reject a
quarantined generation.

Decisions run here, in the worker, so they are counted on its metrics (`dreamstream_rollbacks_total`,
`dreamstream_quarantine_decisions_total`) and publish their audit event from where the change happens.
"""

from __future__ import annotations

import asyncio

from aiohttp import web
from pydantic import ValidationError

from consumers.api.context import ApiContext
from consumers.api.middleware import require_operator
from consumers.api.openapi import BOOLEAN, STRING, Operation, Param, documented, obj
from consumers.api.params import BadRequest, decision_body, int_param, query_params, scope_of, trigger_reason
from consumers.api.routes import SCOPE_PATH
from consumers.api.routes.reads import GENERATIONS
from dreaming.store.history import generations_json

TRIGGER = Operation(
    "Ask the scope to dream now; the job's lifecycle events carry the request id",
    body=obj(optional={"reason": {"type": "string", "maxLength": 1_000}}),
    status=202,
    response=obj({"request_id": STRING, "scope": STRING}),
    errors=(400, 401, 503),
    tag="operator",
)
ROLLBACK = Operation(
    "Make an earlier kept generation active again (default: the one before the active one)",
    body=obj({"by": STRING, "reason": STRING}, {"generation": {"type": "integer", "minimum": 1}}),
    body_required=True,
    response=GENERATIONS,
    errors=(400, 401, 403, 404, 409, 503),
    tag="operator",
)
DECIDE = Operation(
    "Approve (promote) or reject (delete) a quarantined generation",
    params=(Param("action", {"type": "string", "enum": ["approve", "reject"]}, "the decision", where="path"),),
    body=obj({"by": STRING, "reason": STRING}, {"force": BOOLEAN}),
    body_required=True,
    response=GENERATIONS,
    errors=(400, 401, 403, 404, 409, 503),
    tag="operator",
)


def routes(ctx: ApiContext) -> list[web.RouteDef]:
    @documented(ROLLBACK)
    async def rollback(request: web.Request) -> web.Response:
        require_operator(request, "a rollback")
        scope, body = scope_of(request), await decision_body(request, "generation")
        generation = body.get("generation")
        if generation is not None and (
            not isinstance(generation, int) or isinstance(generation, bool) or generation < 1
        ):
            raise BadRequest("generation must be a positive integer")
        state = await ctx.blocking(lambda: ctx.operator().rollback(scope, generation, body["by"], body["reason"]))
        return web.json_response(generations_json(state))

    @documented(DECIDE)
    async def decide(request: web.Request) -> web.Response:
        require_operator(request, "a quarantine decision")
        scope, action = scope_of(request), request.match_info["action"]
        generation = int_param({"generation": request.match_info["generation"]}, "generation", low=1)
        assert generation is not None  # the route matched a non-empty {generation}
        body = await decision_body(request, "force")
        force = body.get("force", False)
        if not isinstance(force, bool):
            raise BadRequest("force must be true or false")
        ops = ctx.operator()
        if action == "approve":
            state = await ctx.blocking(lambda: ops.approve(scope, generation, body["by"], body["reason"], force))
        else:
            state = await ctx.blocking(lambda: ops.reject(scope, generation, body["by"], body["reason"]))
        return web.json_response(generations_json(state))

    @documented(TRIGGER)
    async def trigger_pass(request: web.Request) -> web.Response:
        scope = scope_of(request)
        query_params(request)
        reason = await trigger_reason(request)
        try:
            request_id = await asyncio.to_thread(ctx.trigger, scope, reason)
        except ValidationError as err:  # the control event refused the reason (too long)
            raise BadRequest(f"reason: {err.errors()[0]['msg']}") from None
        return web.json_response({"request_id": request_id, "scope": scope}, status=202)

    return [
        web.post(f"{SCOPE_PATH}/trigger", trigger_pass),
        web.post(f"{SCOPE_PATH}/rollback", rollback),
        web.post(f"{SCOPE_PATH}/generations/{{generation}}/{{action:approve|reject}}", decide),
    ]
