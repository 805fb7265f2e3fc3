"""`dreamstream mcp`: an MCP server on stdio, so agents in MCP clients (Claude Desktop, IDEs,
agent frameworks) read and refresh their memory without code.

It talks to the consolidation worker's HTTP API through `dreamstream.client` and serves only
the scopes it is configured with (`--scope`, repeatable; `tenant/agent/*` patterns allowed):
a tool call naming any other scope is refused, whatever the model asks for.

Tools: `search_memory` (hybrid search, memory-adds not yet consolidated included and marked),
`list_memories` (a page of the active memories), `trigger_dream` (ask for a pass now) and
`list_scopes` (the configured scopes).
"""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Sequence
from typing import Any

import click

from dreamstream.client import AsyncClient, DreamstreamError
from schemas import ScopeError, parse_scope

log = logging.getLogger(__name__)
MAX_K = 50
MAX_PAGE = 200


class ScopeRefused(ValueError):
    pass


def _tool_error(err: Exception):
    """What the model reads: the reason, as an error result (not a crash of the server)."""
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(str(err))


class ScopeSet:
    """The scopes this server may serve: exact scopes and `tenant/agent/*`-style patterns."""

    def __init__(self, entries: Sequence[str]) -> None:
        if not entries:
            raise click.UsageError("configure at least one scope (--scope or DREAMSTREAM_MCP_SCOPES)")
        for entry in entries:
            if not any(ch in entry for ch in "*?["):
                parse_scope(entry)
            elif entry.count("/") != 2 or entry.split("/")[0] in ("", "*"):
                raise click.BadParameter(f"pattern {entry!r} must be tenant/agent/subject with a fixed tenant")
        self.entries = tuple(entries)

    def resolve(self, scope: str | None) -> str:
        exact = [e for e in self.entries if not any(ch in e for ch in "*?[")]
        if not scope:
            if len(self.entries) == 1 and exact:
                return exact[0]
            raise ScopeRefused(f"name a scope: this server serves {', '.join(self.entries)}")
        try:
            parse_scope(scope)
        except ScopeError as err:
            raise ScopeRefused(str(err)) from None
        if scope in exact or any(fnmatch.fnmatchcase(scope, e) for e in self.entries):
            return scope
        raise ScopeRefused(f"scope {scope!r} is not served here (configured: {', '.join(self.entries)})")


def build_server(client: AsyncClient, scopes: ScopeSet):
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(
        name="dreamstream",
        instructions=(
            "Long-term memory curated from past conversations. Search it before answering questions "
            "about the user; results marked consolidated=false are fresh notes not yet reviewed."
        ),
    )

    def guarded(fn):
        """Refusals and API errors reach the model as a tool error with their reason."""
        import functools

        @functools.wraps(fn)
        async def call(*args, **kwargs):
            try:
                return await fn(*args, **kwargs)
            except (ScopeRefused, DreamstreamError) as err:
                raise _tool_error(err) from err

        return call

    @server.tool()
    @guarded
    async def search_memory(query: str, scope: str | None = None, k: int = 5) -> dict[str, Any]:
        """Search a scope's long-term memory (semantic + keyword). Returns the closest memories, best first."""
        target = scopes.resolve(scope)
        hits = await client.search(target, query, max(1, min(k, MAX_K)))
        return {
            "scope": target,
            "results": [
                {
                    "memory_id": h.memory.memory_id,
                    "text": h.memory.text,
                    "score": round(h.score, 4),
                    "consolidated": h.consolidated,
                    "tier": h.tier,
                    "evidence_message_ids": list(h.memory.evidence_message_ids),
                }
                for h in hits
            ],
        }

    @server.tool()
    @guarded
    async def list_memories(scope: str | None = None, limit: int = 50, cursor: str | None = None) -> dict[str, Any]:
        """List a scope's active memories, a page at a time (pass next_cursor back for the next page)."""
        target = scopes.resolve(scope)
        page = await client.memories(target, max(1, min(limit, MAX_PAGE)), cursor)
        return {
            "scope": target,
            "generation": page.generation,
            "total": page.total,
            "next_cursor": page.next_cursor,
            "memories": [{"memory_id": m.memory_id, "text": m.text} for m in page.memories],
        }

    @server.tool()
    @guarded
    async def trigger_dream(scope: str | None = None, reason: str = "requested by an agent over MCP") -> dict[str, Any]:
        """Ask dreamstream to consolidate a scope's memory now (it runs in the background)."""
        target = scopes.resolve(scope)
        return {"scope": target, "request_id": await client.trigger(target, reason[:500])}

    @server.tool()
    async def list_scopes() -> dict[str, Any]:
        """The scopes (or scope patterns) this server serves."""
        return {"scopes": list(scopes.entries)}

    return server


@click.command("mcp")
@click.option(
    "--scope",
    "scope_entries",
    multiple=True,
    metavar="SCOPE",
    help="a scope (or tenant/agent/* pattern) to serve; repeat for more [env DREAMSTREAM_MCP_SCOPES, space-separated]",
)
@click.option(
    "--api",
    "api_url",
    envvar="DREAMSTREAM_API_URL",
    required=True,
    metavar="URL",
    help="the consolidation worker's HTTP API [env DREAMSTREAM_API_URL; token from DREAMSTREAM_API_TOKEN]",
)
def mcp_command(scope_entries: tuple[str, ...], api_url: str) -> None:
    """Serve search, list and trigger over MCP (stdio) for a configured set of scopes."""
    import os

    from dreamstream.cli_common import load_settings

    entries = list(scope_entries) or os.environ.get("DREAMSTREAM_MCP_SCOPES", "").split()
    try:
        scope_set = ScopeSet(entries)
    except ScopeError as err:
        raise click.BadParameter(str(err), param_hint="--scope") from None
    settings = load_settings()
    token = settings.api_token.get_secret_value() if settings.api_token else None
    client = AsyncClient(api_url, token)
    log.info("MCP server for %s through %s", ", ".join(scope_set.entries), api_url)
    try:
        build_server(client, scope_set).run("stdio")  # stdout carries the protocol; logs go to stderr
    except DreamstreamError as err:
        raise click.ClickException(str(err)) from err
