"""`GET {SCOPE}/context?q=TEXT&budget_tokens=N`: one prompt-ready block of a scope's memory.

The block is the core tier (what a pass ranked for an agent's prompt, in that rank:
`dreaming.passes.prune.core_rank`) and then the query's best hits outside it (archive-tier
memories, and memory-adds no pass has curated yet, marked so), each line with the date it holds
from (`valid_from`, `dreaming.store.validity.held_from`). It fits
the budget as the project estimates tokens (`dreaming.passes.prune.estimated_tokens`: the whole
text, headings included, never estimates above `budget_tokens`). With a query, up to half the
budget is kept for its hits, so a large core cannot crowd out what the agent asked about; room the
hits leave goes back to the core. A memory that does not fit is left out whole, never cut, and
counted in `omitted`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from consumers.api.context import ApiContext
from consumers.api.openapi import BOOLEAN, INTEGER, NUMBER, STRING, Operation, Param, array, documented, nullable, obj
from consumers.api.params import BadRequest, int_param, query_params, scope_of
from consumers.api.routes import SCOPE_PATH
from consumers.api.routes.reads import MAX_QUERY_CHARS
from dreaming.passes.prune import core_rank, estimated_tokens
from dreaming.store.history import UnknownScope
from dreaming.store.validity import held_from
from schemas import MemoryRecord

MAX_BUDGET = 100_000
HIT_CANDIDATES = 50
"""How many search hits are considered for the related section (more would never fit a prompt)."""
CORE_HEADING = "Long-term memory (core):"
FRESH = " (new, not consolidated yet)"


def related_heading(query: str) -> str:
    return f"Also relevant to {query!r}:"


@dataclass(frozen=True)
class Line:
    record: MemoryRecord
    section: str
    """`core` or `related`."""
    text: str
    score: float | None = None

    @property
    def cost(self) -> int:
        """Characters, with the newline that joins it to the block."""
        return len(self.text) + 1


def line_of(record: MemoryRecord, section: str, score: float | None = None) -> Line:
    text = f"- [{held_from(record).date().isoformat()}] {' '.join(record.text.split())}"
    return Line(record, section, text + ("" if record.consolidated else FRESH), score)


@dataclass(frozen=True)
class ContextBlock:
    text: str
    chosen: tuple[Line, ...]
    omitted: dict[str, int]

    def to_json(self, scope: str, query: str, budget: int) -> dict[str, Any]:
        return {
            "scope": scope,
            "query": query,
            "budget_tokens": budget,
            "tokens": estimated_tokens(self.text) if self.text else 0,
            "text": self.text,
            "items": [
                {
                    "memory_id": line.record.memory_id,
                    "section": line.section,
                    "tier": line.record.tier,
                    "consolidated": line.record.consolidated,
                    "date": held_from(line.record).date().isoformat(),
                    "text": line.record.text,
                    "tokens": estimated_tokens(line.text),
                    "score": line.score,
                }
                for line in self.chosen
            ],
            "omitted": self.omitted,
        }


def assemble(
    core: Sequence[MemoryRecord], hits: Sequence[tuple[MemoryRecord, float]], query: str, budget_tokens: int
) -> ContextBlock:
    """The block for this core (any order: ranked here) and these search hits (best first)."""
    limit = 4 * budget_tokens + 3  # the largest length estimated_tokens still counts as budget_tokens
    core_lines = [line_of(r, "core") for r in core_rank(list(core))]
    in_core = {r.memory_id for r in core}
    hit_lines = [line_of(r, "related", score) for r, score in hits if r.memory_id not in in_core]
    headings = {"core": CORE_HEADING, "related": related_heading(query)}
    hits_need = sum(line.cost for line in hit_lines) + len(headings["related"]) + 1 if hit_lines else 0
    reserved = min(limit // 2, hits_need)

    chosen: set[int] = set()  # ids of the chosen lines
    opened: set[str] = set()  # sections whose heading is in the block
    used = 0

    def fill(lines: list[Line], room: int) -> None:
        nonlocal used
        for line in lines:
            if id(line) in chosen:
                continue
            cost = line.cost + (0 if line.section in opened else len(headings[line.section]) + 1)
            if used + cost <= room:
                chosen.add(id(line))
                opened.add(line.section)
                used += cost

    fill(core_lines, limit - reserved)
    fill(hit_lines, limit)
    fill(core_lines, limit)  # what the hits left unused goes back to the core
    sections = []
    picked: list[Line] = []
    for name, lines in (("core", core_lines), ("related", hit_lines)):
        kept = [line for line in lines if id(line) in chosen]
        if kept:
            sections.append("\n".join([headings[name], *(line.text for line in kept)]))
            picked += kept
    omitted = {
        "core": sum(id(line) not in chosen for line in core_lines),
        "related": sum(id(line) not in chosen for line in hit_lines),
    }
    return ContextBlock("\n".join(sections), tuple(picked), omitted)


ITEM = obj(
    {
        "memory_id": STRING,
        "section": {"type": "string", "enum": ["core", "related"]},
        "tier": STRING,
        "consolidated": BOOLEAN,
        "date": {"type": "string", "format": "date"},
        "text": STRING,
        "tokens": INTEGER,
        "score": nullable(NUMBER),
    }
)
CONTEXT = Operation(
    "A prompt-ready block: the core tier, then the query's best other memories, each dated, within a token budget",
    description="Tokens are estimated as the core tier's budget is (about four characters a token); the whole "
    "`text` never estimates above `budget_tokens`. With `q`, up to half the budget is kept for its hits.",
    params=(
        Param("q", {"type": "string", "maxLength": MAX_QUERY_CHARS}, "what the agent is about to answer (optional)"),
        Param(
            "budget_tokens",
            {"type": "integer", "minimum": 1, "maximum": MAX_BUDGET},
            "the most estimated tokens of the block (default: the core tier's budget, `core_token_budget`)",
        ),
    ),
    response=obj(
        {
            "scope": STRING,
            "query": STRING,
            "budget_tokens": INTEGER,
            "tokens": INTEGER,
            "text": STRING,
            "items": array(ITEM),
            "omitted": obj({"core": INTEGER, "related": INTEGER}),
        }
    ),
)


def routes(ctx: ApiContext) -> list[web.RouteDef]:
    reader = ctx.reader

    @documented(CONTEXT)
    async def context(request: web.Request) -> web.Response:
        scope = scope_of(request)
        params = query_params(request, "q", "budget_tokens")
        query = " ".join(params.get("q", "").split())
        if len(query) > MAX_QUERY_CHARS:
            raise BadRequest(f"q must be at most {MAX_QUERY_CHARS} characters")
        budget = int_param(params, "budget_tokens", low=1, high=MAX_BUDGET) or ctx.settings.core_token_budget

        def read() -> tuple[list[MemoryRecord], list[tuple[MemoryRecord, float]]]:
            try:
                core = [r for r in reader.records(scope) if r.tier == "core"]
            except UnknownScope:
                if not reader.pending(scope):
                    raise
                core = []  # memory-adds only: no pass has run yet
            hits = reader.search(scope, query, HIT_CANDIDATES) if query else []
            return core, hits

        core, hits = await ctx.read(read)
        return web.json_response(assemble(core, hits, query, budget).to_json(scope, query, budget))

    return [web.get(f"{SCOPE_PATH}/context", context)]
