"""Embedding throughput: MiniLM (int8, onnxruntime) at 1 and 2 threads, beside the hashing double
measured in the same run, on distinct made-up sentences of 5-40 words (cache off).

    python3 -m dreaming.embedding.bench [--sentences 2000] [--batch 32]

Prints sentences per wall second and per CPU second: on a shared machine the wall figure moves
with the neighbours' load, the CPU one much less.
"""

from __future__ import annotations

import argparse
import random
import resource
import time
from collections.abc import Callable

from dreaming.embedding.cache import VectorCache
from dreaming.embedding.hashing import HashingEmbedder
from dreaming.embedding.minilm import MiniLMEmbedder

_WORDS = (
    "I we she he they went to the a market yesterday bought fresh bread with my sister and her kids "
    "on Saturday painted sunrise lake last year because felt calm after work adopted puppy named "
    "Biscuit finished marathon in under four hours started learning guitar since March moved "
    "apartment closer office visited grandparents Ohio for two weeks is was really excited about "
    "new job at hospital counselling course planned camping trip next month budget 550 dollars"
).split()


def sentences(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    made = [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(5, 40))).capitalize() + "." for _ in range(count)]
    return [f"{text} ({i})" for i, text in enumerate(made)]  # distinct, so no batch dedup


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(label: str, embed: Callable[[list[str]], object], texts: list[str]) -> float:
    wall, cpu = time.perf_counter(), _cpu_s()
    embed(texts)
    wall, cpu = time.perf_counter() - wall, _cpu_s() - cpu
    rate = len(texts) / wall
    print(f"{label:<28} {wall:7.2f} s  {rate:8.0f} sentences/s  {len(texts) / cpu:8.0f} per CPU-second")
    return rate


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=2_000)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args(argv)
    texts = sentences(args.sentences)
    tokens = sum(len(e.ids) for e in MiniLMEmbedder().load()._model().tokenizer.encode_batch(texts))
    print(f"{len(texts)} sentences, {tokens / len(texts):.1f} tokens each on average")

    hashing = measure("hashing double (baseline)", HashingEmbedder().embed_array, texts)
    rates = {}
    for threads in (1, 2):
        embedder = MiniLMEmbedder(threads=threads, batch_size=args.batch, cache=VectorCache(0)).load()
        embedder.embed_array(texts[:64])  # warm-up: first runs allocate
        rates[threads] = measure(f"MiniLM int8, {threads} thread(s)", embedder.embed_array, texts)
    print(f"MiniLM 1 thread = {rates[1] / hashing:.3f} x hashing; 2 threads = {rates[2] / rates[1]:.2f} x 1 thread")


if __name__ == "__main__":
    main()
