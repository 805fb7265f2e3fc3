"""Variants of an evaluation set in shapes no rule was written from, to check that a figure is not
the set's spelling: the same conversations typed in lower case, without name prefixes, or joined
into longer scopes by the person they are with. Each keeps the questions' evidence ids and answers,
so the set's questions still ask what its messages say.

- `lower_cased`: each message's text in lower case (after its name prefix, which stays), as many
  people type; `roles` limits it to some roles (BEAM's users).
- `unprefixed`: "Caroline: …" becomes "…", the first speaker of a scope `user` and the second
  `assistant`, as a two-person chat reaches an agent that only knows roles.
- `joined_by_person`: the scopes whose user introduces themself by one name ("I'm Craig") become
  one scope, their sessions interleaved by date (a session stays whole); scopes with no such name
  become one more. One person working on several projects with one assistant, as in longer chats.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from language.person import detect_user_name
from language.speakers import split_speaker

Row = dict[str, Any]

UNNAMED = "unnamed"
"""The joined scope of the scopes whose user gives no name."""

FILES = ("events.jsonl", "questions.jsonl", "memory_adds.jsonl")


def read_set(directory: Path) -> dict[str, list[Row]]:
    """The set's files as rows (a missing file as none)."""
    found: dict[str, list[Row]] = {}
    for name in FILES:
        path = directory / name
        found[name] = _rows(path) if path.exists() else []
    return found


def _rows(path: Path) -> list[Row]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{number}: not JSON ({err.msg})") from err
        if not isinstance(row, dict) or not isinstance(row.get("scope"), str):
            raise ValueError(f"{path}:{number}: not an object with a scope")
        rows.append(row)
    return rows


def write_set(directory: Path, rows: Mapping[str, Sequence[Row]]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, lines in rows.items():
        if lines or name == "events.jsonl":
            text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in lines)
            (directory / name).write_text(text, encoding="utf-8")


def lower_cased(events: Iterable[Row], roles: frozenset[str] | None = None) -> list[Row]:
    """Each message's text (after its name prefix) in lower case; only `roles`' messages if given."""
    out = []
    for event in events:
        if "content" in event and (roles is None or event.get("role") in roles):
            name, body = split_speaker(event["content"])
            event = {**event, "content": f"{name}: {body.lower()}" if name else body.lower()}
        out.append(event)
    return out


def unprefixed(events: Iterable[Row]) -> list[Row]:
    """Name prefixes cut; a scope's first named speaker is `user`, its second `assistant` (a third
    or later speaker keeps the prefix: two roles cannot tell three people apart)."""
    speakers: dict[str, list[str]] = defaultdict(list)
    out = []
    for event in events:
        name, body = split_speaker(event.get("content", ""))
        known = speakers[event["scope"]]
        if name is not None and name not in known and len(known) < 2:
            known.append(name)
        if name is None or name not in known:
            out.append(event)
            continue
        role = "user" if known.index(name) == 0 else "assistant"
        out.append({**event, "role": role, "content": body})
    return out


def person_of_each_scope(events: Iterable[Row]) -> dict[str, str]:
    """The name each scope's user introduces themself by (`language.person.detect_user_name`, as
    the engine reads it), else `UNNAMED`."""
    said: dict[str, list[str]] = defaultdict(list)
    for event in events:
        texts = said[event["scope"]]
        if event.get("role") == "user":
            texts.append(event.get("content", ""))
    return {scope: (detect_user_name(texts) or UNNAMED).lower() for scope, texts in said.items()}


def joined_by_person(rows: Mapping[str, Sequence[Row]], prefix: str = "eval/joined") -> dict[str, list[Row]]:
    """One scope per person (`person_of_each_scope`): the events of its scopes in the order of
    their sessions' first days (a session whole, a day's sessions in the scopes' order), each at
    its own time, or a microsecond after the event before it when that is later, so the order
    survives a sort; questions and memory-adds follow their scope."""
    events = rows["events.jsonl"]
    person = person_of_each_scope(events)
    order = {scope: index for index, scope in enumerate(dict.fromkeys(e["scope"] for e in events))}
    sessions: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for event in events:
        sessions[(event["scope"], event.get("session_id", ""))].append(event)

    def started(key: tuple[str, str]) -> tuple[str, int]:
        return (sessions[key][0]["ts"][:10], order[key[0]])

    joined: dict[str, list[Row]] = defaultdict(list)
    for key in sorted(sessions, key=started):
        joined[person[key[0]]].extend(sessions[key])
    out_events = []
    for name, scope_events in joined.items():
        last: datetime | None = None
        for event in scope_events:
            ts = datetime.fromisoformat(event["ts"])
            if last is not None and ts <= last:
                ts = last + timedelta(microseconds=1)  # two chats' sessions of one day: one after the other
            last = ts
            out_events.append({**event, "scope": f"{prefix}/{name}", "ts": ts.isoformat()})
    moved = {
        name: [{**row, "scope": f"{prefix}/{person[row['scope']]}"} for row in rows.get(name, ())]
        for name in ("questions.jsonl", "memory_adds.jsonl")
    }
    return {"events.jsonl": out_events, **moved}
