"""`AsyncClient`: every route of the API, over httpx."""

from __future__ import annotations

import urllib.parse
from collections.abc import AsyncIterator, Mapping, Sequence
from datetime import datetime
from typing import Any

import httpx

from dreaming.store.diary_entry import DiaryEntry
from dreamstream.client.answers import (
    Accepted,
    Context,
    ContextItem,
    Correction,
    Filter,
    Generations,
    MemoryHistory,
    Page,
    SearchHit,
    Steering,
    generations_of,
    iso,
    record,
    version_of,
)
from dreamstream.client.errors import BY_STATUS, BadRequest, DreamstreamError, ServerError, Unreachable
from schemas import MemoryRecord, ScopeError, parse_scope

DEFAULT_TIMEOUT_S = 30.0


def _quote(part: str) -> str:
    return urllib.parse.quote(part, safe="")


def scope_path(scope: str, *parts: str) -> str:
    try:
        tenant, agent, subject = parse_scope(scope)
    except ScopeError as err:  # refused before any request, with the server's wording
        raise BadRequest(str(err), 400) from None
    return "/".join(["", "scopes", _quote(tenant), _quote(agent), _quote(subject), *(_quote(p) for p in parts)])


def _read_params(where: Filter | None, as_of: datetime | str | None) -> dict[str, str]:
    params = where.params() if where is not None else {}
    if as_of is not None:
        params["as_of"] = iso(as_of)
    return params


