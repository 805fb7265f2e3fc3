"""`known_first`: vectors at hand answer their texts, the model sees only the others, once each."""

from __future__ import annotations

import numpy as np

from dreaming.embedding.known import known_first


class Counting:
    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, texts):
        self.calls.append(list(texts))
        return np.asarray([[float(len(t)), 1.0] for t in texts], dtype=np.float32)


def test_known_texts_never_reach_the_model_and_the_rest_go_in_one_call() -> None:
    model = Counting()
    stored = np.asarray([0.6, 0.8], dtype=np.float32)
    embed = known_first({"Ines keeps bees.": stored}, model)
    rows = embed(["Ines keeps bees.", "Oslo in May", "Oslo in May", "Ines keeps bees."])
    assert model.calls == [["Oslo in May"]]
    assert np.array_equal(rows[0], stored) and np.array_equal(rows[3], stored)
    assert np.array_equal(rows[1], rows[2]) and rows[1][0] == len("Oslo in May")


def test_with_nothing_known_it_is_the_model_itself() -> None:
    model = Counting()
    assert known_first({}, model) is model
    embed = known_first({"a text": np.zeros(2, dtype=np.float32)}, model)
    embed(["b", "c"])
    assert model.calls == [["b", "c"]]
    assert embed(["a text"]).shape == (1, 2) and model.calls == [["b", "c"]]
