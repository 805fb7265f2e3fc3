"""Read and check the evaluation inputs: events, memory-adds and questions (JSONL).

Every problem is reported as one `DatasetError` naming the file and line, e.g.
`questions.jsonl:3: evidence_message_ids: 'ava-s9#0' is not a message of scope demo/travel-assistant/ava`.
Events and memory-adds are validated with the same contracts the pipeline uses, so a set that
loads here replays without dead letters.

Question lines: `{"scope", "question", "answer", "evidence_message_ids": [...], "category"}`, plus
optionally `"stale_message_ids": [...]` (messages that carry a value a later message replaced) and
`"id"`. Unknown fields are rejected, so a misspelt `stale_message_ids` cannot silently turn off a check.
"""

from __future__ import annotations

import fnmatch
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from schemas import ConversationTurn, MemoryAdd
from schemas.errors import describe_validation_error
from schemas.scope import ScopeStr

KNOWN_CATEGORIES = ("knowledge_update", "temporal", "dedup", "retention", "isolation", "motive")


class DatasetError(ValueError):
    """An input file that cannot be evaluated; the message names the file and line."""


class Question(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str | None = None
    scope: ScopeStr
    question: str = Field(min_length=1)
    answer: str = Field(min_length=1)
    evidence_message_ids: tuple[str, ...] = Field(default=())
    category: str = Field(min_length=1, max_length=64)
    stale_message_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Dataset:
    turns: tuple[ConversationTurn, ...]
    adds: tuple[MemoryAdd, ...]
    questions: tuple[Question, ...]
    files: tuple[Path, ...] = ()
    """The event files (turns and memory-adds) in the order given, for replay."""
    _messages_by_scope: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)

    @property
    def scopes(self) -> list[str]:
        return sorted({t.scope for t in self.turns} | {a.scope for a in self.adds})

    def messages_of(self, scope: str) -> frozenset[str]:
        return self._messages_by_scope.get(scope, frozenset())

    @property
    def message_scopes(self) -> dict[str, frozenset[str]]:
        """message id -> the scopes that have a message with that id (ids may repeat across scopes)."""
        owners: dict[str, set[str]] = defaultdict(set)
        for turn in self.turns:
            owners[turn.message_id].add(turn.scope)
        return {i: frozenset(s) for i, s in owners.items()}

    def turns_of(self, scope: str) -> list[ConversationTurn]:
        """The scope's turns in the producer's order: by timestamp, then file order (a stable sort).
        Never by message id: ids are labels, and as text "D1:10" sorts before "D1:2"."""
        return sorted((t for t in self.turns if t.scope == scope), key=lambda t: t.ts)

    def adds_of(self, scope: str) -> list[MemoryAdd]:
        """The scope's memory-adds by timestamp, then file order."""
        return sorted((a for a in self.adds if a.scope == scope), key=lambda a: a.ts)

    def subset(self, scopes: Iterable[str]) -> Dataset:
        """The same set restricted to `scopes` (events, memory-adds and questions). It has no files:
        `write_events` gives it some when it is to be replayed."""
        keep = set(scopes)
        return Dataset(
            tuple(t for t in self.turns if t.scope in keep),
            tuple(a for a in self.adds if a.scope in keep),
            tuple(q for q in self.questions if q.scope in keep),
            (),
            {s: ids for s, ids in self._messages_by_scope.items() if s in keep},
        )

    def write_events(self, directory: Path) -> Dataset:
        """Write the turns and memory-adds as JSONL under `directory` (for a replay); the same set with those files."""
        directory.mkdir(parents=True, exist_ok=True)
        files = []
        for name, events in (("events.jsonl", self.turns), ("memory_adds.jsonl", self.adds)):
            if events or name == "events.jsonl":
                path = directory / name
                path.write_text("".join(e.model_dump_json() + "\n" for e in events), encoding="utf-8")
                files.append(path)
        return Dataset(self.turns, self.adds, self.questions, tuple(files), self._messages_by_scope)


