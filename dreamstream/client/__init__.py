"""The Python client of the consolidation worker's HTTP API, and the only HTTP client of it in
dreamstream (the CLI and the MCP server use it too).

One implementation, `AsyncClient` (httpx), and its blocking face, `Client`, whose every method
runs the async one to completion on a private event loop:

    from dreamstream.client import Client, Filter

    with Client("http://dreamstream-api:8080", token=TOKEN) as memory:
        added = memory.add("acme/support-bot/u42", "Prefers aisle seats", metadata={"source": "chat"})
        for hit in memory.search("acme/support-bot/u42", "which seat", k=5, where=Filter(tier="core")):
            print(round(hit.score, 3), hit.memory.text, "" if hit.consolidated else "(not consolidated yet)")
        print(memory.context("acme/support-bot/u42", "booking a flight", budget_tokens=500).text)

Every refusal is one of the client's own exceptions, all `DreamstreamError`s carrying the HTTP
status: `BadRequest` (400, also a ValueError; a malformed scope is refused before any request),
`Unauthorized` (401), `Forbidden` (403, the operator role), `NotFound` (404, also a LookupError),
`Conflict` (409), `Busy` (429 and 503, with `retry_after` seconds when the server said),
`ServerError` (other 5xx) and `Unreachable` (no answer at all, status 0).

Records are read tolerantly: fields a newer server adds are ignored (the schema policy in
schemas/audit.py), so a client does not break on an additive change.
"""

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
    Version,
    record,
)
from dreamstream.client.async_client import DEFAULT_TIMEOUT_S, AsyncClient, scope_path
from dreamstream.client.blocking import Client
from dreamstream.client.errors import (
    BadRequest,
    Busy,
    Conflict,
    DreamstreamError,
    Forbidden,
    NotFound,
    ServerError,
    Unauthorized,
    Unreachable,
)

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "Accepted",
    "AsyncClient",
    "BadRequest",
    "Busy",
    "Client",
    "Conflict",
    "Context",
    "ContextItem",
    "Correction",
    "DreamstreamError",
    "Filter",
    "Forbidden",
    "Generations",
    "MemoryHistory",
    "NotFound",
    "Page",
    "SearchHit",
    "ServerError",
    "Steering",
    "Unauthorized",
    "Unreachable",
    "Version",
    "record",
    "scope_path",
]
