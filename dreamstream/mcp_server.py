"""`dreamstream mcp`: an MCP server on stdio (the official `mcp` SDK), so agents in MCP clients
(Claude Desktop, IDEs, agent frameworks) read, write and correct their memory without code.

It talks to the consolidation worker's HTTP API through `dreamstream.client` and serves only
the scopes it is configured with (`--scope`, repeatable; `tenant/agent/*` patterns allowed):
a tool call naming any other scope is refused, whatever the model asks for.

| tool | does | hint |
|---|---|---|
| `search_memory` | hybrid search, fresh notes (not consolidated yet) included and marked | read-only |
| `get_memory` | one memory now, and what it was in every kept generation (`valid_from`/`valid_to`) | read-only |
| `memory_context` | a prompt-ready block: the core tier, then the query's best other memories, budgeted | read-only |
| `list_memories` | a page of what readers see, by tier, consolidation and whom or what they name | read-only |
| `list_scopes` | the configured scopes and the known scopes they cover | read-only |
| `add_memory` | a new memory (a memory-add event): searchable at once, curated by the next pass | additive |
| `correct_memory` | a new text for a memory, or its deletion, applied by the next pass (reversible) | destructive |
| `trigger_dream` | ask for a pass now | additive |

Every parameter says what it is and its limits, and the limits are enforced (the SDK validates
the arguments against the schema it publishes: `k=5000` is refused); every tool's output has a
typed schema (`dreamstream/mcp_outputs.py`); the server reports the package version.
"""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any, Literal, TypeVar

import click
from pydantic import Field

from dreaming.store.filters import ABOUT_MAX_CHARS
from dreamstream.client import AsyncClient, DreamstreamError, Filter
from dreamstream.mcp_outputs import (
    Added,
    ContextBlock,
    Corrected,
    Listing,
    MemoryDetail,
    Scopes,
    SearchResult,
    Triggered,
)
from schemas import ScopeError, parse_scope

log = logging.getLogger(__name__)
T = TypeVar("T")
MAX_K = 100
MAX_PAGE = 200
MAX_QUERY_CHARS = 1_000
MAX_TEXT_CHARS = 20_000
MAX_BUDGET = 100_000
INSTRUCTIONS = (
    "Long-term memory curated from past conversations. Before answering about the user, call "
    "memory_context (a block to put in your prompt) or search_memory. Results with consolidated=false "
    "are fresh notes no dream pass has reviewed yet. add_memory writes a note; correct_memory fixes or "
    "deletes a wrong one (applied by the next pass, which trigger_dream starts now)."
)

ScopeArg = Annotated[
    str | None,
    Field(
        description="tenant/agent/subject; may be left out when this server serves exactly one scope",
        max_length=386,
    ),
]
Query = Annotated[str, Field(description="what to look for, in plain words", min_length=1, max_length=MAX_QUERY_CHARS)]
MemoryId = Annotated[str, Field(description="a memory's id, as search or list gave it", min_length=1, max_length=256)]
Tier = Annotated[
    Literal["core", "archive"] | None,
    Field(description="only memories of this tier: core (prompt-worthy) or archive (the rest)"),
]
Consolidated = Annotated[
    bool | None, Field(description="true: only reviewed memories; false: only fresh notes not consolidated yet")
]
About = Annotated[
    str | None,
    Field(
        description='only memories that name this person or thing, e.g. Ava (finds "Ava\'s sister", '
        'not "Avalon"): to list everything memory holds about them',
        max_length=ABOUT_MAX_CHARS,
    ),
]
AsOf = Annotated[
    str | None,
    Field(description="ISO-8601 time (with a zone): what held then, e.g. 2026-03-05T10:00:00Z", max_length=64),
]
Reason = Annotated[str, Field(description="why (kept in the audit trail)", min_length=1, max_length=1_000)]
By = Annotated[str, Field(description="who asks (kept in the audit trail)", min_length=1, max_length=256)]


class ScopeRefused(ValueError):
    pass


