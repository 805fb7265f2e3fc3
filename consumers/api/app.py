"""The aiohttp application: middlewares, then every route module's routes, in order."""

from __future__ import annotations

from aiohttp import web

from consumers.api.context import ApiContext
from consumers.api.middleware import bearer_auth, json_errors
from consumers.api.routes import operator, probes, reads, review, steering, ui, writes


def make_app(ctx: ApiContext) -> web.Application:
    settings = ctx.settings
    token = settings.api_token.get_secret_value().encode() if settings.api_token else None
    operator_token = settings.api_operator_token.get_secret_value().encode() if settings.api_operator_token else None
    app = web.Application(middlewares=[json_errors, bearer_auth(token, operator_token)])
    for module in (probes, writes, reads, operator, steering, review):
        app.add_routes(module.routes(ctx))
    app.add_routes(ui.routes())
    return app
