"""bench.fleet's in-process phases: the fleet's passes, a pass against other scopes' points,
promotion and search (see bench/fleet.py)."""

from __future__ import annotations

import hashlib
import statistics
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from qdrant_client import QdrantClient, models

from bench.fleet_data import FleetScope, interleaved, make_fleet, memory_texts
from consumers.runtime import Runtime, open_runtime
from dreaming.embedding.minilm import MiniLMEmbedder
from dreaming.store import AppliedJob, GenerationInfo, MemoryStore
from dreaming.store.client import StoreClient, point_id
from dreaming.store.edge import EdgeClient
from schemas import ConversationTurn, DreamJob, MemoryRecord, make_job_id
from schemas.settings import Settings

Figure = Callable[[str, object, str], None]
INDEX_BATCH = 500
T0 = datetime(2026, 6, 1, tzinfo=UTC)


def _settings(home: Path) -> Settings:
    return Settings(home=home, collection_prefix="fleet", memory_cap=100)


def _job(runtime: Runtime, scope: str, watermark: int) -> DreamJob:
    marks = {runtime.settings.topics.turns: watermark}
    return DreamJob(
        job_id=make_job_id(scope, "manual", marks),
        scope=scope,
        trigger="manual",
        requested_at=datetime.now(UTC),
        watermarks=marks,
    )


def _index_and_dream(
    runtime: Runtime, fleet: Sequence[FleetScope], turns: Sequence[ConversationTurn], first_offset: int = 0
) -> tuple[float, float, dict[str, int]]:
    """Index in batches of 500 across scopes, then one pass per scope, `pass_group` at a time:
    (index CPU, pass CPU, outcomes)."""
    last: dict[str, int] = {}
    cpu = time.process_time()
    for start in range(0, len(turns), INDEX_BATCH):
        batch = [(t, first_offset + start + i) for i, t in enumerate(turns[start : start + INDEX_BATCH])]
        runtime.transcripts.index_turns(batch)
        for t, offset in batch:
            last[t.scope] = offset + 1
    index_cpu = time.process_time() - cpu
    outcomes: dict[str, int] = {}
    cpu = time.process_time()
    size = runtime.settings.pass_group  # as a worker runs its ready jobs (`JobStep._run_group`)
    for start in range(0, len(fleet), size):
        jobs = [_job(runtime, s.scope, last[s.scope]) for s in fleet[start : start + size]]
        for result in runtime.dream_pass.run_many(jobs):
            outcomes[result.status] = outcomes.get(result.status, 0) + 1
    return index_cpu, time.process_time() - cpu, outcomes


def fleet(
    home: Path,
    fleet_scopes: list[FleetScope],
    turns: list[ConversationTurn],
    figure: Figure,
    later: list[FleetScope] | None = None,
) -> float:
    """The fleet's first passes (the headline figure); with `later`, each scope's next turns and
    a second pass on top (what a scope costs once memory holds something: the verify step's
    claims, supersessions, the active generation's vectors reused)."""
    runtime = open_runtime(_settings(home))
    try:
        wall = time.perf_counter()
        index_cpu, pass_cpu, outcomes = _index_and_dream(runtime, fleet_scopes, turns)
        wall = time.perf_counter() - wall
        if later:
            more = list(interleaved(later))
            index2, pass2, outcomes2 = _index_and_dream(runtime, later, more, first_offset=len(turns))
    finally:
        runtime.close()
    total = index_cpu + pass_cpu
    rate = len(turns) / total
    figure("fleet_outcomes", outcomes, f"passes: {outcomes}")
    figure(
        "fleet_index_cpu_s",
        round(index_cpu, 2),
        f"index: {index_cpu:.1f} s CPU ({len(turns) / index_cpu:.0f} messages per CPU-second)",
    )
    figure(
        "fleet_pass_cpu_s",
        round(pass_cpu, 2),
        f"passes: {pass_cpu:.1f} s CPU ({pass_cpu / len(fleet_scopes) * 1e3:.1f} ms a scope)",
    )
    figure(
        "messages_per_cpu_s",
        round(rate, 1),
        f"consolidated: {len(turns)} messages in {total:.1f} s CPU, {wall:.1f} s wall: {rate:.0f} per CPU-second",
    )
    if later:
        rate2 = len(more) / (index2 + pass2)
        figure("later_outcomes", outcomes2, f"later passes: {outcomes2}")
        figure(
            "later_messages_per_cpu_s",
            round(rate2, 1),
            f"later: {len(more)} more messages, index {index2:.1f} s + passes {pass2:.1f} s CPU "
            f"({pass2 / len(later) * 1e3:.1f} ms a scope): {rate2:.0f} per CPU-second",
        )
    return rate


