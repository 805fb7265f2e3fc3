"""The topic prefix names everything a deployment owns (issue 17): its topics, the stream
worker's app id (group and changelog), the consolidation group and the Qdrant collections, unless
one of them is set on its own."""

from __future__ import annotations

from schemas.settings import Settings


def test_the_default_prefix_keeps_the_names_deployments_always_had():
    s = Settings()
    assert (s.app_id, s.consumer_group, s.collection_prefix) == (
        "dreamstream-streams",
        "dreamstream-consolidation",
        "dreamstream",
    )
    assert s.topics.signals_changelog == "dreamstream-streams-signals-changelog"


def test_a_prefix_names_the_group_changelog_and_collections():
    s = Settings(topic_prefix="acme.prod")
    assert s.topics.turns == "acme.prod.turns"
    assert (s.app_id, s.consumer_group, s.collection_prefix) == (
        "acme.prod-streams",
        "acme.prod-consolidation",
        "acme_prod",
    )
    assert s.topics.signals_changelog == "acme.prod-streams-signals-changelog"


def test_the_prefix_from_the_environment_does_the_same(monkeypatch):
    monkeypatch.setenv("DREAMSTREAM_TOPIC_PREFIX", "staging")
    s = Settings()
    assert (s.app_id, s.consumer_group, s.collection_prefix) == ("staging-streams", "staging-consolidation", "staging")


def test_a_name_set_on_its_own_wins(monkeypatch):
    monkeypatch.setenv("DREAMSTREAM_TOPIC_PREFIX", "staging")
    monkeypatch.setenv("DREAMSTREAM_COLLECTION_PREFIX", "shared")
    s = Settings(app_id="legacy-streams")
    assert (s.app_id, s.consumer_group, s.collection_prefix) == ("legacy-streams", "staging-consolidation", "shared")


def test_two_prefixes_share_nothing():
    a, b = Settings(topic_prefix="team-a"), Settings(topic_prefix="team-b")
    owned = lambda s: {s.app_id, s.consumer_group, s.collection_prefix, s.topics.signals_changelog, *s.topics.inputs()}  # noqa: E731
    assert not owned(a) & owned(b)
