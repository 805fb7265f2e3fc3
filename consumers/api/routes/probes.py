"""`/healthz` (the process serves) and `/readyz` (the store answers, the consumer has partitions)."""

from __future__ import annotations

import asyncio

from aiohttp import web

from consumers.api.context import ApiContext
from consumers.api.guard import store_reachable
from consumers.api.params import query_params


def routes(ctx: ApiContext) -> list[web.RouteDef]:
    async def healthz(request: web.Request) -> web.Response:
        query_params(request)
        return web.json_response({"status": "ok"})

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
