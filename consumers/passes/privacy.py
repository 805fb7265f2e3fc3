"""A privacy filter for text a pass is about to write: contact details, card numbers, secrets."""

from __future__ import annotations

import re
from dataclasses import dataclass

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
    def default(cls) -> "PrivacyFilter":
        return cls(tuple((name, re.compile(p)) for name, p in DEFAULT_PATTERNS))

    def findings(self, text: str) -> list[str]:
        return [name for name, pattern in self.patterns if pattern.search(text)]

    def mask(self, text: str) -> tuple[str, list[str]]:
        found: list[str] = []
        for name, pattern in self.patterns:
            text, count = pattern.subn(f"[{name} removed]", text)
            if count:
                found.append(name)
        return text, found
