"""A deterministic synthetic evaluation set: many scopes, long transcripts, every question category.

`generate(seed, scopes, messages)` builds, per scope, about `messages / scopes` messages in
sessions of twelve (six user turns, six assistant replies) spread over the weeks from 2026-01-05,
and writes the three JSONL files of the evaluation format. The same seed always gives the same
bytes. The sentence banks and the calendar rules are in `synth_corpus.py`. What each scope
holds:

- **knowledge updates**: a value stated early ("Breakfast for me is always porridge") and changed
  later in another session, by a correction ("I stopped having porridge for breakfast and went with
  toast instead") or a decision ("We agreed to move the Project Tern tickets out of Jira and into
  Linear"); sometimes a memory-add recorded the old value (citing the stale message). One correction
  in four is phrased loosely ("Mornings start with toast for me lately") the way people also talk.
  Questions carry `stale_message_ids`.
- **temporal**: an appointment given relative to the message ("next Tuesday", "tomorrow", "in 3
  weeks", "at the end of next month"); the answer is the absolute date, resolved here (independently
  of the engine) with the conventions of `dreaming/engine/offline/relative_time.py`, and written in
  one of three spellings (2026-03-10, March 10, 2026, 10 March 2026).
- **dedup**: one fact said twice in different sessions in other words ("I'm allergic to peanuts" /
  "Peanuts give me a bad reaction"), sometimes also as a memory-add.
- **retention**: memory-adds no transcript mentions (one of them protected) and transcript facts
  nobody contradicts.
- **isolation**: scopes come in pairs `acme/<agent>/<user>` and `globex/<agent>/<user>` with the same
  agent, user id and user name, and different values for the same facts.
- **motive**: three threads where the user rejects the answer for one shared reason.
- filler: questions, requests and thanks (never memories), small talk statements (memories nobody
  asks about), relative times nobody resolves ("next weekend"), one prompt injection.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dreamstream_tools.evaluation.synth_corpus import (
    AGENTS,
    ASSISTANT,
    FILLER_QUESTIONS,
    FILLER_REQUESTS,
    FILLER_THANKS,
    INJECTION,
    ISOLATION,
    MOTIVE_THEMES,
    MOTIVE_THREADS,
    NAMES,
    PARAPHRASES,
    PROJECTS,
    RELATIVE_FORMS,
    SESSION_USER_TURNS,
    SILENT_ADDS,
    SLOTS,
    SMALL_TALK,
    STABLE_FACTS,
    START,
    SURNAMES,
    TEMPORAL_THINGS,
    TENANTS,
    UNDATED,
    WEEKDAYS,
    WORDS,
    resolve,
    spell,
)


# --- building one scope
@dataclass
class Turn:
    role: str
    content: str
    tag: str = ""
    """Names the turn for questions and memory-adds that cite it."""


def _fill(template: str, rng: random.Random, **known: str) -> str:
    values = {key: rng.choice(options) for key, options in WORDS.items()}
    values.update(known)
    return template.format(**values)


class ScopeBuilder:
    def __init__(
        self,
        rng: random.Random,
        scope: str,
        prefix: str,
        sessions: int,
        name: str,
        full_name: str,
        project: str,
        isolation_values: tuple[str, ...],
    ) -> None:
        self.rng = rng
        self.scope = scope
        self.prefix = prefix
        self.name = name
        self.full_name = full_name
        self.project = project
        self.isolation_values = isolation_values
        self.sessions: list[list[Turn]] = [[] for _ in range(sessions)]
        self.days = self._session_days(sessions)
        self.questions: list[dict[str, Any]] = []
        self._pending_adds: list[tuple[str, dict[str, Any]]] = []
        self._count = 0

    def _session_days(self, count: int) -> list[datetime]:
        day, out = START, []
        for _ in range(count):
            hour = self.rng.randint(8, 19)
            out.append(datetime(day.year, day.month, day.day, hour, self.rng.choice((0, 15, 30)), tzinfo=UTC))
            day += timedelta(days=self.rng.choice((1, 1, 2, 2, 3)))
        return out

    def _tag(self) -> str:
        self._count += 1
        return f"t{self._count}"

    def say(self, session: int, text: str, reply: str | None = None) -> str:
        tag = self._tag()
        self.sessions[session].append(Turn("user", text, tag))
        self.sessions[session].append(Turn("assistant", reply or self.rng.choice(ASSISTANT)))
        return tag

    def ask(self, category: str, question: str, answer: str, evidence: list[str], stale: tuple[str, ...] = ()) -> None:
        self.questions.append(
            {
                "scope": self.scope,
                "question": question,
                "answer": answer,
                "evidence_message_ids": evidence,
                "category": category,
                **({"stale_message_ids": list(stale)} if stale else {}),
            }
        )

    def add(self, memory_id: str, text: str, cites: str | None, *, protected: bool = False) -> None:
        row: dict[str, Any] = {
            "scope": self.scope,
            "memory_id": f"{self.prefix}-{memory_id}",
            "text": text,
            "source_message_ids": [cites] if cites else [],
        }
        if protected:
            row["protected"] = True
        self._pending_adds.append((cites or "", row))

    def two_sessions(self) -> tuple[int, int]:
        first = self.rng.randrange(1, len(self.sessions) // 2)
        return first, self.rng.randrange(first + 1, len(self.sessions))

    # -- the scripted content, one kind at a time (the order fixes the random draws: keep it)
    def build(self) -> None:
        self.say(0, f"Hello, {self.name} here.", f"Welcome, {self.name}.")
        for part in (
            self._knowledge_updates,
            self._temporal,
            self._dedup,
            self._retention,
            self._isolation,
            self._motive,
            self._filler_statements,
        ):
            part(self.rng, len(self.sessions))
        self._pad()

    def _knowledge_updates(self, rng: random.Random, n: int) -> None:
        for slot in rng.sample(SLOTS, 6):
            old, new = rng.sample(slot.values, 2)
            early, late = self.two_sessions()
            fields = {"old": old, "new": new, "project": self.project, "name": self.name}
            stale = self.say(early, slot.fact.format(**fields))
            change = slot.loose if rng.random() < 0.25 else slot.change
            fresh = self.say(late, change.format(**fields))
            if rng.random() < 0.4:
                self.add(f"{slot.name}-old", slot.memory.format(**fields), stale)
            self.ask("knowledge_update", slot.question.format(**fields), new, [fresh], (stale,))

    def _temporal(self, rng: random.Random, n: int) -> None:
        for thing in rng.sample(TEMPORAL_THINGS, 4):
            form = rng.choice(RELATIVE_FORMS)
            session = rng.randrange(1, n)
            weekday, count = rng.choice(WEEKDAYS), rng.randint(2, 5)
            when = form.format(weekday=weekday, n=count)
            said = "due " + when if form.startswith("at the end") else when
            tag = self.say(session, f"My {thing} is {said}.")
            day = resolve(form, self.days[session].date(), weekday, count)
            self.ask("temporal", f"When is {self.name}'s {thing}?", spell(day, rng.randrange(3)), [tag])

    def _dedup(self, rng: random.Random, n: int) -> None:
        for number, (first_text, second_text, question, answer, noted) in enumerate(rng.sample(PARAPHRASES, 3)):
            early, late = self.two_sessions()
            first = self.say(early, first_text)
            second = self.say(late, second_text)
            if rng.random() < 0.5:
                self.add(f"dup-{number}", noted.format(name=self.name), second)
            self.ask("dedup", question.format(name=self.name), answer, [first, second])

    def _retention(self, rng: random.Random, n: int) -> None:
        for number, (text, question, answer) in enumerate(rng.sample(SILENT_ADDS, 2)):
            self.add(f"note-{number}", text.format(name=self.name), None)
            self.ask("retention", question.format(name=self.name), answer, [])
        self.add("profile", f"Name on the passport: {self.full_name}", None, protected=True)
        self.ask("retention", f"What is {self.name}'s legal name?", self.full_name, [])
        for text, question, answer in rng.sample(STABLE_FACTS, 3):
            tag = self.say(rng.randrange(1, n), text.format(project=self.project))
            self.ask("retention", question.format(name=self.name, project=self.project), answer, [tag])

    def _isolation(self, rng: random.Random, n: int) -> None:
        for (text, question, _), value in zip(ISOLATION, self.isolation_values):
            tag = self.say(rng.randrange(1, n), text.format(value=value))
            self.ask("isolation", question, value, [tag])

    def _motive(self, rng: random.Random, n: int) -> None:
        theme = rng.choice(MOTIVE_THEMES)
        complaints = []
        for session, (request, answer, complaint) in zip(sorted(rng.sample(range(1, n), 3)), MOTIVE_THREADS):
            self.sessions[session].append(Turn("user", request))
            self.sessions[session].append(Turn("assistant", answer))
            tag = self._tag()
            self.sessions[session].append(Turn("user", complaint.format(theme=theme), tag))
            self.sessions[session].append(Turn("assistant", "Fair point, I'll redo it."))
            complaints.append(tag)
        self.ask(
            "motive",
            f"What does {self.name} keep missing in the board update, the migration plan and the vendor comparison?",
            theme,
            complaints,
        )

    def _filler_statements(self, rng: random.Random, n: int) -> None:
        for template in rng.sample(SMALL_TALK, 6):
            self.say(rng.randrange(1, n), _fill(template, rng))
        for text in rng.sample(UNDATED, 2):
            self.say(rng.randrange(1, n), text)
        self.say(rng.randrange(1, n), INJECTION, "I won't act on that.")

    def _pad(self) -> None:
        """Fill every session up to its six user turns with questions, requests and thanks, at random places."""
        for turns in self.sessions:
            while sum(1 for t in turns if t.role == "user") < SESSION_USER_TURNS:
                kind = self.rng.random()
                pool = FILLER_QUESTIONS if kind < 0.45 else FILLER_REQUESTS if kind < 0.85 else FILLER_THANKS
                pair = [
                    Turn("user", _fill(self.rng.choice(pool), self.rng)),
                    Turn("assistant", self.rng.choice(ASSISTANT)),
                ]
                at = 2 * self.rng.randint(0, len(turns) // 2)
                turns[at:at] = pair

    # -- output
    def rows(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        events, ids, stamps = [], {}, {}
        for number, (turns, start) in enumerate(zip(self.sessions, self.days)):
            session_id = f"{self.prefix}-s{number}"
            for index, turn in enumerate(turns):
                message_id = f"{session_id}#{index}"
                ts = start + timedelta(minutes=index)
                events.append(
                    {
                        "scope": self.scope,
                        "session_id": session_id,
                        "message_id": message_id,
                        "role": turn.role,
                        "content": turn.content,
                        "ts": ts.isoformat(),
                    }
                )
                if turn.tag:
                    ids[turn.tag], stamps[turn.tag] = message_id, ts
        adds = []
        for cites, row in self._pending_adds:
            ts = (
                stamps[cites] + timedelta(minutes=30)
                if cites
                else datetime.combine(START - timedelta(days=10), datetime.min.time(), UTC)
            )
            adds.append(
                {**row, "ts": ts.isoformat(), "source_message_ids": [ids[c] for c in row["source_message_ids"]]}
            )
        questions = [
            {
                **q,
                **{key: [ids[t] for t in q[key]] for key in ("evidence_message_ids", "stale_message_ids") if key in q},
            }
            for q in self.questions
        ]
        return events, adds, questions


@dataclass(frozen=True)
class SyntheticSet:
    events: list[dict[str, Any]]
    memory_adds: list[dict[str, Any]]
    questions: list[dict[str, Any]]

    def write(self, directory: Path) -> dict[str, Path]:
        directory.mkdir(parents=True, exist_ok=True)
        paths = {}
        for name, rows in (("events", self.events), ("memory_adds", self.memory_adds), ("questions", self.questions)):
            path = directory / f"{name}.jsonl"
            path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
            paths[name] = path
        return paths


def generate(seed: int = 7, scopes: int = 10, messages: int = 6000) -> SyntheticSet:
    """About `messages` messages over `scopes` scopes (pairs across the two tenants), deterministic in `seed`."""
    if scopes < 2:
        raise ValueError("scopes must be at least 2 (isolation needs a pair of tenants)")
    sessions = max(messages // scopes // (2 * SESSION_USER_TURNS), 8)
    rng = random.Random(seed)
    events: list[dict[str, Any]] = []
    adds: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    for pair in range((scopes + 1) // 2):
        agent, user = AGENTS[pair % len(AGENTS)], f"user-{pair + 1}"
        name, project = NAMES[pair % len(NAMES)], PROJECTS[pair % len(PROJECTS)]
        full_name = f"{name} {SURNAMES[pair % len(SURNAMES)]}"
        values = [rng.sample(options, 2) for _, _, options in ISOLATION]
        for side, tenant in enumerate(TENANTS[: min(2, scopes - 2 * pair)]):
            builder = ScopeBuilder(
                random.Random(rng.random()),
                f"{tenant}/{agent}/{user}",
                f"{tenant}-{user}",
                sessions,
                name,
                full_name,
                project,
                tuple(v[side] for v in values),
            )
            builder.build()
            e, a, q = builder.rows()
            events += e
            adds += a
            questions += q
    return SyntheticSet(events, adds, questions)
