"""The metrics, as pure functions over plain data (no store, no Kafka), so each is unit-tested.

Both sides are judged by the same functions. An `Item` is what a reader gets back: on the memory
side a curated memory (provenance = the message ids it cites), on the baseline side a raw
transcript message (provenance = its own id) or a raw memory-add (provenance = its
`source_message_ids`).

Per question (aggregated per category and overall as the mean over the questions it applies to):

- `evidence_recall`  — evidence recall@k
- `answer_containment` — answer containment@k
- `knowledge_update` — knowledge update, judged on the items read, one rule for both sides
- `stale_leak` — an item read still states the old value of an update without the new one
- `coverage` — the answer is in *any* item of the scope (no retrieval): what retrieval could at best find
- `date_resolved` — an exact-day temporal answer stands as an absolute date in an item citing the evidence

Over the whole store after the passes:

- `retention`, `compression`, `near_duplicates`, `undated_relative_times`, `isolation_leaks`

Answer and date matching rules are in `matching.py`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from dreamstream_tools.evaluation.matching import (
    DateMention,
    Haystack,
    answer_date,
    contains_answer,
    date_mentions,
    has_undated_relative_time,
    with_iso_dates,
)
from dreamstream_tools.evaluation.old_values import Value, states_any, states_new_value
from language.dates import without_stamp
from schemas import MemoryRecord

NEAR_DUPLICATE_COSINE = 0.92
"""Cosine at or above which two memories of a scope say the same thing. Chosen for the evaluation
alone: it is not the engine's merge threshold, so the engine cannot pass this check by definition."""


class Item(NamedTuple):
    """One retrieved or stored thing: a memory (provenance = its evidence message ids), a raw
    transcript message (provenance = its own message id) or a raw memory-add (provenance = its
    source message ids)."""

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
    words, case- and punctuation-insensitive; a date answer matches any spelling of its day
    ("2026-03-10", "March 10, 2026", "10.03.2026", ...). See `matching.py`."""
    return Haystack(item.text for item in top_k).contains(answer)


def rests_only_on(provenance: Iterable[str], stale_ids: Iterable[str]) -> bool:
    """An item rests only on stale messages when it cites at least one message and every message it
    cites is stale (a stale transcript message cites itself). An item citing nothing rests on
    nothing the transcript says."""
    cited, stale = set(provenance), set(stale_ids)
    return bool(cited) and cited <= stale


def knowledge_update(
    answer: str, stale_ids: Sequence[str], top_k: Sequence[Item], old: frozenset[Value] = frozenset()
) -> bool | None:
    """Knowledge update, for questions with `stale_message_ids` (None otherwise), the same rule for
    the curated memory and the baseline: a reader of the top k gets the new value and nothing that
    states only the old one — the answer is contained in the top k and no top-k item rests only on
    stale messages (`rests_only_on`) while stating one of the `old` values (`old_values.py`; any
    such item when the old values are not known). Judged on the top k, because that is what a
    reader sees; a stale memory the search never returns misleads nobody, while one it returns
    misleads whatever else the store holds."""
    if not stale_ids:
        return None
    if not answer_containment(answer, top_k):
        return False
    return not any(
        rests_only_on(item.provenance, stale_ids) and (not old or states_any(item.text, old)) for item in top_k
    )


def states_old_value(answer: str, stale_ids: Iterable[str], item: Item, old: frozenset[Value] = frozenset()) -> bool:
    """An item states the old value of an update when it cites a stale message, mentions one of the
    `old` values (any item citing one, when they are not known) and does not give the new one
    (contains the answer, or states each of its values: `old_values.states_new_value`). One rule
    for both sides: a stale raw message cites itself and states its own value; a memory citing
    the stale message that has since taken the new value does not count, nor does one that keeps
    another clause of the stale message."""
    return (
        bool(set(item.provenance) & set(stale_ids))
        and not (contains_answer(item.text, answer) or states_new_value(answer, item.text))
        and (not old or states_any(item.text, old))
    )


def stale_leak(
    answer: str, stale_ids: Sequence[str], read: Sequence[Item], old: frozenset[Value] = frozenset()
) -> bool | None:
    """Stale leak, for questions with `stale_message_ids` (None otherwise): some item the reader
    gets still states the old value without the new one (`states_old_value`)."""
    if not stale_ids:
        return None
    return any(states_old_value(answer, stale_ids, item, old) for item in read)


def coverage(answer: str, everything: Haystack) -> bool:
    """Coverage: the answer is contained in any item of the scope (all of them, no retrieval). Over
    the scope's raw messages it is the ceiling that containment@k can reach from the transcript."""
    return everything.contains(answer)


def exact_day(answer: str) -> DateMention | None:
    """The day an exact-date answer names (`matching.answer_date`), or None for any other answer."""
    found = answer_date(answer)
    return found if found is not None and found.day is not None else None


