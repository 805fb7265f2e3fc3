"""The JSON the review page (`/ui/`) reads: who the caller is, tenants and their scopes with their
state, a scope's timeline, the diff of two generations, a quarantined candidate beside the active
generation, and search with provenance (`dreaming/store/review.py`).

Decisions are not here: the page posts them to the operator routes (`routes/operator.py`), the
code the CLI and every other client use, so they are counted, audited and role-checked once.
"""

from __future__ import annotations

from aiohttp import web

from consumers.api.context import ApiContext
from consumers.api.middleware import is_operator
from consumers.api.openapi import (
    BOOLEAN,
    INTEGER,
    NUMBER,
    STRING,
    Operation,
    Param,
    array,
    documented,
    nullable,
    obj,
    ref,
)
from consumers.api.params import BadRequest, int_param, query_params, scope_of
from consumers.api.routes import SCOPE_PATH
from consumers.api.routes.reads import MAX_QUERY_CHARS
from dreaming.store import review
from schemas import parse_scope

REVIEW = "/review"
MAX_SEARCH_K = 50

MESSAGE = obj(
    {"message_id": STRING, "found": BOOLEAN},
    {"role": STRING, "text": STRING, "ts": {"type": "string", "format": "date-time"}},
)
"""A transcript message a change or a hit rests on (`found: false` once forgotten or never indexed)."""
CHANGED = obj(
    {"memory_id": STRING, "fields": array(STRING), "before": ref("MemoryRecord"), "after": ref("MemoryRecord")}
)
REPLACED = obj(
    {
        "memory_id": STRING,
        "text": STRING,
        "status": STRING,
        "reason": STRING,
        "by": obj({"memory_id": STRING, "text": nullable(STRING)}),
    }
)
DIFF = obj(
    {
        "scope": STRING,
        "from": INTEGER,
        "to": INTEGER,
        "added": array(ref("MemoryRecord")),
        "removed": array(ref("MemoryRecord")),
        "changed": array(CHANGED),
        "replaced": array(REPLACED),
    }
)
"""Two generations' difference (`GenerationDiff`), with each retired record and what replaced it."""
SESSION = Operation(
    "The caller's role, and whether this worker takes decisions",
    response=obj({"role": {"type": "string", "enum": ["agent", "operator"]}, "decisions": BOOLEAN}),
    errors=(400, 401),
    tag="review",
)
TENANTS = Operation(
    "The tenants holding a scope with a generation",
    response=obj({"tenants": array(STRING)}),
    errors=(400, 401, 429),
    tag="review",
)
TENANT_SCOPES = Operation(
    "A tenant's scopes with their state (active generation, generations awaiting review, last pass), "
    "those awaiting review first",
    response=obj({"tenant": STRING, "scopes": array(obj({"scope": STRING, "awaiting_review": array(INTEGER)}))}),
    errors=(400, 401, 429),
    tag="review",
)
TIMELINE = Operation(
    "A scope's passes and operator decisions, newest first, with its generations",
    response=obj({"scope": STRING, "active_generation": INTEGER, "generations": array(obj()), "entries": array(obj())}),
    tag="review",
)
REVIEW_DIFF = Operation(
    "What changed between two generations, each retired record with what replaced it",
    params=(
        Param("from", {"type": "integer", "minimum": 0}, "the older generation (default: the previous promoted one)"),
        Param("to", {"type": "integer", "minimum": 0}, "the newer generation (default: the active one)"),
    ),
    response=DIFF,
    tag="review",
)
QUARANTINE = Operation(
    "A quarantined generation beside the active one: the gate's findings, each change with its messages, the diff",
    response=obj(
        {
            "scope": STRING,
            "generation": ref("GenerationInfo"),
            "active_generation": INTEGER,
            "active": array(ref("MemoryRecord")),
            "candidate": array(ref("MemoryRecord")),
            "findings": array(obj({"rule": STRING, "text": STRING, "memory_ids": array(STRING)})),
            "changes": array(obj({"change": STRING, "memory_id": STRING, "evidence": array(MESSAGE)})),
            "diff": DIFF,
            "notes": array(STRING),
        }
    ),
    tag="review",
)
REVIEW_SEARCH = Operation(
    "Search a scope's memories, each hit with the transcript messages it rests on",
    params=(
        Param("q", {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS}, "the search text", required=True),
        Param("k", {"type": "integer", "minimum": 1, "maximum": MAX_SEARCH_K, "default": 10}, "how many results"),
    ),
    response=obj(
        {
            "scope": STRING,
            "query": STRING,
            "k": INTEGER,
            "results": array(obj({"memory": ref("MemoryRecord"), "score": NUMBER, "evidence": array(MESSAGE)})),
        }
    ),
    tag="review",
)


def routes(ctx: ApiContext) -> list[web.RouteDef]:
    reader = ctx.reader

    @documented(SESSION)
    async def session(request: web.Request) -> web.Response:
        """The caller's role: the page offers decisions only to operators (the routes check anyway)."""
        query_params(request)
        role = "operator" if is_operator(request) else "agent"
        return web.json_response({"role": role, "decisions": role == "operator" and ctx.decisions is not None})

    @documented(TENANTS)
    async def tenants(request: web.Request) -> web.Response:
        query_params(request)
        scopes = await ctx.read(lambda: reader.scopes(None))
        return web.json_response({"tenants": sorted({parse_scope(s)[0] for s in scopes})})

    @documented(TENANT_SCOPES)
    async def tenant_scopes(request: web.Request) -> web.Response:
        query_params(request)
        tenant = request.match_info["tenant"]
        parse_scope(f"{tenant}/a/b")  # the tenant part alone, checked as in a scope
        found = await ctx.read(lambda: review.tenant_scopes(reader, tenant))
        return web.json_response({"tenant": tenant, "scopes": found})

    @documented(TIMELINE)
    async def timeline(request: web.Request) -> web.Response:
        scope = scope_of(request)
        query_params(request)
        return web.json_response(await ctx.read(lambda: review.timeline(reader, scope)))

    @documented(REVIEW_DIFF)
    async def diff(request: web.Request) -> web.Response:
        scope = scope_of(request)
        params = query_params(request, "from", "to")
        older, newer = int_param(params, "from"), int_param(params, "to")
        return web.json_response(await ctx.read(lambda: review.review_diff(reader, scope, older, newer)))

    @documented(QUARANTINE)
    async def quarantine(request: web.Request) -> web.Response:
        scope = scope_of(request)
        query_params(request)
        generation = int_param({"generation": request.match_info["generation"]}, "generation", low=1)
        assert generation is not None  # the route matched a non-empty {generation}
        messages = ctx.evidence()
        case = await ctx.read(lambda: review.quarantine_case(reader, messages, scope, generation))
        return web.json_response(case)

    @documented(REVIEW_SEARCH)
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
