"""Two deployments side by side on one broker and one Qdrant store, differing only by their topic
prefix (issue 17: the app id, the consumer groups and the collection prefix kept their defaults,
so two such deployments shared groups, the changelog and collections).

Both run at once (each its stream worker process and its consolidation worker, the two
consolidation workers on one embedded Qdrant directory through one client), on the same fixtures
and the same scopes. Nothing may be shared: consumer groups, changelog topics, collections; and
each deployment's memories are its own, as if the other did not exist.
"""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from confluent_kafka.admin import AdminClient

from dreaming.store import open_qdrant
from dreamstream.replay import REPLAY_PRODUCER
from dreamstream.topic_admin import delete_topics, ensure_topics
from dreamstream_tools.pipeline import LocalPipeline
from schemas.settings import Settings
from tests.chaos.harness import NOTES, RUN_TIMEOUT_S

pytestmark = [pytest.mark.chaos, pytest.mark.integration, pytest.mark.timeout(1800)]


def deployment(bootstrap: str, home, prefix: str) -> Settings:
    """Only the prefix is given: everything else a deployment owns must follow from it."""
    return Settings(
        kafka_bootstrap_servers=bootstrap,
        home=home,
        topic_prefix=prefix,
        partitions=2,
        session_timeout_ms=6000,
        trusted_producers=[REPLAY_PRODUCER],
        embedder="hashing",
    )


def dream(pipeline: LocalPipeline, events, scopes: list[str]) -> dict[str, str]:
    pipeline.replay(events)
    pipeline.wait_until_read(RUN_TIMEOUT_S)
    finished = pipeline.wait_for(pipeline.trigger(scopes, reason="side by side"), RUN_TIMEOUT_S)
    return {e.scope: e.status for e in finished}


def test_two_prefixed_deployments_share_no_group_changelog_or_collection(kafka_bootstrap, tmp_path, fixtures_dir):
    run = uuid.uuid4().hex[:8]
    a = deployment(kafka_bootstrap, tmp_path, f"side-a-{run}")
    b = deployment(kafka_bootstrap, tmp_path, f"side-b-{run}")
    assert a.qdrant_path == b.qdrant_path, "one Qdrant directory for both"
    owned = {
        name: {s.app_id, s.consumer_group, s.topics.signals_changelog, s.collection_prefix}
        for name, s in (("a", a), ("b", b))
    }
    assert not owned["a"] & owned["b"], owned
    events = [fixtures_dir / "events.jsonl", fixtures_dir / "memory_adds.jsonl"]
    scopes = sorted({line.split('"scope": "')[1].split('"')[0] for line in events[0].read_text().splitlines() if line})
    for settings in (a, b):
        ensure_topics(settings)
    client = open_qdrant(a)
    pipelines = [LocalPipeline(s, s.home / f"{s.topic_prefix}.log", client=client) for s in (a, b)]
    try:
        for pipeline in pipelines:
            pipeline.start()
        started = time.monotonic()
        with ThreadPoolExecutor(2) as pool:  # side by side: both replay and dream at once
            outcomes = list(pool.map(lambda p: dream(p, events, scopes), pipelines))
        took = time.monotonic() - started
        groups = consumer_groups(a, expected={a.app_id, a.consumer_group, b.app_id, b.consumer_group})
        memories = [
            {s: sorted(m.text for m in p.runtime.memories.active_records(s)) for s in scopes} for p in pipelines
        ]
        generations = [{s: p.runtime.memories.state(s).active_generation for s in scopes} for p in pipelines]
    finally:
        for pipeline in pipelines:
            pipeline.stop()
        client.close()
    for settings in (a, b):
        delete_topics(settings, [spec.name for spec in settings.topics.specs()])

    assert outcomes[0] == outcomes[1] and set(outcomes[0].values()) <= {"completed", "no-op"}, outcomes
    # groups: each deployment's own, named after its prefix; none is used by both
    mine = {name: {g for g in groups if run in g and f"side-{name}-" in g} for name in ("a", "b")}
    assert {a.app_id, a.consumer_group} <= mine["a"] and {b.app_id, b.consumer_group} <= mine["b"], groups
    assert not mine["a"] & mine["b"] and not {g for g in groups if run in g} - mine["a"] - mine["b"], groups
    # collections: disjoint sets, one per deployment, in the one store
    collections = {c.name for c in open_collections(tmp_path, a)}
    per = {
        name: {c for c in collections if c.startswith(s.collection_prefix + "_")} for name, s in (("a", a), ("b", b))
    }
    assert per["a"] and per["b"] and not per["a"] & per["b"], collections
    # memories: the same input gives the same result, and neither built on the other's generations
    assert memories[0] == memories[1] and any(memories[0].values()), memories
    assert generations[0] == generations[1] and set(generations[0].values()) <= {0, 1}, generations
    NOTES.append(
        f"two deployments side by side: {len(scopes)} scopes each, {took:.0f} s; groups {sorted(mine['a'])} | "
        f"{sorted(mine['b'])}; collections {len(per['a'])} + {len(per['b'])}, none shared"
    )


def consumer_groups(settings: Settings, expected: set[str], timeout_s: float = 60.0) -> set[str]:
    """The broker's consumer groups, read until the expected ones are listed (a fresh admin
    client may answer before it knows the group coordinators)."""
    admin = AdminClient(settings.kafka_client_config())
    deadline = time.monotonic() + timeout_s
    while True:
        groups = {g.group_id for g in admin.list_consumer_groups(request_timeout=10).result().valid}
        if expected <= groups or time.monotonic() > deadline:
            return groups
        time.sleep(1.0)


def open_collections(home, settings: Settings):
    client = open_qdrant(settings.model_copy(update={"home": home}))
    try:
        return client.get_collections().collections
    finally:
        client.close()
