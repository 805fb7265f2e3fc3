"""What a reader may ask for besides the scope: a memory's tier, origin, whether a pass curated it,
when it was created or last updated, equality on its flat metadata keys, and whom or what it is
about (`about`: the memories that name a person or thing, the way "list everything Ava did" is
asked).

One `MemoryFilter`, two translations: `conditions()` narrows the store query (payload conditions
over the memories collection, which every backend evaluates in its engine), and `matches()`
decides, on records in hand: the results of that query, the memory-adds no pass has curated yet
(they live in the inbox), a cached generation, the ranking of a search over a scope's cached
index. The store query may keep more than the filter asks, never less (a unit test holds every
backend to that); a boolean, which not every engine matches (the embedded one reads `true` as
the integer 1), is left to `matches()`, and so is `consolidated`: the memories collection holds
curated records only. `about` is read in the text, so it too is left to `matches()` (the
store keeps every record; a generation is read whole once and cached).

Metadata values are compared the way a query string can spell them: `meta.ticket=123` matches the
string "123" and the number 123; `meta.vip=true` the string "true" and the boolean true.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from language.text_caches import text_cache
from schemas import MemoryRecord
from schemas.memory import MemoryOrigin, MemoryTier

if TYPE_CHECKING:
    from qdrant_client import models

RECORD = "record"
"""Where a memory point's payload keeps the record (dreaming/store/memories.py)."""
METADATA_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""Keys a filter can name: a dot or a bracket would read as a path into the payload."""
_INTEGER = re.compile(r"-?\d{1,18}")
ABOUT_MAX_CHARS = 100


@dataclass(frozen=True)
class MemoryFilter:
    tier: MemoryTier | None = None
    origin: MemoryOrigin | None = None
    consolidated: bool | None = None
    """True: curated memories only; False: memory-adds no pass has curated yet only."""
    created_after: datetime | None = None
    """Inclusive lower bound (aware)."""
    created_before: datetime | None = None
    """Exclusive upper bound (aware)."""
    updated_after: datetime | None = None
    updated_before: datetime | None = None
    metadata: tuple[tuple[str, str], ...] = ()
    """(key, value as the query spelled it), every one must hold."""
    about: str | None = None
    """Only memories whose text names this person or thing (`names`)."""

    def __post_init__(self) -> None:
        for key, _ in self.metadata:
            if not METADATA_KEY.fullmatch(key):
                raise ValueError(f"metadata filter key {key!r} must be 1-64 letters, digits, _ or -")
        if self.about is not None and not (
            len(self.about) <= ABOUT_MAX_CHARS and any(ch.isalnum() for ch in self.about)
        ):
            raise ValueError(f"about must name someone or something in at most {ABOUT_MAX_CHARS} characters")

    @property
    def empty(self) -> bool:
        return self == MemoryFilter()

    @property
    def wants_curated(self) -> bool:
        return self.consolidated is not False

    @property
    def wants_pending(self) -> bool:
        return self.consolidated is not True

    # --- in hand
    def matches(self, record: MemoryRecord) -> bool:
        if self.tier is not None and record.tier != self.tier:
            return False
        if self.origin is not None and record.origin != self.origin:
            return False
        if self.consolidated is not None and record.consolidated != self.consolidated:
            return False
        if not _within(record.created_at, self.created_after, self.created_before):
            return False
        if not _within(record.updated_at, self.updated_after, self.updated_before):
            return False
        if self.about is not None and not names(record.text, self.about):
            return False
        metadata = record.metadata or {}
        return all(key in metadata and _value_matches(metadata[key], raw) for key, raw in self.metadata)

    # --- in the store query
    def conditions(self) -> list[models.Condition]:
        """Payload conditions on a memory point (`record.*`), to AND with the scope filter: what the
        store can narrow; `matches()` decides on what it returns."""
        from qdrant_client import models  # here: readers that only match in hand never load Qdrant

        out: list[models.Condition] = []
        for field, value in (("tier", self.tier), ("origin", self.origin)):
            if value is not None:
                out.append(models.FieldCondition(key=f"{RECORD}.{field}", match=models.MatchValue(value=value)))
        for field, low, high in (
            ("created_at", self.created_after, self.created_before),
            ("updated_at", self.updated_after, self.updated_before),
        ):
            if low is not None or high is not None:
                out.append(models.FieldCondition(key=f"{RECORD}.{field}", range=models.DatetimeRange(gte=low, lt=high)))
        for key, raw in self.metadata:
            if raw not in ("true", "false"):  # a boolean's spelling is left to matches()
                out.append(models.Filter(should=_value_conditions(f"{RECORD}.metadata.{key}", raw)))
        return out

    def to_json(self) -> dict[str, object]:
        """The filter as given, for echoing in an answer (only what was set)."""
        out: dict[str, object] = {}
        for name in ("tier", "origin", "consolidated"):
            if (value := getattr(self, name)) is not None:
                out[name] = value
        for name in ("created_after", "created_before", "updated_after", "updated_before"):
            if (value := getattr(self, name)) is not None:
                out[name] = value.isoformat()
        out.update({f"meta.{key}": raw for key, raw in self.metadata})
        if self.about is not None:
            out["about"] = self.about
        return out


NO_FILTER = MemoryFilter()


def names(text: str, about: str) -> bool:
    """Whether `text` names `about`: its words in order as whole words, in any case, the last one
    also as a possessive or a plural ("Ava" in "Ava's sister", not in "Avalon"; "pottery class" in
    "two pottery classes")."""
    return _naming(about).search(text) is not None


@text_cache(maxsize=256)
def _naming(about: str) -> re.Pattern[str]:
    words = re.findall(r"[^\W_]+(?:['\u2019][^\W_]+)*", about)
    spaced = r"[\s-]+".join(re.escape(word) for word in words)
    return re.compile(rf"(?<![^\W_]){spaced}(?:['\u2019]s|s|es)?(?![^\W_])", re.IGNORECASE)


def _within(value: datetime, low: datetime | None, high: datetime | None) -> bool:
    return (low is None or value >= low) and (high is None or value < high)


def _spelled_number(raw: str) -> float | None:
    if _INTEGER.fullmatch(raw):
        return float(int(raw))
    try:
        number = float(raw)
    except ValueError:
        return None
    return number if math.isfinite(number) and raw.strip() == raw else None


def _value_matches(value: object, raw: str) -> bool:
    if isinstance(value, bool):
        return raw == ("true" if value else "false")
    if isinstance(value, int | float):
        number = _spelled_number(raw)
        return number is not None and float(value) == number
    return isinstance(value, str) and value == raw


def _value_conditions(key: str, raw: str) -> list[models.Condition]:
    """Any of the values `raw` spells: the string itself, or a number (int or float alike)."""
    from qdrant_client import models

    out: list[models.Condition] = [models.FieldCondition(key=key, match=models.MatchValue(value=raw))]
    number = _spelled_number(raw)
    if number is not None:
        out.append(models.FieldCondition(key=key, range=models.Range(gte=number, lte=number)))
    return out
