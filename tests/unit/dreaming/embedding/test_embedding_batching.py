"""How a call's texts are cut into model batches (`dreaming.embedding.batching`)."""

from __future__ import annotations

import itertools
import random

import pytest

from dreaming.embedding.batching import padded_groups


def cost(lengths: list[int], groups: list[tuple[int, int]], call_cost: int) -> int:
    return sum(call_cost + (end - start) * lengths[end - 1] for start, end in groups)


def all_cuts(n: int, max_batch: int) -> list[list[tuple[int, int]]]:
    """Every way to cut n rows into contiguous groups of at most max_batch (brute force)."""
    found = []
    for mask in itertools.product((False, True), repeat=max(n - 1, 0)):
        bounds = [0] + [i + 1 for i, cut in enumerate(mask) if cut] + [n]
        groups = list(itertools.pairwise(bounds))
        if all(end - start <= max_batch for start, end in groups):
            found.append(groups)
    return found


def test_groups_cover_every_row_once_in_order_within_the_batch_size() -> None:
    lengths = sorted(random.Random(3).randint(4, 90) for _ in range(200))
    groups = padded_groups(lengths, 32)
    assert groups[0][0] == 0 and groups[-1][1] == len(lengths)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(groups))
    assert all(0 < end - start <= 32 for start, end in groups)


@pytest.mark.parametrize("seed", range(12))
def test_the_cut_is_the_cheapest_of_all_cuts(seed: int) -> None:
    rng = random.Random(seed)
    lengths = sorted(rng.randint(3, 70) for _ in range(rng.randint(1, 11)))
    max_batch, call_cost = rng.choice((2, 4, 32)), rng.choice((0, 16, 200))
    best = min(cost(lengths, g, call_cost) for g in all_cuts(len(lengths), max_batch))
    assert cost(lengths, padded_groups(lengths, max_batch, call_cost), call_cost) == best


def test_equal_lengths_take_the_fewest_calls() -> None:
    groups = padded_groups([12] * 70, 32)
    assert len(groups) == 3 and sum(end - start for start, end in groups) == 70


def test_a_long_text_does_not_pad_the_short_ones() -> None:
    # Nine 10-token texts and one of 200: one batch would spend 9 x 190 slots on padding.
    assert padded_groups([10] * 9 + [200], 32) == [(0, 9), (9, 10)]


def test_the_call_price_keeps_near_equal_lengths_together() -> None:
    # 10 and 11 tokens: a row of padding costs less than a second call.
    assert padded_groups([10, 10, 11, 11], 32) == [(0, 4)]
    assert padded_groups([10, 10, 11, 11], 32, call_cost=0) == [(0, 2), (2, 4)]


def test_nothing_to_cut() -> None:
    assert padded_groups([], 32) == []


def test_bad_input_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="sorted"):
        padded_groups([5, 3], 32)
    with pytest.raises(ValueError, match="max_batch"):
        padded_groups([3], 0)
