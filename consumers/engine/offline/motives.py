"""Why this scope is worth dreaming about now: signals grouped into a few motives.

One motive per kind (correction, decision, repetition, memory_add, unresolved, dissatisfaction),
each naming the messages behind it. Only fresh signal counts: messages a memory already cites
were consolidated by an earlier pass, so a replayed pass finds no motive and writes nothing.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from consumers.embedding import STOPWORDS
from consumers.engine.offline.clauses import Clause
from consumers.engine.offline.dissatisfaction import RecurringComplaint
from schemas import ConversationTurn, MemoryRecord, Motive

MIN_REPETITIONS = 3
_MAX_LISTED = 5
# Runs of capitalised words or model codes: "Project Falcon", "PostgreSQL", "AX3000".
_ENTITY_RUN = re.compile(r"\b[A-Z][\w+-]*(?:\s+(?:[A-Z][\w+-]*|\d[\w.+-]*))*")


@dataclass
class SignalLog:
    """Message ids behind each transcript signal, in the order they were found."""

    by_kind: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def add(self, kind: str, message_id: str) -> None:
        if message_id not in self.by_kind[kind]:
            self.by_kind[kind].append(message_id)

    def ids(self, kind: str) -> tuple[str, ...]:
        return tuple(self.by_kind.get(kind, ()))


def _entities(text: str) -> list[tuple[str, bool]]:
    """(entity, said mid-sentence) pairs; leading and trailing stopwords dropped."""
    found = []
    for match in _ENTITY_RUN.finditer(text):
        words = match.group(0).split()
        while words and words[0].lower() in STOPWORDS:
            words.pop(0)
        while words and words[-1].lower() in STOPWORDS:
            words.pop()
        if words:
            before = text[: match.start()].rstrip()
            found.append((" ".join(words), bool(before) and before[-1] not in ".!?\n"))
    return found


def repeated_entities(turns: Iterable[ConversationTurn]) -> list[tuple[str, tuple[str, ...]]]:
    """Entities the user mentions in at least MIN_REPETITIONS messages, most mentioned first.

    A capitalised word at the start of a sentence only counts if it is also capitalised
    mid-sentence somewhere, so "Change of plan" is not an entity but "Project Falcon" is.
    """
    per_message = [(t.message_id, _entities(t.content)) for t in turns]
    confirmed = {name for _, found in per_message for name, mid in found if mid}
    messages: dict[str, list[str]] = defaultdict(list)
    for message_id, found in per_message:
        for name in sorted({name for name, _ in found if name in confirmed}):
            messages[name].append(message_id)
    repeated = [(name, tuple(ids)) for name, ids in messages.items() if len(ids) >= MIN_REPETITIONS]
    return sorted(repeated, key=lambda item: (-len(item[1]), item[0]))


def unresolved_threads(turns: Sequence[ConversationTurn], clauses: Mapping[str, list[Clause]],
                       thread_of: Mapping[str, int]) -> tuple[str, ...]:
    """User questions or requests that end a thread with no answer after them."""
    last_in_thread: dict[int, ConversationTurn] = {}
    for turn in turns:
        last_in_thread[thread_of[turn.message_id]] = turn
    return tuple(
        turn.message_id for _, turn in sorted(last_in_thread.items())
        if turn.role == "user" and any(c.kind in ("question", "request") for c in clauses.get(turn.message_id, []))
    )


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_MAX_LISTED])
    return shown + (f" and {len(items) - _MAX_LISTED} more" if len(items) > _MAX_LISTED else "")


def build_motives(signals: SignalLog, repeated: Sequence[tuple[str, tuple[str, ...]]],
                  pending: Sequence[MemoryRecord], unresolved: Sequence[str],
                  complaint: RecurringComplaint | None) -> tuple[Motive, ...]:
    motives: list[Motive] = []
    if ids := signals.ids("correction"):
        motives.append(Motive(kind="correction", summary=f"the user corrected stored values in {len(ids)} message(s)",
                              message_ids=ids))
    if ids := signals.ids("decision"):
        motives.append(Motive(kind="decision", summary=f"{len(ids)} decision(s) stated", message_ids=ids))
    if repeated:
        ids = tuple(dict.fromkeys(i for _, message_ids in repeated for i in message_ids))
        names = [f"{name} ({len(message_ids)} messages)" for name, message_ids in repeated]
        motives.append(Motive(kind="repetition", summary=f"repeatedly mentioned: {_listed(names)}", message_ids=ids))
    if pending:
        ids = tuple(dict.fromkeys(i for record in pending for i in record.evidence_message_ids))
        motives.append(Motive(kind="memory_add", message_ids=ids, summary=(
            f"{len(pending)} memory-add(s) to consolidate: {_listed([r.memory_id for r in pending])}")))
    if unresolved:
        motives.append(Motive(kind="unresolved", message_ids=tuple(unresolved),
                              summary=f"{len(unresolved)} thread(s) end on an unanswered question or request"))
    if complaint is not None:
        motives.append(Motive(kind="dissatisfaction", message_ids=complaint.message_ids, summary=(
            f"repeated dissatisfaction across {complaint.thread_count} threads, "
            f"all about \u201c{complaint.theme}\u201d")))
    return tuple(motives)
