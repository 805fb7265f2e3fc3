"""A privacy filter for text a pass is about to write: contact details, card numbers, secrets.

Two modes (`privacy_mode`): **mask** (default) rewrites every new or changed memory before the
gate, replacing each finding by `[<name> removed]` and noting which memories were masked in the
diary; **block** leaves the texts alone, so the gate finds them and quarantines the generation.
Extra patterns come from `privacy_patterns` (name -> regex) and run after the defaults.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from dreaming.passes.apply import Candidate

# Patterns err on the side of catching: a masked false positive costs a word, a leaked card
# number costs far more. Each is (name, pattern).
DEFAULT_PATTERNS: tuple[tuple[str, str], ...] = (
    ("email", r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"),
    ("card_number", r"\b(?:\d[ -]?){13,19}\b"),
    ("phone", r"(?<![\w-])\+?\d{1,3}[ .-]?\(?\d{2,4}\)?[ .-]?\d{3,4}[ .-]?\d{3,4}\b"),
    ("secret", r"\b(?:sk|pk|rk|ghp|xox[abp])[-_][A-Za-z0-9_-]{12,}\b|\bAKIA[0-9A-Z]{16}\b"),
    ("password", r"(?i)\b(?:password|passwd|pwd)\s*[:=]\s*\S+"),
)


@dataclass(frozen=True)
class PrivacyFilter:
    patterns: tuple[tuple[str, re.Pattern[str]], ...]

    @classmethod
    def default(cls) -> PrivacyFilter:
        return cls.with_extra({})

    @classmethod
    def with_extra(cls, extra: Mapping[str, str]) -> PrivacyFilter:
        """The default patterns plus `extra` (name -> regex), e.g. from the `privacy_patterns` setting."""
        named = list(DEFAULT_PATTERNS) + sorted(extra.items())
        return cls(tuple((name, re.compile(pattern)) for name, pattern in named))

    def findings(self, text: str) -> list[str]:
        return [name for name, pattern in self.patterns if pattern.search(text)]

    def mask(self, text: str) -> tuple[str, list[str]]:
        found: list[str] = []
        for name, pattern in self.patterns:
            text, count = pattern.subn(f"[{name} removed]", text)
            if count:
                found.append(name)
        return text, found


def mask_candidate(candidate: Candidate, privacy: PrivacyFilter) -> tuple[Candidate, tuple[str, ...]]:
    """Mask what the pass writes (new and changed memories); returns the new candidate and one
    note per masked memory. Records carried over unchanged were checked when they were written.

    The stored record gets the masked text and keeps everything else it has now: a change's
    `after` may be older than the record (a memory updated, then superseded by a later action),
    and swapping it in would bring a retired memory back to life."""
    records = dict(candidate.records)
    changes = []
    notes: list[str] = []
    for change in candidate.changes:
        after = change.after
        if change.kind in ("created", "updated") and after is not None:
            text, found = privacy.mask(after.text)
            if found:
                current = records.get(after.memory_id)
                if current is not None and current.text == after.text:
                    records[after.memory_id] = current.model_copy(update={"text": text})
                notes.append(f"privacy: masked {', '.join(found)} in memory {after.memory_id}")
                change = replace(change, after=after.model_copy(update={"text": text}))
        changes.append(change)
    return candidate.carry(records, changes), tuple(dict.fromkeys(notes))