def _unit_rows(texts: Sequence[str], dims: int) -> np.ndarray:
    """Deterministic unit vectors seeded by each text (for filler points and bulk memories: what is
    measured there is the store, not the model)."""
    rows = np.empty((len(texts), dims), dtype=np.float32)
    for i, text in enumerate(texts):
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
        row = np.random.default_rng(seed).standard_normal(dims).astype(np.float32)
        rows[i] = row / np.linalg.norm(row)
    return rows


def _fill_other_scopes(client: StoreClient, runtime: Runtime, points: int) -> None:
    """`points` transcript points of 5,000 other scopes, plus a tenth as many memory points."""
    transcripts, memories = runtime.transcripts.transcripts, runtime.memories.memories
    dims = runtime.memories._dims  # the store's width
    for start in range(0, points, 1_000):
        n = min(1_000, points - start)
        texts = [f"other message {start + i}" for i in range(n)]
        vectors = _unit_rows(texts, dims).tolist()
        batch = []
        for i, vector in enumerate(vectors):
            scope = f"other/assistant/u{(start + i) % 5_000}"
            turn = ConversationTurn(
                scope=scope, session_id="s", message_id=f"m{start + i}", role="user", content=texts[i], ts=T0
            )
            payload = {
                "tenant": "other",
                "scope": scope,
                "ts_epoch": T0.timestamp(),
                "offset": start + i,
                "turn": turn.model_dump(mode="json"),
            }
            batch.append(
                models.PointStruct(id=point_id("turn", scope, turn.message_id), vector=vector, payload=payload)
            )
        client.upsert(transcripts, batch)
        if start % 10_000 == 0:
            mem = [
                models.PointStruct(
                    id=str(uuid.uuid4()),
                    vector=v,
                    payload={
                        "tenant": "other",
                        "scope": f"other/assistant/u{j}",
                        "generation": 1,
                        "status": "active",
                        "memory_id": f"x{j}",
                    },
                )
                for j, v in enumerate(vectors)
            ]
            client.upsert(memories, mem)


def other_scopes(home: Path, messages: int, points: int, figure: Figure) -> None:
    runtime = open_runtime(_settings(home))
    try:
        probes = make_fleet(7, messages, seed=5, tenant="probe")
        # Warm-up on the same texts: every measured pass then finds its sentences in the
        # embedder's cache alike, so what differs is the store.
        same = [p.turns for p in probes]
        warm = FleetScope(
            "probe/assistant/warm", tuple(t.model_copy(update={"scope": "probe/assistant/warm"}) for t in same[0])
        )

        def probe(name: str) -> float:
            turns = [t.model_copy(update={"scope": name}) for t in same[0]]
            s = FleetScope(name, tuple(turns))
            _, cpu, _ = _index_and_dream(runtime, [s], turns)
            return cpu

        probe(warm.scope)
        empty = [probe(f"probe/assistant/empty{i}") for i in range(3)]
        wall = time.perf_counter()
        _fill_other_scopes(runtime.client, runtime, points)
        fill_s = time.perf_counter() - wall
        full = [probe(f"probe/assistant/full{i}") for i in range(3)]
    finally:
        runtime.close()
    a, b = statistics.median(empty), statistics.median(full)
    figure(
        "pass_cpu_s_empty_store",
        round(a, 4),
        f"pass CPU, empty store: {a * 1e3:.1f} ms (runs {', '.join(f'{x * 1e3:.1f}' for x in empty)})",
    )
    figure("other_points_written_s", round(fill_s, 1), f"{points:,} other points written in {fill_s:.1f} s wall")
    figure(
        "pass_cpu_s_with_other_points",
        round(b, 4),
        f"pass CPU, {points:,} other points: {b * 1e3:.1f} ms (runs {', '.join(f'{x * 1e3:.1f}' for x in full)})",
    )
    figure("other_scopes_ratio", round(b / a, 3), f"ratio: {b / a:.2f}")


def _records(scope: str, texts: Sequence[str]) -> list[MemoryRecord]:
    return [
        MemoryRecord(
            scope=scope,
            memory_id=f"mem-{i:06d}",
            text=text,
            origin="transcript",
            evidence_message_ids=(f"m{i}",),
            created_at=T0 + timedelta(seconds=i),
            updated_at=T0 + timedelta(seconds=i),
        )
        for i, text in enumerate(texts)
    ]