class ScopeSet:
    """The scopes this server may serve: exact scopes and `tenant/agent/*`-style patterns."""

    def __init__(self, entries: Sequence[str]) -> None:
        if not entries:
            raise click.UsageError("configure at least one scope (--scope or DREAMSTREAM_MCP_SCOPES)")
        for entry in entries:
            if not _is_pattern(entry):
                parse_scope(entry)
            elif entry.count("/") != 2 or entry.split("/")[0] in ("", "*") or _is_pattern(entry.split("/")[0]):
                raise click.BadParameter(f"pattern {entry!r} must be tenant/agent/subject with a fixed tenant")
        self.entries = tuple(entries)

    def allows(self, scope: str) -> bool:
        return any(scope == e if not _is_pattern(e) else fnmatch.fnmatchcase(scope, e) for e in self.entries)

    def resolve(self, scope: str | None) -> str:
        exact = [e for e in self.entries if not _is_pattern(e)]
        if not scope:
            if len(self.entries) == 1 and exact:
                return exact[0]
            raise ScopeRefused(f"name a scope: this server serves {', '.join(self.entries)}")
        try:
            parse_scope(scope)
        except ScopeError as err:
            raise ScopeRefused(str(err)) from None
        if self.allows(scope):
            return scope
        raise ScopeRefused(f"scope {scope!r} is not served here (configured: {', '.join(self.entries)})")

    def tenants(self) -> list[str]:
        return sorted({e.split("/", 1)[0] for e in self.entries})


def _is_pattern(entry: str) -> bool:
    return any(ch in entry for ch in "*?[")


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dreamstream")
    except PackageNotFoundError:
        return "0+unknown"


