"""The aiohttp application: middlewares, then every route module's routes, in order, and the
OpenAPI document of them all at `/openapi.json` (built here, from the routes the app serves)."""

from __future__ import annotations

from aiohttp import web

from consumers.api.context import ApiContext
from consumers.api.middleware import bearer_auth, json_errors
from consumers.api.openapi import Operation, document, documented, obj
from consumers.api.params import query_params
from consumers.api.routes import context, operator, probes, reads, review, steering, ui, writes

ROUTE_MODULES = (probes, writes, reads, context, operator, steering, review)
OPENAPI_PATH = "/openapi.json"
OPENAPI = Operation(
    "This document: the API's OpenAPI 3.1 description", response=obj(), tag="probes", errors=(), open=True
)


def make_app(ctx: ApiContext) -> web.Application:
    settings = ctx.settings
    token = settings.api_token.get_secret_value().encode() if settings.api_token else None
    operator_token = settings.api_operator_token.get_secret_value().encode() if settings.api_operator_token else None
    app = web.Application(middlewares=[json_errors, bearer_auth(token, operator_token)])
    for module in ROUTE_MODULES:
        app.add_routes(module.routes(ctx))
    served: dict[str, object] = {}

    @documented(OPENAPI)
    async def openapi(request: web.Request) -> web.Response:
        query_params(request)
        return web.json_response(served["document"])

    app.add_routes([web.get(OPENAPI_PATH, openapi)])
    app.add_routes(ui.routes())  # the review page: its handlers are marked `page`, so the document leaves them out
    served["document"] = document(app)  # here, so an undocumented route stops the app from starting
    return app