def _promote(store: MemoryStore, scope: str, records: list[MemoryRecord], job: str) -> tuple[float, float]:
    """(wall, CPU) of write_candidate + promote."""
    cpu, wall = time.process_time(), time.perf_counter()
    state = store.state(scope)
    generation = state.next_generation
    store.write_candidate(scope, generation, records)
    info = GenerationInfo(generation=generation, job_id=job, status="active", created_at=T0)
    store.promote(state, info, AppliedJob(job_id=job, outcome="completed", generation=generation))
    return time.perf_counter() - wall, time.process_time() - cpu


def _bulk_store(client: StoreClient, dims: int = 384, prefix: str = "fleet") -> MemoryStore:
    """A memory store whose texts get seeded unit vectors (the model is not what these phases
    measure) and whose search embeds queries with MiniLM, as readers' searches do."""
    return MemoryStore(
        client, prefix, dims, lambda texts: _unit_rows(texts, dims).tolist(), 5, embedder=MiniLMEmbedder()
    )


def promote(home: Path, figure: Figure) -> None:
    scope = "bench/promote/u1"
    texts = memory_texts(1_000)
    for label, client in (
        ("embedded engine", EdgeClient(home / "edge")),
        ("qdrant-client local mode (before)", QdrantClient(path=str(home / "local"))),
    ):
        store = _bulk_store(client)
        try:
            first = _promote(store, scope, _records(scope, texts), "j1")
            changed = _records(scope, texts)
            changed[0] = changed[0].model_copy(update={"text": texts[0] + " (changed)"})
            again = _promote(store, scope, changed, "j2")
        finally:
            client.close()
        key = "promote_wall_s_per_1k" if label == "embedded engine" else "promote_wall_s_per_1k_local_mode"
        figure(
            f"{key}_first",
            round(first[0], 3),
            f"{label}: first generation of 1,000: {first[0]:.2f} s wall, {first[1]:.2f} s CPU",
        )
        figure(
            key,
            round(again[0], 3),
            f"{label}: next generation (1 text changed): {again[0]:.2f} s wall, {again[1]:.2f} s CPU",
        )


def search(home: Path, size: int, figure: Figure) -> None:
    scope = f"bench/search/u{size}"
    client = EdgeClient(home)
    store = _bulk_store(client)
    queries = [
        f"who keeps a parrot in {city} and likes chess ({i})"
        for i, city in enumerate(["Lisbon", "Graz", "Leeds", "Ghent"] * 50)
    ]
    MiniLMEmbedder().embed_array(["warm the model up"])
    try:
        texts = memory_texts(size)
        _promote(store, scope, _records(scope, texts), "j1")
        cpu, wall = time.process_time(), time.perf_counter()
        store.search(scope, "which city has the pottery teacher", 10)
        cold = (time.perf_counter() - wall, time.process_time() - cpu)
        times = []
        for q in queries:
            t = time.perf_counter()
            store.search(scope, q, 10)
            times.append(time.perf_counter() - t)
        changed = _records(scope, texts)
        for i in range(0, size, 100):  # 1 % of the memories change
            changed[i] = changed[i].model_copy(update={"text": texts[i] + " (updated)"})
        promote_wall, _ = _promote(store, scope, changed, "j2")
        cpu, wall = time.process_time(), time.perf_counter()
        store.search(scope, "which city has the sailing club", 10)
        after = (time.perf_counter() - wall, time.process_time() - cpu)
    finally:
        client.close()
    p50, p99 = np.percentile(times, 50), np.percentile(times, 99)
    figure(
        f"first_search_s_{size // 1000}k_new_texts",
        round(cold[0], 3),
        f"{size:,} memories: first search, texts never seen: {cold[0]:.3f} s wall, {cold[1]:.3f} s CPU",
    )
    figure(
        f"warm_search_p50_s_{size // 1000}k",
        round(float(p50), 4),
        f"{size:,} memories: warm search p50 {p50 * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms ({len(times)} queries)",
    )
    figure(
        f"warm_search_p99_s_{size // 1000}k",
        round(float(p99), 4),
        f"{size:,} memories: warm search p99 {p99 * 1e3:.1f} ms",
    )
    figure(
        f"promote_wall_s_{size // 1000}k_one_percent_changed",
        round(promote_wall, 3),
        f"{size:,} memories: promotion with 1 % of the texts changed: {promote_wall:.2f} s wall",
    )
    figure(
        f"first_search_after_promote_s_{size // 1000}k",
        round(after[0], 3),
        f"{size:,} memories: first search after that promotion: {after[0]:.3f} s wall, {after[1]:.3f} s CPU",
    )