def build_server(client: AsyncClient, scopes: ScopeSet) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    server = MCPServer(name="dreamstream", version=package_version(), instructions=INSTRUCTIONS)
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    adding = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
    changing = ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
    )

    def target(scope: str | None) -> str:
        """The scope a call may read or write, or a tool error saying why not."""
        try:
            return scopes.resolve(scope)
        except ScopeRefused as err:
            raise ToolError(str(err)) from err

    async def answer(call: Callable[[], Awaitable[T]]) -> T:
        """Refusals and API errors reach the model as a tool error with their reason, never a crash."""
        try:
            return await call()
        except DreamstreamError as err:
            raise ToolError(str(err)) from err

    @server.tool(annotations=reading, structured_output=True)
    async def search_memory(
        query: Query,
        scope: ScopeArg = None,
        k: Annotated[int, Field(description="how many results", ge=1, le=MAX_K)] = 5,
        tier: Tier = None,
        consolidated: Consolidated = None,
        about: About = None,
        as_of: AsOf = None,
    ) -> SearchResult:
        """Search a scope's long-term memory by meaning and exact words; the closest memories, best first."""
        chosen = target(scope)
        where = Filter(tier=tier, consolidated=consolidated, about=about)
        return await answer(lambda: _search(client, chosen, query, k, where, as_of))

    @server.tool(annotations=reading, structured_output=True)
    async def get_memory(memory_id: MemoryId, scope: ScopeArg = None) -> MemoryDetail:
        """One memory as it is now, and what it was in every kept generation, with when each value held
        (valid_from, valid_to)."""
        chosen = target(scope)
        found = await answer(lambda: client.memory(chosen, memory_id))
        return MemoryDetail.of(chosen, memory_id, found)

    @server.tool(annotations=reading, structured_output=True)
    async def memory_context(
        query: Annotated[
            str, Field(description="what you are about to answer (may be empty)", max_length=MAX_QUERY_CHARS)
        ] = "",
        budget_tokens: Annotated[
            int, Field(description="the most estimated tokens of the block", ge=1, le=MAX_BUDGET)
        ] = 1_000,
        scope: ScopeArg = None,
    ) -> ContextBlock:
        """A prompt-ready block of memory: the core memories, then the ones best matching the query, each
        dated, within the token budget."""
        chosen = target(scope)
        return ContextBlock.of(await answer(lambda: client.context(chosen, query, budget_tokens)))

    @server.tool(annotations=reading, structured_output=True)
    async def list_memories(
        scope: ScopeArg = None,
        limit: Annotated[int, Field(description="page size", ge=1, le=MAX_PAGE)] = 50,
        cursor: Annotated[
            str | None, Field(description="next_cursor of the previous page; leave out for the first", max_length=64)
        ] = None,
        tier: Tier = None,
        consolidated: Consolidated = None,
        about: About = None,
        as_of: AsOf = None,
    ) -> Listing:
        """A page of a scope's memories (the reviewed ones, then fresh notes), or of those about someone or
        something (`about`); pass next_cursor back for more."""
        chosen = target(scope)
        where = Filter(tier=tier, consolidated=consolidated, about=about)
        return Listing.of(await answer(lambda: client.memories(chosen, limit, cursor, where=where, as_of=as_of)))

    @server.tool(annotations=reading, structured_output=True)
    async def list_scopes() -> Scopes:
        """The scopes this server serves (exact scopes and tenant/agent/* patterns), and the known scopes
        they cover."""

        async def known() -> list[str]:
            found = [s for tenant in scopes.tenants() for s in await client.scopes(tenant)]
            return sorted({s for s in found if scopes.allows(s)})

        return Scopes(configured=list(scopes.entries), scopes=await answer(known))

    @server.tool(annotations=adding, structured_output=True)
    async def add_memory(
        text: Annotated[
            str, Field(description="the memory, one fact in plain words", min_length=1, max_length=MAX_TEXT_CHARS)
        ],
        scope: ScopeArg = None,
        metadata: Annotated[
            dict[str, str | int | float | bool | None] | None,
            Field(description="flat key/value pairs kept with it (at most 2 KB; never read as evidence)"),
        ] = None,
        source_message_ids: Annotated[
            list[str] | None, Field(description="ids of the conversation messages it comes from", max_length=100)
        ] = None,
    ) -> Added:
        """Write a memory: searchable at once as a fresh note (consolidated=false), curated by the next dream pass."""
        chosen = target(scope)
        added = await answer(
            lambda: client.add(chosen, text, metadata=metadata, source_message_ids=source_message_ids or ())
        )
        return Added(scope=added.scope, memory_id=added.memory_id, status="accepted")

    @server.tool(annotations=changing, structured_output=True)
    async def correct_memory(
        memory_id: MemoryId,
        reason: Reason,
        text: Annotated[
            str | None,
            Field(
                description="the corrected text; leave out together with delete=true to delete",
                max_length=MAX_TEXT_CHARS,
            ),
        ] = None,
        delete: Annotated[bool, Field(description="true: delete the memory instead of rewriting it")] = False,
        by: By = "an agent over MCP",
        scope: ScopeArg = None,
    ) -> Corrected:
        """Correct a wrong memory (a new text) or delete it; the next dream pass applies it as a new
        generation, kept in the audit trail and reversible by rollback. A protected memory needs an operator."""
        chosen = target(scope)
        if delete == (text is not None and text.strip() != ""):
            raise ToolError("give either text (a correction) or delete=true, not both and not neither")
        if delete:
            done = await answer(lambda: client.delete(chosen, memory_id, by=by, reason=reason))
        else:
            assert text is not None
            done = await answer(lambda: client.correct(chosen, memory_id, text, by=by, reason=reason))
        return Corrected(
            scope=done.scope,
            memory_id=done.memory_id,
            correction_id=done.correction_id,
            action="delete" if delete else "update",
        )

    @server.tool(annotations=adding, structured_output=True)
    async def trigger_dream(
        scope: ScopeArg = None,
        reason: Annotated[str, Field(description="why now (kept with the pass)", max_length=500)] = (
            "requested by an agent over MCP"
        ),
    ) -> Triggered:
        """Ask dreamstream to consolidate a scope's memory now; the pass runs in the background."""
        chosen = target(scope)
        return Triggered(scope=chosen, request_id=await answer(lambda: client.trigger(chosen, reason)))

    return server


async def _search(
    client: AsyncClient, scope: str, query: str, k: int, where: Filter, as_of: str | None
) -> SearchResult:
    return SearchResult.of(scope, await client.search(scope, query, k, where=where, as_of=as_of))


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
    """Serve a scope's memory to agents over MCP (stdio): search, read, context, add, correct, list, trigger."""
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
