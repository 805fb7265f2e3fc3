"""The benchmark's input: deterministic ConversationTurn records over a set of active scopes."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

NAMES = ["Ava", "Noah", "Mia", "Liam", "Zoe", "Omar", "Lena", "Ravi", "Ines", "Hugo", "Yuki", "Sven"]
CITIES = ["Berlin", "Lisbon", "Madrid", "Oslo", "Tokyo", "Austin", "Dublin", "Prague", "Porto", "Seoul"]
PRODUCTS = ["Postgres", "Kafka", "Redis", "Snowflake", "Salesforce", "Jira", "Stripe", "Figma"]
TENANTS = ["acme", "globex", "initech", "umbrella", "hooli"]
AGENTS = ["support-bot", "travel-assistant", "coder", "sales-bot"]
USER_PLAIN = [
    "Can you check the status of my order {code}?",
    "What time does the {city} office open tomorrow?",
    "Please remind me to call {name} on Friday.",
    "I need a hotel in {city} for two nights, something quiet.",
    "How do I reset my password for {product}?",
    "is there a faster way to export the weekly report",
    "thanks, that works",
    "Can you summarise the last meeting with {name}?",
    "My flight {code} to {city} is next Tuesday, can you check the gate?",
    "I'm vegetarian, please keep that in mind for the dinner booking.",
]
USER_CORRECTION = [
    "No, it's {city}, not {city2}.",
    "Actually I meant the {product} plan, not the basic one.",
    "Sorry, I meant {name} from finance.",
    "That's wrong, my flight is {code}.",
    "I changed my mind, book the aisle seat instead of the window.",
]
USER_DECISION = [
    "We decided to go with {product} for the backend.",
    "Let's switch to {product} next sprint.",
    "I'll use the {city} warehouse from now on.",
    "We settled on {name} as the account owner.",
    "We picked the annual plan, switching billing to {product}.",
]
ASSISTANT = [
    "Done: I booked {code} to {city} for you, window seat 14A.",
    "Your order {code} ships on Monday.",
    "I've noted that {name} prefers email over calls.",
    "Here is the summary you asked for: three action items, all assigned.",
    "The {city} office opens at 9am local time.",
    "Sure, I'll remind you on Friday at 10am.",
    "I couldn't find that file; could you share the exact name?",
    "{product} supports that; I've linked the setup guide.",
]


def _pool(templates: list[str], rnd: random.Random, size: int = 256) -> list[str]:
    """Pre-rendered contents, each already JSON-encoded (producing then costs one f-string)."""
    out = []
    for _ in range(size):
        city, city2 = rnd.sample(CITIES, 2)
        code = rnd.choice([f"LH{rnd.randint(100, 999)}", f"A{rnd.randint(10, 99)}X", f"{rnd.randint(1000, 9999)}KB"])
        text = rnd.choice(templates).format(
            name=rnd.choice(NAMES), city=city, city2=city2, product=rnd.choice(PRODUCTS), code=code
        )
        out.append(json.dumps(text))
    return out


def scope_name(i: int) -> str:
    return f"{TENANTS[i % len(TENANTS)]}/{AGENTS[(i // len(TENANTS)) % len(AGENTS)]}/user-{i}"


def scope_sequence(events: int, scopes: int, rnd: random.Random, hot_share: float = 0.05) -> list[int]:
    """Every scope gets one event; of the rest, `hot_share` goes to a hot set of scopes/1000 (they
    cross threshold_messages=40 and emit one job each) and the others to random scopes."""
    seq = list(range(scopes))
    hot = max(1, scopes // 1000)
    for _ in range(events - scopes):
        seq.append(rnd.randrange(hot) if rnd.random() < hot_share else rnd.randrange(scopes))
    rnd.shuffle(seq)
    return seq


def generate(events: int, scopes: int, seed: int = 7):
    """Yield (key, value) for `events` valid ConversationTurn records in arrival order: turns
    alternate user/assistant per scope; 15 % of user turns are corrections, 15 % decisions."""
    rnd = random.Random(seed)
    plain, corr, dec, asst = (_pool(t, rnd) for t in (USER_PLAIN, USER_CORRECTION, USER_DECISION, ASSISTANT))
    names = [scope_name(i) for i in range(scopes)]
    counts = [0] * scopes
    base = datetime(2026, 4, 12, 9, 0, tzinfo=UTC)
    for i, s in enumerate(scope_sequence(events, scopes, rnd)):
        scope, n = names[s], counts[s]
        counts[s] = n + 1
        if n % 2 == 0:
            role = "user"
            r = rnd.random()
            content = rnd.choice(corr if r < 0.15 else dec if r < 0.30 else plain)
        else:
            role, content = "assistant", rnd.choice(asst)
        ts = (base + timedelta(seconds=i)).isoformat()
        value = (
            f'{{"scope":"{scope}","session_id":"{scope}#s{n // 8}","message_id":"{scope}#{n}",'
            f'"role":"{role}","content":{content},"ts":"{ts}"}}'
        )
        yield scope.encode(), value.encode()
