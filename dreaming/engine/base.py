"""The interface both engines implement.

An engine reads the immutable snapshot and the signals the gather pass found in it (the motives:
why this scope is worth a pass) and proposes a plan. The pass has already decided that there is
something to do: an engine is never called for a scope without signal. After the plan is applied,
the engine also verifies the claims the plan left alone against the transcripts (`verify`), so
the phases depend on this interface only, never on one engine's rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from dreaming.signals import Signals
from dreaming.snapshot import Snapshot
from schemas import ActionPlan, ConversationTurn, MemoryRecord, Motive
from schemas.actions import MemoryAction

Search = Callable[[str, str, int], Sequence[tuple[ConversationTurn, float]]]
"""(scope, query, k) -> the k most related transcript messages of the scope, e.g. TranscriptStore.search."""
Judgement = Literal["contradicted", "supported", "silent"]


class EngineError(RuntimeError):
    """The engine could not produce a valid plan (e.g. malformed model output). The pass fails
    and memory stays as it was; it is never read as "no changes"."""

    spent: EngineResult | None = None
    """What the engine used before it failed (model calls, tokens), for the diary and metrics."""


@dataclass(frozen=True)
class EngineResult:
    plan: ActionPlan
    motives: tuple[Motive, ...] = ()
    """The motives the engine worked from (the gather pass's)."""
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    model_seconds: float = 0.0
    """Wall seconds spent waiting for the model."""
    unread_message_ids: frozenset[str] = frozenset()
    """New messages the engine did not read (its call budget ran out, or a later chunk failed): the
    pass's watermark stops before the first of them, so the next pass reads them."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Human-readable remarks for the dream diary (e.g. an ignored prompt injection)."""


class Curated(Protocol):
    """The candidate generation as verify reads it (`dreaming.passes.apply.Candidate`)."""

    @property
    def records(self) -> Mapping[str, MemoryRecord]:
        """Every record of the candidate by memory id (active or not); verify only reads it."""
        ...

    @property
    def active(self) -> list[MemoryRecord]: ...


@dataclass(frozen=True)
class Finding:
    judgement: Judgement
    message_id: str = ""
    replacement: str | None = None
    """For a contradiction: what the claim should say now (None when only its removal is known)."""
    quote: str = ""
    keeps_claim: bool = False
    """The replacement keeps the claim's own words beside the new value, so it cites the claim's
    evidence as well as the contradicting message."""


SILENT = Finding("silent")


@dataclass(frozen=True)
class Verdict:
    memory_id: str
    finding: Finding


@dataclass(frozen=True)
class Verified:
    """What verify found: a verdict per claim checked, and the actions for the contradicted ones
    (applied like any plan)."""

    verdicts: tuple[Verdict, ...] = ()
    actions: tuple[MemoryAction, ...] = ()
    notes: tuple[str, ...] = ()
    searched: int = 0

    def count(self, judgement: str) -> int:
        return sum(1 for v in self.verdicts if v.finding.judgement == judgement)

    def describe(self) -> str:
        return (
            f"verify: {len(self.verdicts)} claims checked ({self.searched} searched): "
            f"{self.count('contradicted')} contradicted, {self.count('supported')} supported, "
            f"{self.count('silent')} silent"
        )


@dataclass(frozen=True, eq=False)
class ReadAhead:
    """What an engine read of one snapshot before proposing (`ReadsAhead`): the texts it will embed
    first, and its own reading, handed back to `propose` with the same snapshot."""

    snapshot: Snapshot
    texts: tuple[str, ...]
    state: object


@runtime_checkable
class ReadsAhead(Protocol):
    """An engine whose first embeddings can be batched across passes (`DreamPass.run_many`): one
    model call for several scopes' texts costs less per token than one small call per scope."""

    def read_ahead(self, snapshot: Snapshot, signals: Signals) -> ReadAhead: ...

    def embed_ahead(self, texts: Sequence[str]) -> None: ...

    def propose(self, snapshot: Snapshot, signals: Signals, ahead: ReadAhead | None = None) -> EngineResult: ...


class Engine(Protocol):
    name: str

    def propose(self, snapshot: Snapshot, signals: Signals) -> EngineResult:
        """Read the snapshot and its signals, return the actions that would curate it. Must not
        mutate anything."""
        ...

    def verify(
        self, snapshot: Snapshot, candidate: Curated, search: Search, *, top_k: int, max_claims: int
    ) -> Verified:
        """Judge the existing claims of `candidate` the plan left alone against the transcripts
        (`search`, top_k hits a claim, at most `max_claims` claims); must not mutate anything."""
        ...
