"""The working set's common tokens, kept by counts as memories come and go, equal `frequent_tokens`
recounted over the live memories after every step of random add / re-add / retire sequences."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from dreaming.engine.offline.working_set import (
    COMMON_SHARE,
    MIN_MEMORIES_FOR_COMMON,
    WorkingMemory,
    WorkingSet,
    frequent_tokens,
)

WORDS = [f"word{i}" for i in range(40)]
SAID = datetime(2025, 1, 6, tzinfo=UTC)


def recount(live: list[WorkingMemory]) -> frozenset[str]:
    return frequent_tokens((m.tokens for m in live), COMMON_SHARE, MIN_MEMORIES_FOR_COMMON)


def test_the_rule_counts_tokens_in_more_than_the_share_given_enough_memories() -> None:
    sets = [frozenset({"a", "b"})] * 2 + [frozenset({"b"})] * 2 + [frozenset({"c"})] * 4
    assert frequent_tokens(sets, 0.25, 8) == frozenset({"b", "c"})  # 4 of 8 each; "a" is 2 of 8
    assert frequent_tokens(sets, 0.25, 9) == frozenset()


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
