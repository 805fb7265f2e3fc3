"""What readers see: the scopes, a scope's memories (a generation, a page), search, one memory
with its history, the diary and the generations."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from consumers.api.context import ApiContext
from consumers.api.params import BadRequest, bool_param, int_param, page_cursor, query_params, scope_of, time_param
from consumers.api.routes import SCOPE_PATH
from consumers.store.history import RecordVersion, generations_json, record_history
from consumers.store.memories import ScopeState
from consumers.store.validity import memories_as_of
from schemas import MemoryRecord

MAX_K = 100
MAX_PAGE = 1_000
MAX_QUERY_CHARS = 1_000


def search_hit_json(record: MemoryRecord, score: float) -> dict[str, Any]:
    """One search result. `consolidated` and `tier` are read defensively: a store that does not
    tell them yet serves curated memories only, from the core tier."""
    return {
        "memory": record.model_dump(mode="json"),
        "score": score,
        "consolidated": getattr(record, "consolidated", True),
        "tier": getattr(record, "tier", "core"),
    }


def routes(ctx: ApiContext) -> list[web.RouteDef]:
    reader = ctx.reader

    async def scopes(request: web.Request) -> web.Response:
        tenant = query_params(request, "tenant").get("tenant") or None
        return web.json_response({"scopes": await ctx.read(lambda: reader.scopes(tenant))})

    async def memories(request: web.Request) -> web.Response:
        scope = scope_of(request)
        params = query_params(request, "generation", "include_inactive", "limit", "cursor", "as_of")
        as_of = time_param(params, "as_of")
        if as_of is not None:
            clash = next((n for n in ("generation", "include_inactive", "limit", "cursor") if params.get(n)), None)
            if clash:
                raise BadRequest(
                    f"as_of reads what held then along the active generation; it does not combine with {clash}"
                )
            state, held = await ctx.read(lambda: (reader.state(scope), memories_as_of(reader, scope, as_of)))
            return web.json_response(
                {
                    "scope": scope,
                    "generation": state.active_generation,
                    "as_of": as_of.isoformat(),
                    "memories": [m.model_dump(mode="json") for m in held],
                }
            )
        generation = int_param(params, "generation")
        include_inactive = bool_param(params, "include_inactive")
        limit = int_param(params, "limit", low=1, high=MAX_PAGE)
        offset = 0
        if params.get("cursor"):
            cursor_generation, offset = page_cursor(params["cursor"])
            if generation is not None and generation != cursor_generation:
                raise BadRequest("cursor belongs to another generation than the one asked for")
            generation = cursor_generation  # a page sequence stays on one generation, whatever is promoted meanwhile
        # One hold of the store for both reads, so the number and the records agree.
        state, records = await ctx.read(
            lambda: (reader.state(scope), reader.records(scope, generation, include_inactive))
        )
        number = state.active_generation if generation is None else generation
        body: dict[str, object] = {"scope": scope, "generation": number}
        if limit is not None:
            end = offset + limit
            body["next_cursor"] = f"{number}:{end}" if end < len(records) else None
            body["total"] = len(records)
            records = records[offset:end]
        body["memories"] = [m.model_dump(mode="json") for m in records]
        return web.json_response(body)

    async def search(request: web.Request) -> web.Response:
        scope = scope_of(request)
        params = query_params(request, "q", "k", "as_of")
        query = params.get("q", "").strip()
        if not query:
            raise BadRequest("q (the search text) is required")
        if len(query) > MAX_QUERY_CHARS:
            raise BadRequest(f"q must be at most {MAX_QUERY_CHARS} characters")
        k = int_param(params, "k", low=1, high=MAX_K) or 10
        as_of = time_param(params, "as_of")
        if as_of is None:
            hits = await ctx.read(lambda: reader.search(scope, query, k))
        else:
            hits = await ctx.read(lambda: reader.search_as_of(scope, query, k, as_of))
        body: dict[str, object] = {"scope": scope, "query": query, "k": k}
        if as_of is not None:
            body["as_of"] = as_of.isoformat()
        body["results"] = [search_hit_json(record, score) for record, score in hits]
        return web.json_response(body)

    async def memory(request: web.Request) -> web.Response:
        scope = scope_of(request)
        query_params(request)
        memory_id = request.match_info["memory_id"]

        def read() -> tuple[ScopeState, list[RecordVersion]]:
            state = reader.state(scope)
            return state, record_history(reader, scope, memory_id, state)

        state, versions = await ctx.read(read)
        current = next((v.record for v in versions if v.generation.generation == state.active_generation), None)
        return web.json_response(
            {
                "scope": scope,
                "memory_id": memory_id,
                "active_generation": state.active_generation,
                "memory": current.model_dump(mode="json") if current else None,
                "history": [v.to_json() for v in versions],
            }
        )

    async def diary(request: web.Request) -> web.Response:
        scope = scope_of(request)
        query_params(request)
        entries = await ctx.read(lambda: reader.diary(scope))
        return web.json_response({"scope": scope, "entries": [e.model_dump(mode="json") for e in entries]})

    async def generations(request: web.Request) -> web.Response:
        scope = scope_of(request)
        query_params(request)
        state = await ctx.read(lambda: reader.state(scope))
        return web.json_response(generations_json(state))

    return [
        web.get("/scopes", scopes),
        web.get(f"{SCOPE_PATH}/memories", memories),
        web.get(f"{SCOPE_PATH}/memories/search", search),  # before {memory_id}: routes match in order
        web.get(f"{SCOPE_PATH}/memories/{{memory_id}}", memory),
        web.get(f"{SCOPE_PATH}/diary", diary),
        web.get(f"{SCOPE_PATH}/generations", generations),
    ]
