"""The JSON the review page (`/ui/`) reads: who the caller is, tenants and their scopes with their
state, a scope's timeline, the diff of two generations, a quarantined candidate beside the active
generation, and search with provenance (`consumers/store/review.py`).

Decisions are not here: the page posts them to the operator routes (`routes/operator.py`), the
code the CLI and every other client use, so they are counted, audited and role-checked once.
"""

from __future__ import annotations

from aiohttp import web

from consumers.api.context import ApiContext
from consumers.api.middleware import is_operator
from consumers.api.params import BadRequest, int_param, query_params, scope_of
from consumers.api.routes import SCOPE_PATH
from consumers.api.routes.reads import MAX_QUERY_CHARS
from consumers.store import review
from schemas import parse_scope

REVIEW = "/review"
MAX_SEARCH_K = 50


def routes(ctx: ApiContext) -> list[web.RouteDef]:
    reader = ctx.reader

    async def session(request: web.Request) -> web.Response:
        """The caller's role: the page offers decisions only to operators (the routes check anyway)."""
        query_params(request)
        role = "operator" if is_operator(request) else "agent"
        return web.json_response({"role": role, "decisions": role == "operator" and ctx.decisions is not None})

    async def tenants(request: web.Request) -> web.Response:
        query_params(request)
        scopes = await ctx.read(lambda: reader.scopes(None))
        return web.json_response({"tenants": sorted({parse_scope(s)[0] for s in scopes})})

    async def tenant_scopes(request: web.Request) -> web.Response:
        query_params(request)
        tenant = request.match_info["tenant"]
        parse_scope(f"{tenant}/a/b")  # the tenant part alone, checked as in a scope
        found = await ctx.read(lambda: review.tenant_scopes(reader, tenant))
        return web.json_response({"tenant": tenant, "scopes": found})

    async def timeline(request: web.Request) -> web.Response:
        scope = scope_of(request)
        query_params(request)
        return web.json_response(await ctx.read(lambda: review.timeline(reader, scope)))

    async def diff(request: web.Request) -> web.Response:
        scope = scope_of(request)
        params = query_params(request, "from", "to")
        older, newer = int_param(params, "from"), int_param(params, "to")
        return web.json_response(await ctx.read(lambda: review.review_diff(reader, scope, older, newer)))

    async def quarantine(request: web.Request) -> web.Response:
        scope = scope_of(request)
        query_params(request)
        generation = int_param({"generation": request.match_info["generation"]}, "generation", low=1)
        assert generation is not None  # the route matched a non-empty {generation}
        messages = ctx.evidence()
        case = await ctx.read(lambda: review.quarantine_case(reader, messages, scope, generation))
        return web.json_response(case)

    async def search(request: web.Request) -> web.Response:
        scope = scope_of(request)
        params = query_params(request, "q", "k")
        query = params.get("q", "").strip()
        if not query:
            raise BadRequest("q (the search text) is required")
        if len(query) > MAX_QUERY_CHARS:
            raise BadRequest(f"q must be at most {MAX_QUERY_CHARS} characters")
        k = int_param(params, "k", low=1, high=MAX_SEARCH_K) or 10
        messages = ctx.evidence()
        hits = await ctx.read(lambda: review.search_with_evidence(reader, messages, scope, query, k))
        return web.json_response({"scope": scope, "query": query, "k": k, "results": hits})

    scope_path = f"{REVIEW}{SCOPE_PATH}"
    return [
        web.get(f"{REVIEW}/session", session),
        web.get(f"{REVIEW}/tenants", tenants),
        web.get(f"{REVIEW}/tenants/{{tenant}}/scopes", tenant_scopes),
        web.get(f"{scope_path}/timeline", timeline),
        web.get(f"{scope_path}/diff", diff),
        web.get(f"{scope_path}/quarantine/{{generation}}", quarantine),
        web.get(f"{scope_path}/search", search),
    ]