def date_resolved(answer: str, evidence_ids: Sequence[str], items: Sequence[Item]) -> bool | None:
    """Date resolution, for answers that name one exact day (None otherwise): some item citing one
    of the question's evidence messages states that day as an absolute date (any spelling). The
    temporal answers of real conversations are mostly relative times resolved ("yesterday" said on
    8 May → 7 May): this is what a memory that dated them gets, and a raw message rarely does."""
    day = exact_day(answer)
    if day is None or not evidence_ids:
        return None
    evidence = set(evidence_ids)
    return any(day in date_mentions(item.text) for item in items if evidence & set(item.provenance))


# --- the store
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

    @property
    def adds_share(self) -> float | None:
        return self.adds_retained / self.adds_total if self.adds_total else None


def is_visible(record: MemoryRecord) -> bool:
    """What reads and searches return: an active memory of either tier (the bounded core and the
    searchable archive alike; a tier is a ranking, never a reason to hide). Records that were
    superseded, merged away or archived as status are not visible."""
    return record.is_active


def memory_add_retained(memory_id: str, records: Mapping[str, MemoryRecord]) -> bool:
    """A memory-add is retained when readers still see it: its record is visible (possibly reworded,
    e.g. a date made absolute; core or archive tier), or it was merged into a record that is
    (following `merged_into`, or listed in a visible record's `merged_from`). Superseded, merged into
    nothing visible, or absent (never absorbed, or dropped) is not retained."""
    if any(is_visible(r) and memory_id in r.merged_from for r in records.values()):
        return True
    seen: set[str] = set()
    current = records.get(memory_id)
    while current is not None and current.memory_id not in seen:
        if is_visible(current):
            return True
        if current.status != "merged" or not current.merged_into:
            return False
        seen.add(current.memory_id)
        current = records.get(current.merged_into)
    return False


def retention(
    adds: Sequence[tuple[str, str, tuple[str, ...]]],
    stale_by_scope: Mapping[str, set[str]],
    records_by_scope: Mapping[str, Mapping[str, MemoryRecord]],
    facts: Sequence[tuple[str, str, str]],
    pending_by_scope: Mapping[str, set[str]] | None = None,
) -> Retention:
    """Retention: of the memory-adds and facts no transcript contradicts, the share readers still see.

    - `adds`: (scope, memory_id, source_message_ids). A memory-add is *contradicted* when it cites a
      message that some question of its scope lists in `stale_message_ids`; contradicted adds are
      left out. The rest count as retained per `memory_add_retained`, or when still pending in the
      scope's inbox (searchable, not yet consolidated: `pending_by_scope`).
    - `facts`: (scope, question, answer) of the questions of category `retention`: a fact is retained
      when any visible memory of its scope contains the answer (all of them, not only top k).
    `records_by_scope` holds every record of each scope's active generation (inactive ones too).
    """
    pending_by_scope = pending_by_scope or {}
    adds_total = adds_kept = 0
    lost_adds: list[str] = []
    for scope, memory_id, sources in adds:
        if set(sources) & stale_by_scope.get(scope, set()):
            continue
        adds_total += 1
        if memory_id in pending_by_scope.get(scope, set()) or memory_add_retained(
            memory_id, records_by_scope.get(scope, {})
        ):
            adds_kept += 1
        else:
            lost_adds.append(f"{scope}:{memory_id}")
    facts_kept = 0
    lost_facts: list[str] = []
    for scope, question, answer in facts:
        visible = Haystack(r.text for r in records_by_scope.get(scope, {}).values() if is_visible(r))
        if visible.contains(answer):
            facts_kept += 1
        else:
            lost_facts.append(f"{scope}: {question}")
    return Retention(adds_total, adds_kept, len(facts), facts_kept, tuple(lost_adds), tuple(lost_facts))


def compression(active_memories: int, input_messages: int) -> float | None:
    """Compression: active memories per input message (conversation turns + memory-adds), over all
    scopes. Lower is more compact; read it beside retention and containment, since 0 is trivial."""
    return active_memories / input_messages if input_messages else None


_NUMBER = re.compile(r"\d+")


def values(text: str) -> frozenset[str]:
    """The numbers a text states, with every date spelled ISO first (so "7 May 2023" and
    "2023-05-07" hold the same values)."""
    return frozenset(_NUMBER.findall(with_iso_dates(text)))


def values_conflict(a: frozenset[str], b: frozenset[str]) -> bool:
    """Each holds a number or date the other lacks ("45 sources" vs "52 sources"): a different
    value, not a duplicate. One adding a number the other lacks is still a duplicate."""
    return bool(a - b) and bool(b - a)


