"""`/healthz` (the process serves) and `/readyz` (the store answers, the consumer has partitions)."""

from __future__ import annotations

import asyncio

from aiohttp import web

from consumers.api.context import ApiContext
from consumers.api.guard import store_reachable
from consumers.api.openapi import BOOLEAN, STRING, Operation, documented, obj
from consumers.api.params import query_params

HEALTHZ = Operation("200 while the process serves", response=obj({"status": STRING}), tag="probes", open=True)
READYZ = Operation(
    "200 when the store answers and the consumer has partitions, else 503",
    response=obj({"ready": BOOLEAN, "consumer_assigned": BOOLEAN, "store_reachable": BOOLEAN}, {"store_error": STRING}),
    tag="probes",
    open=True,
)


def routes(ctx: ApiContext) -> list[web.RouteDef]:
    @documented(HEALTHZ)
    async def healthz(request: web.Request) -> web.Response:
        query_params(request)
        return web.json_response({"status": "ok"})

    @documented(READYZ)
    async def readyz(request: web.Request) -> web.Response:
        query_params(request)
        assigned = bool(ctx.ready())
        guard = ctx.reads.guard if ctx.reads is not None else ctx.guard
        store, detail = await asyncio.to_thread(store_reachable, guard, ctx.store_ping)
        body: dict[str, bool | str] = {
            "ready": assigned and store,
            "consumer_assigned": assigned,
            "store_reachable": store,
        }
        if detail:
            body["store_error"] = detail
        return web.json_response(body, status=200 if body["ready"] else 503)

    return [web.get("/healthz", healthz), web.get("/readyz", readyz)]
