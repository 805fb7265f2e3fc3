"""The fleet benchmark's synthetic scopes: N users, each talking to one assistant for M messages.

Every text is distinct across the fleet (names, numbers and places vary per scope and message),
so no cache can turn the fleet into a few texts; each scope says facts, a correction, a decision,
questions and small talk, as a user's chat does. Written for the benchmark, deterministic (seeded).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from schemas import ConversationTurn

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
_FIRST = "Ines Marek Sofia Tariq Helga Ravi Noor Emil Chiara Kenji Dalia Oskar Amara Piotr Leona Yusuf".split()
_PETS = "cat dog parrot rabbit tortoise hamster ferret gecko".split()
_PET_NAMES = "Pepper Miso Juniper Biscuit Nimbus Olive Pixel Sprout Tofu Waffle Comet Maple".split()
_CITIES = "Lisbon Tampere Graz Porto Leeds Ghent Bergen Kraków Lyon Utrecht Malmö Bilbao".split()
_JOBS = "nurse carpenter pharmacist surveyor translator baker pilot librarian welder architect".split()
_HOBBIES = "bouldering pottery chess sailing birdwatching origami fencing kayaking".split()
_FOODS = "lentil soup ramen paella falafel risotto dumplings tacos goulash".split()
_TALK = (
    "Thanks, that helps.",
    "Sounds good to me.",
    "Ha, fair enough.",
    "Okay, noted.",
)


@dataclass(frozen=True)
class FleetScope:
    scope: str
    turns: tuple[ConversationTurn, ...]
    name: str = "Ines A0"
    """The user's name (their later messages say it too)."""


def _user_lines(rng: random.Random, k: int, name: str) -> tuple[dict[int, str], list[str]]:
    """The user's ten lines, and what the assistant answers to three of them (by line): its advice
    on the trip, the seat it held on the booked flight, the club's hours. The other replies are
    receipts ("Okay, noted."), as most replies to a user telling their news are."""
    pet, pet_name = rng.choice(_PETS), rng.choice(_PET_NAMES)
    city, other_city = rng.sample(_CITIES, 2)
    job, hobby, food = rng.choice(_JOBS), rng.choice(_HOBBIES), rng.choice(_FOODS)
    n = rng.randint(2, 40)
    answers = {
        3: f"For the trip to {other_city}, I'd take the {rng.randint(6, 11)} am train and keep "
        f"{rng.randint(20, 90)} euros for the museum pass.",
        6: f"Done: seat {rng.randint(3, 40)}{rng.choice('ACDF')} is held on that flight until "
        f"{rng.randint(1, 28)} June.",
        9: f"Most {hobby} clubs open at {rng.randint(7, 10)} am on weekends and close at {rng.randint(4, 8)} pm.",
    }
    return answers, [
        f"Hi, I'm {name}, I work as a {job} in {city} (ticket {k}-{n}).",
        f"My {pet} {pet_name} turned {rng.randint(2, 14)} last week.",
        f"I have been doing {hobby} every Tuesday for {rng.randint(2, 9)} years.",
        f"Can you remind me what I told you about the trip to {other_city}?",
        f"My favourite dinner is {food}, I cook it about {n} times a year.",
        f"No, I live in {other_city} now, not {city}.",
        f"We decided to book the flight on the {rng.randint(1, 28)}th for {rng.randint(120, 990)} euros.",
        f"My sister {rng.choice(_FIRST)} is visiting me in {other_city} next month.",
        f"I ran {rng.randint(3, 42)} kilometres on Sunday, a new record for me.",
        f"What time does the {hobby} club open on weekends?",
    ]


def _reply(rng: random.Random, answers: dict[int, str], line: int, first: str, tag: str) -> str:
    """The assistant's reply to the user's `line`: its answer when it has one, else a receipt;
    `tag` keeps every text of the fleet distinct."""
    answer = answers.get(line)
    if answer is not None:
        return f"{answer[:-1]}, {first} ({tag})."
    return f"{rng.choice(_TALK)} I'll keep that in mind for you, {first} ({tag})."


def make_fleet(scopes: int, messages: int, seed: int = 19, tenant: str = "fleet") -> list[FleetScope]:
    """`scopes` users of `messages` turns each (user and assistant alternating)."""
    rng = random.Random(seed)
    fleet = []
    for k in range(scopes):
        scope = f"{tenant}/assistant/u{k:05d}"
        name = f"{rng.choice(_FIRST)} {rng.choice('ABCDEFGHJKLMNPRSTVW')}{k}"
        answers, lines = _user_lines(rng, k, name)
        turns = []
        for i in range(messages):
            user = i % 2 == 0
            text = (
                lines[(i // 2) % len(lines)] + ("" if i < 2 * len(lines) else f" (again, {i})")
                if user
                else _reply(rng, answers, (i // 2) % len(lines), name.split()[0], f"note {k}.{i}")
            )
            turns.append(
                ConversationTurn(
                    scope=scope,
                    session_id=f"s{k}-{i // 10}",
                    message_id=f"m{i}",
                    role="user" if user else "assistant",
                    content=text,
                    ts=T0 + timedelta(hours=k % 24, minutes=i),
                )
            )
        fleet.append(FleetScope(scope, tuple(turns), name))
    return fleet


def later_turns(fleet: list[FleetScope], messages: int, seed: int = 20) -> list[FleetScope]:
    """Each scope's next `messages` turns, an hour after its last: the same user telling new facts
    (another city, pet, job...: updates of what memory holds) with the assistant's replies between."""
    later = []
    for k, s in enumerate(fleet):
        rng = random.Random(f"{seed}-{s.scope}")
        answers, lines = _user_lines(rng, k, s.name)
        start, last = len(s.turns), s.turns[-1].ts if s.turns else T0
        turns = []
        for i in range(start, start + messages):
            user = (i - start) % 2 == 0
            text = (
                lines[((i - start) // 2) % len(lines)]
                if user
                else _reply(rng, answers, ((i - start) // 2) % len(lines), s.name.split()[0], f"reply {k}.{i}")
            )
            turns.append(
                ConversationTurn(
                    scope=s.scope,
                    session_id=f"s{k}-later",
                    message_id=f"m{i}",
                    role="user" if user else "assistant",
                    content=text,
                    ts=last + timedelta(hours=1, minutes=i - start),
                )
            )
        later.append(FleetScope(s.scope, tuple(turns), s.name))
    return later


def interleaved(fleet: list[FleetScope]) -> Iterator[ConversationTurn]:
    """Turns as a fleet sends them: every scope's first message, then every scope's second, ..."""
    longest = max((len(s.turns) for s in fleet), default=0)
    for i in range(longest):
        for s in fleet:
            if i < len(s.turns):
                yield s.turns[i]


def memory_texts(count: int, seed: int = 23) -> list[str]:
    """Distinct memory-like statements (for the search and promotion measurements)."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        out.append(
            f"{rng.choice(_FIRST)} keeps a {rng.choice(_PETS)} named {rng.choice(_PET_NAMES)} in "
            f"{rng.choice(_CITIES)}, works as a {rng.choice(_JOBS)} and likes {rng.choice(_HOBBIES)} "
            f"(record {i}, {rng.randint(1, 999)} points)"
        )
    return out
