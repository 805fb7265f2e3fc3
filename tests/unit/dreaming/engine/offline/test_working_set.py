"""The working set's common tokens, kept by counts as memories come and go, equal a recount over
the live memories after every step of random add / re-add / retire sequences."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from dreaming.engine.offline.working_set import WorkingMemory, WorkingSet

WORDS = [f"word{i}" for i in range(40)]
SAID = datetime(2025, 1, 6, tzinfo=UTC)


def recount(live: list[WorkingMemory]) -> frozenset[str]:
    if len(live) < 20:
        return frozenset()
    counts: dict[str, int] = {}
    for memory in live:
        for token in memory.tokens:
            counts[token] = counts.get(token, 0) + 1
    return frozenset(t for t, n in counts.items() if n > 0.25 * len(live))


def test_common_tokens_follow_adds_re_adds_and_retires() -> None:
    rng = random.Random(18)
    for _ in range(100):
        working, keys, live = WorkingSet(), [], {}
        for step in range(rng.randint(10, 120)):
            if keys and rng.random() < 0.2:
                key = rng.choice(keys)
                working.retire(key)
                live.pop(key, None)
            else:
                key = rng.choice(keys) if keys and rng.random() < 0.1 else f"m{step}"
                tokens = frozenset(rng.sample(WORDS[: rng.randint(6, 40)], rng.randint(1, 6)))
                memory = WorkingMemory(key, "text", tokens, (), SAID)
                working.add(memory)
                keys.append(key)
                if working.is_live(key):
                    live[key] = memory
            assert working.common_tokens() == recount(list(live.values()))
