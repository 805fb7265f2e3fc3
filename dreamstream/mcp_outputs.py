"""What the MCP tools answer: typed models, so every tool has an output schema an MCP client can
read, and what they are made from (the HTTP client's answers)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from dreaming.store.validity import held_from
from dreamstream.client import Context, MemoryHistory, Page, SearchHit
from schemas import MemoryRecord


class Memory(BaseModel):
    memory_id: str
    text: str
    status: str = Field(description="active, superseded, merged or archived")
    tier: str = Field(description="core (what belongs in a prompt) or archive (searchable)")
    consolidated: bool = Field(description="false: a fresh note no dream pass has reviewed yet")
    origin: str
    protected: bool
    valid_from: str | None = Field(description="when its evidence made it true (ISO-8601)")
    valid_to: str | None = Field(description="when newer evidence ended it; null while it holds")
    evidence_message_ids: list[str]
    metadata: dict[str, str | int | float | bool | None] | None

    @classmethod
    def of(cls, record: MemoryRecord) -> Memory:
        return cls(
            memory_id=record.memory_id,
            text=record.text,
            status=record.status,
            tier=record.tier,
            consolidated=record.consolidated,
            origin=record.origin,
            protected=record.protected,
            valid_from=held_from(record).isoformat(),
            valid_to=record.valid_to.isoformat() if record.valid_to else None,
            evidence_message_ids=list(record.evidence_message_ids),
            metadata=dict(record.metadata) if record.metadata else None,
        )


class Hit(Memory):
    score: float


class SearchResult(BaseModel):
    scope: str
    results: list[Hit] = Field(description="best first")

    @classmethod
    def of(cls, scope: str, hits: list[SearchHit]) -> SearchResult:
        return cls(
            scope=scope,
            results=[Hit(**Memory.of(h.memory).model_dump(), score=round(h.score, 4)) for h in hits],
        )


class Version(BaseModel):
    generation: int
    generation_status: str
    memory: Memory | None = Field(description="the memory in that generation; null when it was not in it")
    valid_from: str | None = Field(description="when the value of this version began to hold (ISO-8601)")
    valid_to: str | None = Field(description="when it stopped holding; null while it holds, or off the active line")


class MemoryDetail(BaseModel):
    scope: str
    memory_id: str
    memory: Memory | None = Field(description="as readers see it now; null once it is no longer in the active set")
    history: list[Version] = Field(description="what it was in every kept generation, oldest first")

    @classmethod
    def of(cls, scope: str, memory_id: str, found: MemoryHistory) -> MemoryDetail:
        return cls(
            scope=scope,
            memory_id=memory_id,
            memory=Memory.of(found.memory) if found.memory else None,
            history=[
                Version(
                    generation=v.generation,
                    generation_status=v.generation_status,
                    memory=Memory.of(v.record) if v.record else None,
                    valid_from=v.valid_from.isoformat() if v.valid_from else None,
                    valid_to=v.valid_to.isoformat() if v.valid_to else None,
                )
                for v in found.versions
            ],
        )


class ContextLine(BaseModel):
    memory_id: str
    section: str = Field(description="core, or related (the query's best memories outside the core)")
    date: str
    text: str
    tokens: int
    consolidated: bool


class ContextBlock(BaseModel):
    scope: str
    text: str = Field(description="the block to put in a prompt")
    tokens: int = Field(description="its estimated tokens, never above budget_tokens")
    budget_tokens: int
    items: list[ContextLine]
    omitted: dict[str, int] = Field(description="memories left out for room, per section")

    @classmethod
    def of(cls, context: Context) -> ContextBlock:
        return cls(
            scope=context.scope,
            text=context.text,
            tokens=context.tokens,
            budget_tokens=context.budget_tokens,
            items=[
                ContextLine(
                    memory_id=i.memory_id,
                    section=i.section,
                    date=i.date,
                    text=i.text,
                    tokens=i.tokens,
                    consolidated=i.consolidated,
                )
                for i in context.items
            ],
            omitted=dict(context.omitted),
        )


class Listing(BaseModel):
    scope: str
    generation: int
    total: int
    next_cursor: str | None = Field(description="pass it back as cursor for the next page; null on the last")
    memories: list[Memory]

    @classmethod
    def of(cls, page: Page) -> Listing:
        return cls(
            scope=page.scope,
            generation=page.generation,
            total=page.total,
            next_cursor=page.next_cursor,
            memories=[Memory.of(m) for m in page.memories],
        )


class Added(BaseModel):
    scope: str
    memory_id: str
    status: str = Field(description="accepted: searchable at once as not consolidated; the next dream curates it")


class Corrected(BaseModel):
    scope: str
    memory_id: str
    correction_id: str
    action: str = Field(description="update or delete; the next dream pass applies it (reversible by rollback)")


class Triggered(BaseModel):
    scope: str
    request_id: str


class Scopes(BaseModel):
    configured: list[str] = Field(description="the scopes and tenant/agent/* patterns this server serves")
    scopes: list[str] = Field(description="the scopes of those holding memory now")
