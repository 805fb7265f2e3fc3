"""How to cut a call's texts into model batches: as few padded token slots and calls as possible.

A transformer batch costs every row the width of its longest row (padding is computed, then masked
away), and each model call has a fixed price on top. Measured on MiniLM here (onnxruntime, one
thread): ~0.2 ms per token slot (rows x width) and ~3 ms per call, i.e. a call costs about as much
as 16 token slots. Fixed batches of 32 over length-sorted texts are nearly pad-free when a call
holds hundreds of texts (the index step); a pass embeds 10-40 texts of 8-60 tokens, where one batch
padded to the longest spends ~40 % of its slots on padding and one call per text pays the fixed
price 20 times. With the texts sorted by length, the cheapest cut into contiguous groups is found
exactly by dynamic programming over the cut points (n x max_batch steps: microseconds).
"""

from __future__ import annotations

from collections.abc import Sequence

CALL_COST_TOKENS = 16
"""A model call's fixed price, in token slots (MiniLM on onnxruntime: ~3 ms against ~0.2 ms a slot)."""


def padded_groups(lengths: Sequence[int], max_batch: int, call_cost: int = CALL_COST_TOKENS) -> list[tuple[int, int]]:
    """Cut `lengths` (sorted ascending) into [start, end) groups of at most `max_batch` rows that
    minimise the sum over groups of call_cost + rows x the group's longest length."""
    if max_batch < 1:
        raise ValueError(f"max_batch must be >= 1, got {max_batch}")
    n = len(lengths)
    if any(lengths[i] > lengths[i + 1] for i in range(n - 1)):
        raise ValueError("lengths must be sorted ascending")
    best = [0] * (n + 1)  # best[j]: the least cost of the first j rows
    cut = [0] * (n + 1)  # cut[j]: where the last group of that best cost starts
    for end in range(1, n + 1):
        width = lengths[end - 1]  # sorted: the group's last row is its widest
        best[end] = -1
        for start in range(max(0, end - max_batch), end):
            cost = best[start] + call_cost + (end - start) * width
            if best[end] < 0 or cost < best[end]:
                best[end], cut[end] = cost, start
    groups: list[tuple[int, int]] = []
    end = n
    while end > 0:
        groups.append((cut[end], end))
        end = cut[end]
    return groups[::-1]
