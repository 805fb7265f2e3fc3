"""Prune: keep a scope's generation lean. Three steps, in this order:

1. **condense**: an active, unprotected memory longer than `condense_chars` keeps its first
   sentence(s) up to that length (a single over-long sentence is cut at a word, with an ellipsis).
   It is an `UpdateAction` citing the memory's own evidence, so provenance is kept; a memory with
   no evidence in the transcript window cannot cite any and is left as it is (noted).
2. **leave retired records out**: a superseded, merged or archived record stays in the generation
   that retired it and the next ones, until it was already inactive `N` generations back
   (`Snapshot.long_inactive_ids`); then it is not copied forward. Its history stays in the audit
   trail, the diary and the older kept generations.
3. **tier**: every active memory stays active and searchable; the best-ranked ones, up to
   `core_token_budget` estimated tokens and `memory_cap` memories, form the *core* (what an agent
   puts in its prompt), the rest the *archive* (returned by every read and search, never hidden).
   Room is never a reason to lose a fact.

Rank (higher is core): protected first, then confidence + 0.5 * use + 0.5 * recency, where use is
min(evidence, 4) / 4 (how many messages support it: how often it came up, since reads are not
tracked) and recency is 1.0 for the memory whose evidence made it true last (`held_from`: its
`valid_from`, the time of its evidence or of the correction that set its text) falling linearly to
0.0 for the one that has held longest. Ties go to the more recent, then the shorter text, then the
memory id. Every key is read from what was said and when, never from when a job ran: the same
history gives the same core at any replay pace, and a memory a pass only condensed or re-tiered
does not look new.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.passes.apply import Candidate, apply_actions
from dreaming.snapshot import Snapshot
from dreaming.store.validity import held_from
from language.sentences import split_sentences
from schemas import MemoryRecord, UpdateAction

_ELLIPSIS = "\u2026"


@dataclass(frozen=True)
class PruneResult:
    candidate: Candidate
    condensed: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()
    archived: tuple[str, ...] = ()
    """Active memories ranked into the archive tier (still returned by every read and search)."""
    notes: tuple[str, ...] = ()

    def describe(self) -> str:
        return (
            f"prune: {len(self.condensed)} condensed, {len(self.left_out)} retired records left out, "
            f"{len(self.candidate.active) - len(self.archived)} core and {len(self.archived)} archive-tier memories"
        )


def _held_since(memory: MemoryRecord) -> float:
    return held_from(memory).timestamp()


def prune_score(memory: MemoryRecord, oldest: float, newest: float) -> float:
    span = max(newest - oldest, 1.0)
    recency = (_held_since(memory) - oldest) / span
    return memory.confidence + 0.5 * min(len(memory.evidence_message_ids), 4) / 4 + 0.5 * recency


def estimated_tokens(text: str) -> int:
    """About four characters a token for English, as prompt budgets are usually estimated."""
    return max(1, len(text) // 4)


def condensed_text(text: str, limit: int) -> str:
    """The first sentence(s) of `text` that fit in `limit` characters."""
    if len(text) <= limit:
        return text
    kept = ""
    for sentence in split_sentences(text.strip()):
        joined = f"{kept} {sentence}" if kept else sentence
        if len(joined) > limit:
            break
        kept = joined
    if kept:
        return kept
    cut = text[: limit - 1].rsplit(None, 1)[0].rstrip(",;:-\u2013\u2014 ")
    return cut + _ELLIPSIS


def condense_actions(
    snapshot: Snapshot, candidate: Candidate, limit: int
) -> tuple[tuple[UpdateAction, ...], list[str]]:
    known = {t.message_id for t in snapshot.transcript}
    actions: list[UpdateAction] = []
    notes: list[str] = []
    for memory in sorted(candidate.active, key=lambda m: m.memory_id):
        if memory.protected or len(memory.text) <= limit:
            continue
        evidence = tuple(i for i in memory.evidence_message_ids if i in known)
        if not evidence:
            notes.append(
                f"prune: {memory.memory_id} is {len(memory.text)} chars but cites no message in the "
                "transcript window, so it cannot be rewritten with evidence; left as it is"
            )
            continue
        actions.append(
            UpdateAction(
                target=memory.memory_id,
                text=condensed_text(memory.text, limit),
                evidence_message_ids=evidence,
                rationale=(
                    f"prune: condensed from {len(memory.text)} to at most {limit} characters (first sentences kept)"
                ),
            )
        )
    return tuple(actions), notes


def leave_out_retired(candidate: Candidate, long_inactive: frozenset[str]) -> tuple[str, ...]:
    """Drop records that were already inactive `N` generations back from the candidate."""
    gone = tuple(sorted(i for i, m in candidate.records.items() if i in long_inactive and not m.is_active))
    for memory_id in gone:
        del candidate.records[memory_id]
    return gone


def core_rank(memories: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """Best first, by the rank the core tier is filled in (the module's docstring); readers that
    put part of the core in a prompt (the context endpoint) keep to the same order."""
    if not memories:
        return []
    stamps = [_held_since(m) for m in memories]
    oldest, newest = min(stamps), max(stamps)
    return sorted(
        memories,
        key=lambda m: (not m.protected, -prune_score(m, oldest, newest), -_held_since(m), len(m.text), m.memory_id),
    )


def assign_tiers(candidate: Candidate, cap: int, token_budget: int) -> tuple[str, ...]:
    """Rank the active memories; the best fill the core (budget and count), the rest go to the
    archive. Returns the ids now in the archive. Not a change of what memory says: no change
    event, the generation simply records each memory's tier."""
    active = candidate.active
    if not active:
        return ()
    ranked = core_rank(active)
    used, core = 0, 0
    archive: list[str] = []
    for memory in ranked:
        cost = estimated_tokens(memory.text)
        fits = memory.protected or (core < cap and used + cost <= token_budget)
        tier = "core" if fits else "archive"
        if fits:
            used, core = used + cost, core + 1
        else:
            archive.append(memory.memory_id)
        if memory.tier != tier:
            candidate.records[memory.memory_id] = memory.model_copy(update={"tier": tier})
    return tuple(sorted(archive))


def prune(
    snapshot: Snapshot, candidate: Candidate, *, cap: int, condense_chars: int, core_token_budget: int = 2_000
) -> PruneResult:
    """Condense, leave out long-retired records, rank core and archive; returns a new candidate."""
    actions, notes = condense_actions(snapshot, candidate, condense_chars)
    pruned = apply_actions(snapshot, candidate, actions)
    left_out = leave_out_retired(pruned, snapshot.long_inactive_ids)
    archived = assign_tiers(pruned, cap, core_token_budget)
    return PruneResult(pruned, tuple(a.target for a in actions), left_out, archived, tuple(notes))
