"""A small Python client for the consolidation worker's HTTP API: what agents use at run time.

One implementation, `AsyncClient` (httpx), and a thin blocking wrapper, `Client`, that runs each
call on a private event loop:

    from dreamstream.client import Client

    with Client("http://dreamstream-api:8080", token=TOKEN) as memory:
        for hit in memory.search("acme/support-bot/u42", "which seat does Ava like", k=5):
            print(hit.score, hit.memory.text, "" if hit.consolidated else "(not consolidated yet)")

Records are read tolerantly: fields a newer server adds are ignored (the schema policy in
schemas/audit.py), so a client does not break on an additive change.
"""

from __future__ import annotations

import asyncio
import urllib.parse
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from schemas import MemoryRecord, parse_scope

DEFAULT_TIMEOUT_S = 30.0


class DreamstreamError(RuntimeError):
    """The API refused a request or could not be reached; `status` is the HTTP status (0: no answer)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


class NotFound(DreamstreamError, LookupError):
    pass


@dataclass(frozen=True)
class SearchHit:
    memory: MemoryRecord
    score: float
    consolidated: bool
    """False for a memory-add no dream pass has curated yet."""
    tier: str
    """`core` (what an agent puts in its prompt) or `archive` (searchable, not in the prompt)."""


@dataclass(frozen=True)
class Page:
    scope: str
    generation: int
    memories: tuple[MemoryRecord, ...]
    next_cursor: str | None
    total: int


@dataclass(frozen=True)
class MemoryHistory:
    scope: str
    memory: MemoryRecord | None
    """As readers see it now; None when it is no longer active."""
    versions: tuple[tuple[int, str, MemoryRecord | None], ...]
    """(generation, generation status, the record in it or None), oldest first."""


def record(data: dict[str, Any]) -> MemoryRecord:
    """A MemoryRecord from the API's JSON, ignoring fields this version does not know."""
    return MemoryRecord.model_validate({k: v for k, v in data.items() if k in MemoryRecord.model_fields})


def _scope_path(scope: str, *parts: str) -> str:
    parse_scope(scope)  # a malformed scope fails here, with the same message as on the server
    quoted = [urllib.parse.quote(p, safe="") for p in parts]
    return "/".join([f"/scopes/{urllib.parse.quote(scope, safe='/@:+')}", *quoted])


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

    async def search(self, scope: str, query: str, k: int = 10) -> list[SearchHit]:
        """The scope's memories closest to `query`, best first (memory-adds not yet consolidated included)."""
        body = await self._request("GET", _scope_path(scope, "memories", "search"), params={"q": query, "k": k})
        return [
            SearchHit(
                record(h["memory"]), float(h["score"]), bool(h.get("consolidated", True)), str(h.get("tier", "core"))
            )
            for h in body["results"]
        ]

    async def memories(
        self, scope: str, limit: int = 100, cursor: str | None = None, include_inactive: bool = False
    ) -> Page:
        """One page of the active generation's memories; pass `next_cursor` on for the next."""
        params: dict[str, Any] = {"limit": limit, "include_inactive": "true" if include_inactive else "false"}
        if cursor:
            params["cursor"] = cursor
        body = await self._request("GET", _scope_path(scope, "memories"), params=params)
        return Page(
            scope,
            body["generation"],
            tuple(record(m) for m in body["memories"]),
            body.get("next_cursor"),
            body.get("total", len(body["memories"])),
        )

    async def all_memories(self, scope: str, page_size: int = 100) -> AsyncIterator[MemoryRecord]:
        cursor = None
        while True:
            page = await self.memories(scope, page_size, cursor)
            for memory in page.memories:
                yield memory
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    async def memory(self, scope: str, memory_id: str) -> MemoryHistory:
        """One memory as readers see it now, with what it was in every kept generation."""
        body = await self._request("GET", _scope_path(scope, "memories", memory_id))
        versions = tuple(
            (v["generation"], v["generation_status"], record(v["record"]) if v["record"] else None)
            for v in body["history"]
        )
        return MemoryHistory(scope, record(body["memory"]) if body["memory"] else None, versions)

    async def scopes(self, tenant: str | None = None) -> list[str]:
        body = await self._request("GET", "/scopes", params={"tenant": tenant} if tenant else None)
        return list(body["scopes"])

    async def trigger(self, scope: str, reason: str = "manual") -> str:
        """Ask the scope to dream now; returns the request id its job's audit events will carry."""
        body = await self._request("POST", _scope_path(scope, "trigger"), json={"reason": reason})
        return str(body["request_id"])

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _request(self, method: str, path: str, **kwargs: Any) -> dict:
        try:
            response = await self._http.request(method, path, **kwargs)
        except httpx.HTTPError as err:
            raise DreamstreamError(f"cannot reach the dreamstream API at {self.base_url}: {err}") from err
        if response.status_code >= 400:
            try:
                message = str(response.json()["error"])
            except (ValueError, KeyError, TypeError):
                message = response.reason_phrase or f"HTTP {response.status_code}"
            kind = NotFound if response.status_code == 404 else DreamstreamError
            raise kind(f"{method} {path}: {response.status_code} {message}", response.status_code)
        return response.json()


class Client:
    """The blocking face of `AsyncClient`: the same methods, each run to completion."""

    def __init__(self, base_url: str, token: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self._runner = asyncio.Runner()
        self._async = AsyncClient(base_url, token, timeout_s)

    def search(self, scope: str, query: str, k: int = 10) -> list[SearchHit]:
        return self._runner.run(self._async.search(scope, query, k))

    def memories(self, scope: str, limit: int = 100, cursor: str | None = None, include_inactive: bool = False) -> Page:
        return self._runner.run(self._async.memories(scope, limit, cursor, include_inactive))

    def all_memories(self, scope: str, page_size: int = 100) -> Iterator[MemoryRecord]:
        cursor = None
        while True:
            page = self.memories(scope, page_size, cursor)
            yield from page.memories
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def memory(self, scope: str, memory_id: str) -> MemoryHistory:
        return self._runner.run(self._async.memory(scope, memory_id))

    def scopes(self, tenant: str | None = None) -> list[str]:
        return self._runner.run(self._async.scopes(tenant))

    def trigger(self, scope: str, reason: str = "manual") -> str:
        return self._runner.run(self._async.trigger(scope, reason))

    def close(self) -> None:
        self._runner.run(self._async.aclose())
        self._runner.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