@dataclass(frozen=True)
class NearDuplicates:
    memories: int
    """Visible memories with at least one near-duplicate in the same scope."""
    total: int
    pairs: tuple[tuple[str, str], ...]

    @property
    def rate(self) -> float | None:
        return self.memories / self.total if self.total else None


def near_duplicate_pairs(
    texts: Sequence[str], vectors: np.ndarray, threshold: float = NEAR_DUPLICATE_COSINE
) -> list[tuple[int, int]]:
    """Index pairs (i < j) of one scope's memories whose embeddings (rows L2-normalised) have cosine
    >= threshold and whose numbers and dates do not conflict (`values_conflict`)."""
    if len(texts) < 2:
        return []
    rows, cols = np.triu_indices(len(texts), k=1)
    close = (vectors @ vectors.T)[rows, cols] >= threshold
    pairs = []
    for i, j in zip(rows[close].tolist(), cols[close].tolist()):
        if not values_conflict(values(texts[i]), values(texts[j])):
            pairs.append((i, j))
    return pairs


def near_duplicates(
    items_by_scope: Mapping[str, Sequence[Item]],
    embed_array: Callable[[Sequence[str]], np.ndarray],
    threshold: float = NEAR_DUPLICATE_COSINE,
    statement: Callable[[str], str] = lambda text: text,
) -> NearDuplicates:
    """Near-duplicate rate: the share of visible memories that have a near-duplicate
    (`near_duplicate_pairs`) among the other visible memories of the same scope (never across
    scopes). `embed_array(texts) -> (n, dims)` L2-normalised rows: the runtime's embedder.
    `statement(text)` is what is compared: the store passes its own embedding text (the memory
    without its "(said on …)" stamp), so the same claim stamped on two days is a duplicate and
    the vectors are the ones the store already computed."""
    flagged = 0
    pairs: list[tuple[str, str]] = []
    total = 0
    for _, items in sorted(items_by_scope.items()):
        total += len(items)
        if len(items) < 2:
            continue
        texts = [statement(item.text) for item in items]
        found = near_duplicate_pairs(texts, np.asarray(embed_array(texts)), threshold)
        flagged += len({i for pair in found for i in pair})
        pairs.extend((items[i].text, items[j].text) for i, j in found)
    return NearDuplicates(flagged, total, tuple(pairs))


def undated_relative_times(texts: Iterable[str]) -> list[str]:
    """Undated relative times: the active memories whose statement holds a relative time with no
    absolute date beside it ("next Tuesday", "yesterday", "next week's meeting"); see `matching.py`.
    The statement is the memory's body without its "(said on DATE)" stamp: the day a thing was
    said does not date what it says ("yesterday" stays undated however it is stamped)."""
    return [text for text in texts if has_undated_relative_time(without_stamp(text))]


@dataclass(frozen=True)
class WordStats:
    """Words per item (memory, message, memory-add) over a set of items."""

    items: int
    median: float | None
    p90: float | None


def word_stats(counts: Sequence[int]) -> WordStats:
    """Median and 90th percentile (linear interpolation) of word counts; None for no items."""
    if not counts:
        return WordStats(0, None, None)
    values = np.asarray(counts, dtype=np.float64)
    return WordStats(len(counts), float(np.percentile(values, 50)), float(np.percentile(values, 90)))


def isolation_leaks(read_scope: str, items: Iterable[Item], message_scopes: Mapping[str, frozenset[str]]) -> list[str]:
    """Isolation leaks among items read for `read_scope`: an item stored under another scope, or
    citing a message that exists only in other scopes. Message ids may repeat across scopes, so an id
    the read scope also has is never a leak. Should always be empty."""
    leaks = []
    for item in items:
        foreign = [i for i in item.provenance if i in message_scopes and read_scope not in message_scopes[i]]
        if item.scope != read_scope or foreign:
            leaks.append(
                f"{read_scope} read {item.key or item.text[:40]!r} of {item.scope}"
                + (f" citing {foreign}" if foreign else "")
            )
    return leaks


def mean(scores: Iterable[float | bool | None]) -> float | None:
    """Mean over the applicable scores (None = not applicable); None when none applies."""
    present = [float(v) for v in scores if v is not None]
    return sum(present) / len(present) if present else None


__all__ = [
    "Item",
    "NEAR_DUPLICATE_COSINE",
    "NearDuplicates",
    "Retention",
    "answer_containment",
    "compression",
    "coverage",
    "date_resolved",
    "evidence_recall",
    "exact_day",
    "is_visible",
    "isolation_leaks",
    "knowledge_update",
    "mean",
    "memory_add_retained",
    "near_duplicate_pairs",
    "near_duplicates",
    "rests_only_on",
    "retention",
    "stale_leak",
    "states_old_value",
    "undated_relative_times",
    "WordStats",
    "word_stats",
    "values",
    "values_conflict",
]
