"""Repeated dissatisfaction that shares one reason across several threads.

A complaint is a user message with a dissatisfied clause ("Too generic.", "It has no direction.")
that reacts to an assistant answer earlier in its session. When complaints in several threads
share a content word that is not complaint vocabulary itself ("direction" in "it has no
direction", "why this direction matters", "the design has no direction either"), the threads
failed for one hidden reason: that is one motive, and worth one memory.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Mapping, Sequence

from consumers.embedding import canonical_terms, canonical_tokens
from consumers.engine.offline.clauses import Clause
from schemas import ConversationTurn

MIN_COMPLAINTS = 3
MIN_THREADS = 2
# Words that say "I am unhappy" rather than what about: never a theme.
_COMPLAINT_VOCABULARY = canonical_tokens(
    "not just only merely still too generic vague long short shallow abstract general complicated technical "
    "basic simple say explain answer address help work make sense tell show either right useful helpful "
    "soul point missing wrong good enough again sound"
)


@dataclass(frozen=True)
class RecurringComplaint:
    theme: str
    """The shared word as the user wrote it, e.g. "direction"."""
    message_ids: tuple[str, ...]
    quotes: tuple[str, ...]
    """One complaint clause per message, the one that names the theme."""
    thread_count: int


def _complaints(turns: Sequence[ConversationTurn], clauses: Mapping[str, list[Clause]],
                excluded: frozenset[str]) -> list[tuple[ConversationTurn, list[Clause]]]:
    answered_sessions: set[str] = set()
    found = []
    for turn in turns:
        if turn.role == "assistant":
            answered_sessions.add(turn.session_id)
            continue
        if turn.role != "user" or turn.message_id in excluded or turn.session_id not in answered_sessions:
            continue
        complaint = [c for c in clauses.get(turn.message_id, []) if c.kind == "dissatisfaction"]
        if complaint:
            found.append((turn, complaint))
    return found


def recurring_complaint(turns: Sequence[ConversationTurn], clauses: Mapping[str, list[Clause]],
                        thread_of: Mapping[str, int], excluded: frozenset[str]) -> RecurringComplaint | None:
    """The most widespread shared complaint theme, if one spans enough messages and threads."""
    complaints = _complaints(turns, clauses, excluded)
    messages_by_token: dict[str, list[str]] = defaultdict(list)
    surfaces: dict[str, Counter[str]] = defaultdict(Counter)
    for turn, complaint_clauses in complaints:
        seen: set[str] = set()
        for clause in complaint_clauses:
            for token, surface in canonical_terms(clause.body):
                if token in _COMPLAINT_VOCABULARY or token in seen:
                    continue
                seen.add(token)
                messages_by_token[token].append(turn.message_id)
                surfaces[token][surface] += 1
    ranked = sorted(
        ((len(ids), len({thread_of[i] for i in ids}), token) for token, ids in messages_by_token.items()),
        key=lambda item: (-item[0], -item[1], item[2]),
    )
    for message_count, thread_count, token in ranked:
        if message_count < MIN_COMPLAINTS or thread_count < MIN_THREADS:
            continue
        with_theme = set(messages_by_token[token])
        quotes = tuple(
            next(c.body for c in complaint_clauses if token in canonical_tokens(c.body))
            for turn, complaint_clauses in complaints if turn.message_id in with_theme
        )
        theme = min(surfaces[token].items(), key=lambda item: (-item[1], item[0]))[0]
        return RecurringComplaint(theme, tuple(messages_by_token[token]), quotes, thread_count)
    return None


def complaint_memory_text(complaint: RecurringComplaint, user_name: str | None) -> str:
    who = user_name or "The user"
    quoted = " / ".join(f"\u201c{quote}\u201d" for quote in complaint.quotes)
    return (f"{who} was dissatisfied in {complaint.thread_count} separate threads for one shared reason, "
            f"{complaint.theme}: {quoted}")
