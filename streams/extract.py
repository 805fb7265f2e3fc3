"""Cheap per-event signal extraction for the stream worker.

This runs on every turn of every tenant, so it is a handful of precompiled regexes and a token
scan: no parsing, no model. It only has to say "something here is worth a pass"; the dream pass
does the careful reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CORRECTION = re.compile(
    r"^\s*(?:no|nope|actually|correction|sorry,? i meant|i meant)\b"
    r"|\b(?:not \w+ but|instead of|changed my mind|no longer|that's wrong|that is wrong|rather than)\b"
    r"|\b\w+,\s*not\s+\w+",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\b(?:we|i)\s*(?:'ve|'ll| have| will| are going to)?\s*(?:decided|chose|chosen|picked|settled on|go(?:ing)? with)\b"
    r"|\b(?:let's|we'll|we will|i'll|i will)\s+(?:use|switch|go with|move to|adopt)\b"
    r"|\bswitch(?:ed|ing)?\s+(?:\w+\s+){0,3}to\b",
    re.IGNORECASE,
)
# Entities: capitalised words not at a sentence start, and tokens mixing letters and digits.
_ENTITY = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-zA-Z]{2,}|[A-Za-z]+\d+[A-Za-z\d]*|\d+[A-Za-z]+[A-Za-z\d]*)\b")
_COMMON_CAPS = frozenset({"The", "This", "That", "And", "But", "For", "With", "Please", "Thanks", "Yes", "Sure"})


@dataclass(frozen=True)
class TurnSignals:
    correction: bool
    decision: bool
    entities: tuple[str, ...]


def extract(role: str, content: str) -> TurnSignals:
    """Signals in one turn. Corrections and decisions count only when the user says them."""
    user = role == "user"
    entities = tuple(dict.fromkeys(e for e in _ENTITY.findall(content) if e not in _COMMON_CAPS))[:8]
    return TurnSignals(
        correction=user and _CORRECTION.search(content) is not None,
        decision=user and _DECISION.search(content) is not None,
        entities=entities,
    )
