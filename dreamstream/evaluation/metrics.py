"""The metrics, as pure functions over plain data (no store, no Kafka), so each is unit-tested.

Per question (aggregated per category and overall as the mean over the questions it applies to):

- `evidence_recall`  — evidence recall@k
- `answer_containment` — answer containment@k
- `knowledge_update` — knowledge update (memory) / `baseline_knowledge_update` (raw transcripts)

Over the whole store after the passes:

- `retention`, `compression`, `near_duplicates`, `undated_relative_times`, `isolation_leaks`

Answer and date matching rules are in `matching.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Mapping, NamedTuple, Sequence

from consumers.embedding import canonical_tokens
from dreamstream.evaluation.matching import any_contains, has_undated_relative_time, with_iso_dates
from schemas import MemoryRecord

NEAR_DUPLICATE_JACCARD = 0.75


class Item(NamedTuple):
    """One retrieved or stored thing: a memory (provenance = its evidence message ids) or a raw
    transcript message (provenance = its own message id)."""

    text: str
    provenance: tuple[str, ...]
    scope: str
    key: str = ""


def evidence_recall(evidence_ids: Sequence[str], top_k: Sequence[Item]) -> float | None:
    """Evidence recall@k: the share of the question's evidence message ids that appear in the
    provenance of at least one of the top-k items. None (not applicable) when the question lists no
    evidence: such questions (facts only a memory-add holds) are left out of the mean, not counted as 1."""
    wanted = set(evidence_ids)
    if not wanted:
        return None
    found = {i for item in top_k for i in item.provenance} & wanted
    return len(found) / len(wanted)


def answer_containment(answer: str, top_k: Sequence[Item]) -> bool:
    """Answer containment@k: some top-k item's text contains the answer — its words in order, whole
    words, case- and punctuation-insensitive; a date answer matches any spelling of that date
    ("2026-03-10", "March 10, 2026", "10 March 2026", ...). See `matching.py`."""
    return any_contains((item.text for item in top_k), answer)


def rests_only_on(provenance: Iterable[str], stale_ids: Iterable[str]) -> bool:
    """A memory rests only on stale messages when it cites at least one message and every message it
    cites is stale. (A memory citing no message at all rests on nothing the transcript says.)"""
    cited, stale = set(provenance), set(stale_ids)
    return bool(cited) and cited <= stale


def knowledge_update(answer: str, stale_ids: Sequence[str], top_k: Sequence[Item],
                     active: Sequence[Item]) -> bool | None:
    """Knowledge update, for questions with `stale_message_ids` (None otherwise): passes when the
    new value is found (answer containment@k) AND no active memory of the scope — anywhere in the
    store, not only in the top k — rests only on the stale messages (`rests_only_on`)."""
    if not stale_ids:
        return None
    if not answer_containment(answer, top_k):
        return False
    return not any(rests_only_on(item.provenance, stale_ids) for item in active)


def baseline_knowledge_update(answer: str, stale_ids: Sequence[str], top_k: Sequence[Item]) -> bool | None:
    """Knowledge update for the raw-transcript baseline: the transcript never drops a message, so the
    whole-store condition would fail by construction; instead the new value must be in the top-k
    messages and no stale message may be among them. (Laxer than the memory rule, never stricter.)"""
    if not stale_ids:
        return None
    stale = set(stale_ids)
    return answer_containment(answer, top_k) and not any(set(item.provenance) & stale for item in top_k)


@dataclass(frozen=True)
class Retention:
    adds_total: int
    adds_retained: int
    facts_total: int
    facts_retained: int
    lost_adds: tuple[str, ...] = ()
    lost_facts: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return self.adds_total + self.facts_total

    @property
    def retained(self) -> int:
        return self.adds_retained + self.facts_retained

    @property
    def share(self) -> float | None:
        return self.retained / self.total if self.total else None


def memory_add_retained(memory_id: str, records: Mapping[str, MemoryRecord]) -> bool:
    """A memory-add is retained when the active generation still shows it: its record is active
    (possibly reworded, e.g. a date made absolute), or it was merged into a record that is (following
    `merged_into`, or listed in an active record's `merged_from`). Superseded, archived or absent
    (never absorbed, or dropped) is not retained."""
    if any(r.is_active and memory_id in r.merged_from for r in records.values()):
        return True
    seen: set[str] = set()
    current = records.get(memory_id)
    while current is not None and current.memory_id not in seen:
        if current.is_active:
            return True
        if current.status != "merged" or not current.merged_into:
            return False
        seen.add(current.memory_id)
        current = records.get(current.merged_into)
    return False


def retention(adds: Sequence[tuple[str, str, tuple[str, ...]]], stale_by_scope: Mapping[str, set[str]],
              records_by_scope: Mapping[str, Mapping[str, MemoryRecord]],
              facts: Sequence[tuple[str, str, str]]) -> Retention:
    """Retention: of the memory-adds and facts no transcript contradicts, the share still active.

    - `adds`: (scope, memory_id, source_message_ids). A memory-add is *contradicted* when it cites a
      message that some question of its scope lists in `stale_message_ids`; contradicted adds are
      left out. The rest count as retained per `memory_add_retained`.
    - `facts`: (scope, question, answer) of the questions of category `retention`: a fact is retained
      when any active memory of its scope contains the answer (all active memories, not only top k).
    `records_by_scope` holds every record of each scope's active generation (inactive ones too).
    """
    adds_total = adds_kept = 0
    lost_adds: list[str] = []
    for scope, memory_id, sources in adds:
        if set(sources) & stale_by_scope.get(scope, set()):
            continue
        adds_total += 1
        if memory_add_retained(memory_id, records_by_scope.get(scope, {})):
            adds_kept += 1
        else:
            lost_adds.append(f"{scope}:{memory_id}")
    facts_kept = 0
    lost_facts: list[str] = []
    for scope, question, answer in facts:
        active = [r.text for r in records_by_scope.get(scope, {}).values() if r.is_active]
        if any_contains(active, answer):
            facts_kept += 1
        else:
            lost_facts.append(f"{scope}: {question}")
    return Retention(adds_total, adds_kept, len(facts), facts_kept, tuple(lost_adds), tuple(lost_facts))


def compression(active_memories: int, input_messages: int) -> float | None:
    """Compression: active memories per input message (conversation turns + memory-adds), over all
    scopes. Lower is more compact; read it beside retention and containment, since 0 is trivial."""
    return active_memories / input_messages if input_messages else None


def near_duplicate_tokens(text: str) -> frozenset[str]:
    """Canonical content tokens (the project's canonicaliser: stopwords out, light stemming, a small
    paraphrase lexicon, so "does not eat meat" ≈ "vegetarian"), with dates spelled ISO first."""
    return canonical_tokens(with_iso_dates(text))


def is_near_duplicate(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two memories are near-duplicates when their token sets overlap with Jaccard >= 0.75 and they do
    not disagree on a value (each holding a token the other lacks, as "window" vs "aisle": that is a
    contradiction, not a duplicate). One adding detail to the other is still a duplicate."""
    if not a or not b:
        return False
    if (a - b) and (b - a):
        return False
    return len(a & b) / len(a | b) >= NEAR_DUPLICATE_JACCARD


@dataclass(frozen=True)
class NearDuplicates:
    memories: int
    """Active memories with at least one near-duplicate in the same scope."""
    total: int
    pairs: tuple[tuple[str, str], ...]

    @property
    def rate(self) -> float | None:
        return self.memories / self.total if self.total else None


def near_duplicates(active_by_scope: Mapping[str, Sequence[Item]]) -> NearDuplicates:
    """Near-duplicate rate: the share of active memories that have a near-duplicate
    (`is_near_duplicate`) among the other active memories of the same scope (never across scopes)."""
    flagged: set[tuple[str, str]] = set()
    pairs: list[tuple[str, str]] = []
    total = 0
    for scope, items in sorted(active_by_scope.items()):
        total += len(items)
        tokens = [near_duplicate_tokens(item.text) for item in items]
        for i, j in combinations(range(len(items)), 2):
            if is_near_duplicate(tokens[i], tokens[j]):
                flagged.update({(scope, items[i].key or str(i)), (scope, items[j].key or str(j))})
                pairs.append((items[i].text, items[j].text))
    return NearDuplicates(len(flagged), total, tuple(pairs))


def undated_relative_times(texts: Iterable[str]) -> list[str]:
    """Undated relative times: the active memories whose text holds a relative time with no absolute
    date beside it ("next Tuesday", "yesterday", "next week's meeting"); see `matching.py`."""
    return [text for text in texts if has_undated_relative_time(text)]


def isolation_leaks(read_scope: str, items: Iterable[Item], message_scopes: Mapping[str, frozenset[str]]) -> list[str]:
    """Isolation leaks among items read for `read_scope`: an item stored under another scope, or
    citing a message that exists only in other scopes. Message ids may repeat across scopes, so an id
    the read scope also has is never a leak. Should always be empty."""
    leaks = []
    for item in items:
        foreign = [i for i in item.provenance if i in message_scopes and read_scope not in message_scopes[i]]
        if item.scope != read_scope or foreign:
            leaks.append(f"{read_scope} read {item.key or item.text[:40]!r} of {item.scope}"
                         + (f" citing {foreign}" if foreign else ""))
    return leaks


def mean(values: Iterable[float | bool | None]) -> float | None:
    """Mean over the applicable values (None = not applicable); None when none applies."""
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None


__all__ = [
    "Item", "NearDuplicates", "Retention", "answer_containment", "baseline_knowledge_update", "compression",
    "evidence_recall", "is_near_duplicate", "isolation_leaks", "knowledge_update", "mean",
    "memory_add_retained", "near_duplicates", "rests_only_on", "retention", "undated_relative_times",
]