def select_scopes(scopes: Sequence[str], patterns: Sequence[str] = (), limit: int = 0) -> list[str]:
    """The scopes matching any of the shell-style `patterns` (all when none is given), in order,
    at most `limit` of them (0: no limit). A pattern that matches nothing is an error, so a typo
    never silently evaluates nothing."""
    chosen = list(scopes)
    for pattern in patterns:
        if not any(fnmatch.fnmatchcase(s, pattern) for s in scopes):
            raise DatasetError(f"--scopes {pattern!r} matches none of the {len(scopes)} scopes (e.g. {scopes[0]})")
    if patterns:
        chosen = [s for s in scopes if any(fnmatch.fnmatchcase(s, p) for p in patterns)]
    return chosen[:limit] if limit > 0 else chosen


def _rows(path: Path) -> Iterator[tuple[int, dict[str, object]]]:
    """(line number, parsed object) for every non-blank line."""
    try:
        handle = open(path, "rb")
    except OSError as err:
        raise DatasetError(f"{path}: cannot read: {err.strerror or err}") from err
    with handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as err:
                raise DatasetError(f"{path}:{number}: not valid JSON: {err}") from err
            if not isinstance(data, dict):
                raise DatasetError(f"{path}:{number}: expected a JSON object, got {type(data).__name__}")
            yield number, data


def read_events(paths: list[Path]) -> tuple[list[ConversationTurn], list[MemoryAdd]]:
    """Turns and memory-adds from JSONL files; a line with `memory_id` is a memory-add (as in replay)."""
    turns: list[ConversationTurn] = []
    adds: list[MemoryAdd] = []
    seen_turns: dict[tuple[str, str], str] = {}
    seen_adds: dict[tuple[str, str], str] = {}
    for path in paths:
        for number, data in _rows(path):
            where = f"{path}:{number}"
            model = MemoryAdd if "memory_id" in data else ConversationTurn
            if "action" in data:
                raise DatasetError(f"{where}: control events do not belong in an evaluation set")
            try:
                event = model.model_validate(data)
            except ValidationError as err:
                kind = "memory-add" if model is MemoryAdd else "conversation turn"
                raise DatasetError(f"{where}: invalid {kind}: {describe_validation_error(err, limit=1)}") from err
            if isinstance(event, MemoryAdd):
                key, seen = (event.scope, event.memory_id), seen_adds
                adds.append(event)
            else:
                key, seen = (event.scope, event.message_id), seen_turns
                turns.append(event)
            if key in seen:
                raise DatasetError(f"{where}: duplicate id {key[1]!r} in scope {key[0]} (first at {seen[key]})")
            seen[key] = where
    return turns, adds


def read_questions(path: Path, messages_by_scope: dict[str, frozenset[str]], scopes: set[str]) -> list[Question]:
    questions: list[Question] = []
    for number, data in _rows(path):
        where = f"{path}:{number}"
        try:
            question = Question.model_validate(data)
        except ValidationError as err:
            raise DatasetError(f"{where}: invalid question: {describe_validation_error(err, limit=1)}") from err
        if question.scope not in scopes:
            raise DatasetError(f"{where}: scope {question.scope} has no events or memory-adds")
        known = messages_by_scope.get(question.scope, frozenset())
        for name in ("evidence_message_ids", "stale_message_ids"):
            for message_id in getattr(question, name):
                if message_id not in known:
                    raise DatasetError(f"{where}: {name}: {message_id!r} is not a message of scope {question.scope}")
        questions.append(question)
    if not questions:
        raise DatasetError(f"{path}: no questions")
    return questions


def load_dataset(events: Path, questions: Path, memory_adds: Path | None = None) -> Dataset:
    files = [events] + ([memory_adds] if memory_adds else [])
    turns, adds = read_events(files)
    if not turns:
        raise DatasetError(f"{events}: no conversation turns")
    by_scope: dict[str, set[str]] = defaultdict(set)
    for turn in turns:
        by_scope[turn.scope].add(turn.message_id)
    messages = {s: frozenset(ids) for s, ids in by_scope.items()}
    scopes = set(messages) | {a.scope for a in adds}
    qs = read_questions(questions, messages, scopes)
    return Dataset(tuple(turns), tuple(adds), tuple(qs), tuple(files), messages)
