"""What readers see: the scopes, a scope's memories (a generation, a page, filtered), search, one
memory with its history, the diary and the generations."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from consumers.api.context import ApiContext
from consumers.api.filters import FILTER_NAMES, FILTER_PARAMS, META_PREFIX, memory_filter
from consumers.api.openapi import (
    BOOLEAN,
    DATE_TIME,
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
from consumers.api.params import BadRequest, bool_param, int_param, page_cursor, query_params, scope_of, time_param
from consumers.api.routes import SCOPE_PATH
from dreaming.store.history import GenerationNotKept, UnknownScope, generations_json, record_history
from dreaming.store.validity import held_from, memories_as_of
from schemas import MemoryRecord

MAX_K = 100
MAX_PAGE = 1_000
MAX_QUERY_CHARS = 1_000
AS_OF = Param(
    "as_of",
    DATE_TIME,
    "what held then (ISO-8601 with a zone, or a date: midnight UTC): the active generation's lineage and the "
    "memory-adds made by then",
)


def search_hit_json(record: MemoryRecord, score: float) -> dict[str, Any]:
    """One search result: the record, its score, whether a pass curated it and its tier."""
    return {
        "memory": record.model_dump(mode="json"),
        "score": score,
        "consolidated": record.consolidated,
        "tier": record.tier,
    }


SEARCH_HIT = obj({"memory": ref("MemoryRecord"), "score": NUMBER, "consolidated": BOOLEAN, "tier": STRING})
GENERATIONS = obj(
    {
        "scope": STRING,
        "active_generation": INTEGER,
        "next_generation": INTEGER,
        "generations": array(ref("GenerationInfo")),
    }
)
SCOPES = Operation(
    "The scopes holding a generation",
    params=(Param("tenant", STRING, "only this tenant's scopes"),),
    response=obj({"scopes": array(STRING)}),
    errors=(400, 401),
)
LIST = Operation(
    "A scope's memories: the active generation and the memory-adds no pass has curated yet (or a kept generation)",
    description="Without `generation`, what readers see: the active generation's memories, then the memory-adds "
    "no pass has curated yet (`consolidated: false`). With `limit`, a page, `total` and `next_cursor`; a page "
    "sequence stays on one generation. Filters apply in the store query.",
    params=(
        Param("generation", {"type": "integer", "minimum": 0}, "a kept generation (its records only)"),
        Param("include_inactive", BOOLEAN, "also superseded, merged and archived records"),
        Param("limit", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE}, "a page of at most this many"),
        Param("cursor", STRING, "the `next_cursor` of the previous page"),
        AS_OF,
        *FILTER_PARAMS,
    ),
    response=obj(
        {"scope": STRING, "generation": INTEGER, "memories": array(ref("MemoryRecord"))},
        {"total": INTEGER, "next_cursor": nullable(STRING), "as_of": DATE_TIME},
    ),
)
SEARCH = Operation(
    "Hybrid search (meaning and exact words) over a scope's memories, best first",
    description="Core and archive tiers alike, and the memory-adds no pass has curated yet (`consolidated: false`).",
    params=(
        Param("q", {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS}, "the search text", required=True),
        Param("k", {"type": "integer", "minimum": 1, "maximum": MAX_K, "default": 10}, "how many results"),
        AS_OF,
        *FILTER_PARAMS,
    ),
    response=obj({"scope": STRING, "query": STRING, "k": INTEGER, "results": array(SEARCH_HIT)}, {"as_of": DATE_TIME}),
)
MEMORY = Operation(
    "One memory as readers see it now, and what it was in every kept generation",
    description="A memory-add no pass has curated yet is returned with `consolidated: false` and an empty history.",
    response=obj(
        {
            "scope": STRING,
            "memory_id": STRING,
            "active_generation": INTEGER,
            "memory": nullable(ref("MemoryRecord")),
            "history": array(
                obj(
                    {
                        "generation": INTEGER,
                        "generation_status": STRING,
                        "record": nullable(ref("MemoryRecord")),
                        "valid_from": nullable(DATE_TIME),
                        "valid_to": nullable(DATE_TIME),
                    }
                )
            ),
        }
    ),
)
DIARY = Operation(
    "One entry per pass and operator decision, oldest first",
    response=obj({"scope": STRING, "entries": array(ref("DiaryEntry"))}),
    tag="operator",
)
GENERATIONS_OP = Operation("The active, next and kept generations", response=GENERATIONS, tag="operator")


def routes(ctx: ApiContext) -> list[web.RouteDef]:
    reader = ctx.reader

    @documented(SCOPES)
    async def scopes(request: web.Request) -> web.Response:
        tenant = query_params(request, "tenant").get("tenant") or None
        return web.json_response({"scopes": await ctx.read(lambda: reader.scopes(tenant))})

    @documented(LIST)
    async def memories(request: web.Request) -> web.Response:
        scope = scope_of(request)
        params = query_params(
            request,
            "generation",
            "include_inactive",
            "limit",
            "cursor",
            "as_of",
            *FILTER_NAMES,
            prefixes=(META_PREFIX,),
        )
        where = memory_filter(params)
        as_of = time_param(params, "as_of")
        if as_of is not None:
            given = ("generation", "include_inactive")
            clash = next((n for n in given if params.get(n) not in (None, "", "false")), None)
            if clash:
                raise BadRequest(
                    f"as_of reads what held then along the active generation; it does not combine with {clash}"
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
        # Without `generation`, what readers see: the generation and the memory-adds not curated yet.
        with_pending = params.get("generation") in (None, "")

        def read() -> tuple[int, list[MemoryRecord]]:
            # One hold of the store for every read, so the number and the records agree.
            try:
                state = reader.state(scope)
            except UnknownScope:
                if not reader.pending(scope):
                    raise
                if generation:
                    raise GenerationNotKept(f"scope {scope!r} keeps no generation {generation} (kept: none)") from None
                state = None  # memory-adds only: no pass has run yet
            if as_of is not None:  # what held then: the active lineage's memories, and the adds made by then
                held = memories_as_of(reader, scope, as_of) if state is not None else []
                known = {m.memory_id for m in held}
                fresh = [m for m in reader.pending(scope) if held_from(m) <= as_of and m.memory_id not in known]
                return (state.active_generation if state else 0), [m for m in held + fresh if where.matches(m)]
            if state is None:
                return 0, reader.pending(scope, where) if with_pending else []
            records = reader.records(scope, generation, include_inactive, where)
            if with_pending:
                known = {r.memory_id for r in records}
                records += [p for p in reader.pending(scope, where) if p.memory_id not in known]
            return (state.active_generation if generation is None else generation), records

        number, records = await ctx.read(read)
        body: dict[str, object] = {"scope": scope, "generation": number}
        if as_of is not None:
            body["as_of"] = as_of.isoformat()
        if limit is not None:
            end = offset + limit
            body["next_cursor"] = f"{number}:{end}" if end < len(records) else None
            body["total"] = len(records)
            records = records[offset:end]
        body["memories"] = [m.model_dump(mode="json") for m in records]
        return web.json_response(body)

    @documented(SEARCH)
    async def search(request: web.Request) -> web.Response:
        scope = scope_of(request)
        params = query_params(request, "q", "k", "as_of", *FILTER_NAMES, prefixes=(META_PREFIX,))
        query = params.get("q", "").strip()
        if not query:
            raise BadRequest("q (the search text) is required")
        if len(query) > MAX_QUERY_CHARS:
            raise BadRequest(f"q must be at most {MAX_QUERY_CHARS} characters")
        k = int_param(params, "k", low=1, high=MAX_K) or 10
        where = memory_filter(params)
        as_of = time_param(params, "as_of")
        if as_of is None:
            hits = await ctx.read(lambda: reader.search(scope, query, k, where))
        else:
            hits = await ctx.read(lambda: reader.search_as_of(scope, query, k, as_of, where))
        body: dict[str, object] = {"scope": scope, "query": query, "k": k}
        if as_of is not None:
            body["as_of"] = as_of.isoformat()
        body["results"] = [search_hit_json(record, score) for record, score in hits]
        return web.json_response(body)

    @documented(MEMORY)
    async def memory(request: web.Request) -> web.Response:
        scope = scope_of(request)
        query_params(request)
        memory_id = request.match_info["memory_id"]

        def read() -> dict[str, Any]:
            try:
                state = reader.state(scope)
            except UnknownScope:
                state = None
            if state is not None:
                try:
                    versions = record_history(reader, scope, memory_id, state)
                except LookupError:
                    versions = []
                if versions:
                    active = state.active_generation
                    current = next((v.record for v in versions if v.generation.generation == active), None)
                    return {
                        "active_generation": active,
                        "memory": current.model_dump(mode="json") if current else None,
                        "history": [v.to_json() for v in versions],
                    }
            fresh = next((p for p in reader.pending(scope) if p.memory_id == memory_id), None)
            if fresh is not None:  # a memory-add no pass has curated yet: no history
                active = state.active_generation if state is not None else 0
                return {"active_generation": active, "memory": fresh.model_dump(mode="json"), "history": []}
            if state is None:
                reader.state(scope)  # raises UnknownScope with its message
            raise LookupError(f"memory {memory_id!r} is in no kept generation of {scope!r}")

        body = await ctx.read(read)
        return web.json_response({"scope": scope, "memory_id": memory_id, **body})

    @documented(DIARY)
    async def diary(request: web.Request) -> web.Response:
        scope = scope_of(request)
        query_params(request)
        entries = await ctx.read(lambda: reader.diary(scope))
        return web.json_response({"scope": scope, "entries": [e.model_dump(mode="json") for e in entries]})

    @documented(GENERATIONS_OP)
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