class AsyncClient:
    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.base_url = base_url.rstrip("/")
        self._http = httpx.AsyncClient(base_url=self.base_url, headers=headers, timeout=timeout_s, transport=transport)

    # --- reading
    async def search(
        self,
        scope: str,
        query: str,
        k: int = 10,
        *,
        where: Filter | None = None,
        as_of: datetime | str | None = None,
    ) -> list[SearchHit]:
        """The scope's memories closest to `query`, best first (memory-adds not yet consolidated included)."""
        params = {"q": query, "k": str(k), **_read_params(where, as_of)}
        body = await self._request("GET", scope_path(scope, "memories", "search"), params=params)
        return [
            SearchHit(record(h["memory"]), float(h["score"]), bool(h["consolidated"]), str(h["tier"]))
            for h in body["results"]
        ]

    async def memories(
        self,
        scope: str,
        limit: int = 100,
        cursor: str | None = None,
        include_inactive: bool = False,
        *,
        generation: int | None = None,
        where: Filter | None = None,
        as_of: datetime | str | None = None,
    ) -> Page:
        """One page of what readers see (the active generation, then the memory-adds no pass has
        curated yet), or of a kept `generation`; pass `next_cursor` on for the next."""
        params = {"limit": str(limit), "include_inactive": "true" if include_inactive else "false"}
        params.update(_read_params(where, as_of))
        if cursor:
            params["cursor"] = cursor
        if generation is not None:
            params["generation"] = str(generation)
        body = await self._request("GET", scope_path(scope, "memories"), params=params)
        return Page(
            scope,
            body["generation"],
            tuple(record(m) for m in body["memories"]),
            body.get("next_cursor"),
            body.get("total", len(body["memories"])),
        )

    async def all_memories(
        self, scope: str, page_size: int = 100, *, where: Filter | None = None
    ) -> AsyncIterator[MemoryRecord]:
        cursor = None
        while True:
            page = await self.memories(scope, page_size, cursor, where=where)
            for memory in page.memories:
                yield memory
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    async def memory(self, scope: str, memory_id: str) -> MemoryHistory:
        """One memory as readers see it now, with what it was in every kept generation."""
        body = await self._request("GET", scope_path(scope, "memories", memory_id))
        versions = tuple(version_of(v) for v in body["history"])
        return MemoryHistory(scope, record(body["memory"]) if body["memory"] else None, versions)

    async def context(self, scope: str, query: str = "", budget_tokens: int | None = None) -> Context:
        """A prompt-ready block: the core tier, then the query's best other memories, each dated."""
        params = {"q": query} if query else {}
        if budget_tokens is not None:
            params["budget_tokens"] = str(budget_tokens)
        body = await self._request("GET", scope_path(scope, "context"), params=params)
        items = tuple(
            ContextItem(
                str(i["memory_id"]),
                str(i["section"]),
                str(i["tier"]),
                bool(i["consolidated"]),
                str(i["date"]),
                str(i["text"]),
                int(i["tokens"]),
                None if i.get("score") is None else float(i["score"]),
            )
            for i in body["items"]
        )
        return Context(
            scope, str(body["text"]), items, int(body["tokens"]), int(body["budget_tokens"]), dict(body["omitted"])
        )

    async def scopes(self, tenant: str | None = None) -> list[str]:
        body = await self._request("GET", "/scopes", params={"tenant": tenant} if tenant else None)
        return list(body["scopes"])

    async def diary(self, scope: str) -> list[DiaryEntry]:
        """One entry per pass and operator decision, oldest first."""
        body = await self._request("GET", scope_path(scope, "diary"))
        return [DiaryEntry.model_validate(e) for e in body["entries"]]

    async def generations(self, scope: str) -> Generations:
        return generations_of(await self._request("GET", scope_path(scope, "generations")))

    # --- writing: events the next pass applies
    async def add(
        self,
        scope: str,
        text: str,
        *,
        metadata: Mapping[str, str | int | float | bool | None] | None = None,
        source_message_ids: Sequence[str] = (),
        memory_id: str | None = None,
    ) -> Accepted:
        """Add a memory (a memory-add event): searchable at once as not consolidated, curated by the next pass."""
        payload: dict[str, Any] = {"text": text}
        if metadata is not None:
            payload["metadata"] = dict(metadata)
        if source_message_ids:
            payload["source_message_ids"] = list(source_message_ids)
        if memory_id is not None:
            payload["memory_id"] = memory_id
        body = await self._request("POST", scope_path(scope, "memories"), json=payload)
        return Accepted(str(body["scope"]), str(body["memory_id"]))

    async def correct(self, scope: str, memory_id: str, text: str, *, by: str, reason: str) -> Correction:
        """Give a memory a new text; the next pass applies it as a new generation (reversible by rollback)."""
        payload = {"text": text, "by": by, "reason": reason}
        body = await self._request("PATCH", scope_path(scope, "memories", memory_id), json=payload)
        return Correction(str(body["scope"]), str(body["memory_id"]), str(body["correction_id"]))

    async def delete(self, scope: str, memory_id: str, *, by: str, reason: str) -> Correction:
        """Retire a memory; the next pass applies it (its history stays, rollback brings it back)."""
        payload = {"by": by, "reason": reason}
        body = await self._request("DELETE", scope_path(scope, "memories", memory_id), json=payload)
        return Correction(str(body["scope"]), str(body["memory_id"]), str(body["correction_id"]))

    async def trigger(self, scope: str, reason: str = "manual") -> str:
        """Ask the scope to dream now; returns the request id its job's audit events will carry."""
        body = await self._request("POST", scope_path(scope, "trigger"), json={"reason": reason})
        return str(body["request_id"])

    # --- the operator's
    async def rollback(self, scope: str, *, by: str, reason: str, generation: int | None = None) -> Generations:
        """Make an earlier kept generation active again (default: the one before the active one)."""
        payload: dict[str, Any] = {"by": by, "reason": reason}
        if generation is not None:
            payload["generation"] = generation
        return generations_of(await self._request("POST", scope_path(scope, "rollback"), json=payload))

    async def approve(self, scope: str, generation: int, *, by: str, reason: str, force: bool = False) -> Generations:
        """Promote a quarantined generation."""
        path = scope_path(scope, "generations", str(generation), "approve")
        return generations_of(await self._request("POST", path, json={"by": by, "reason": reason, "force": force}))

    async def reject(self, scope: str, generation: int, *, by: str, reason: str) -> Generations:
        """Reject a quarantined generation (its records are deleted)."""
        path = scope_path(scope, "generations", str(generation), "reject")
        return generations_of(await self._request("POST", path, json={"by": by, "reason": reason}))

    async def steering(self, scope: str) -> Steering:
        """The scope's own steering (its tenant's is `tenant_steering`)."""
        return _steering(await self._request("GET", scope_path(scope, "steering")))

    async def set_steering(self, scope: str, text: str, *, by: str) -> Steering:
        """What the scope's memory is for, in the operator's words (`""` clears it)."""
        return _steering(await self._request("PUT", scope_path(scope, "steering"), json={"text": text, "by": by}))

    async def tenant_steering(self, tenant: str) -> Steering:
        return _steering(await self._request("GET", _tenant_path(tenant)))

    async def set_tenant_steering(self, tenant: str, text: str, *, by: str) -> Steering:
        return _steering(await self._request("PUT", _tenant_path(tenant), json={"text": text, "by": by}))

    # --- the connection
    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _request(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        try:
            response = await self._http.request(method, path, **kwargs)
        except httpx.HTTPError as err:
            raise Unreachable(f"cannot reach the API at {self.base_url}: {err}") from err
        if response.status_code >= 400:
            raise _error(method, path, response)
        body = response.json()
        if not isinstance(body, dict):
            raise ServerError(f"{method} {path}: the API answered {type(body).__name__}, not an object", 500)
        return body


def _tenant_path(tenant: str) -> str:
    try:
        parse_scope(f"{tenant}/agent/subject")
    except ScopeError as err:  # the tenant part's rules, worded as the server words them
        raise BadRequest(str(err), 400) from None
    return f"/tenants/{_quote(tenant)}/steering"


def _steering(body: Mapping[str, Any]) -> Steering:
    return Steering(str(body["text"]), body.get("by"), body.get("set_at"))


def _error(method: str, path: str, response: httpx.Response) -> DreamstreamError:
    try:
        message = str(response.json()["error"])
    except (ValueError, KeyError, TypeError):
        message = response.reason_phrase or f"HTTP {response.status_code}"
    status = response.status_code
    kind = BY_STATUS.get(status, ServerError if status >= 500 else DreamstreamError)
    retry_after = None
    if status in (429, 503):
        try:
            retry_after = float(response.headers.get("Retry-After", ""))
        except ValueError:
            retry_after = None
    return kind(f"{method} {path}: {status} {message}", status, retry_after)
