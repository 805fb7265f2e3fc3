"""The local broker and topic admin against a real Kafka (no mocks)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, ConfigResource

from dreamstream.topic_admin import TopicMismatchError, delete_topics, ensure_topics
from dreamstream_tools import local_kafka
from schemas.settings import Settings
from tests.integration.kafka_env import TEST_KAFKA_HOME, TEST_KAFKA_PORT, unique_settings

pytestmark = pytest.mark.integration


@pytest.fixture
def settings(kafka_bootstrap: str, tmp_path) -> Iterator[Settings]:
    settings = unique_settings(kafka_bootstrap, tmp_path, partitions=3)
    yield settings
    # The test broker is reused across runs: don't let topics pile up.
    delete_topics(settings, [spec.name for spec in settings.topics.specs()])


def test_ensure_topics_is_idempotent_with_catalog_partitions(settings: Settings) -> None:
    expected = [spec.name for spec in settings.topics.specs()]

    assert ensure_topics(settings) == expected  # second call: everything exists already

    admin = AdminClient(settings.kafka_client_config())
    metadata = admin.list_topics(timeout=10)
    assert {name: len(metadata.topics[name].partitions) for name in expected} == {name: 3 for name in expected}
    changelog = ConfigResource(ConfigResource.Type.TOPIC, settings.topics.signals_changelog)
    configs = admin.describe_configs([changelog])[changelog].result(timeout=10)
    assert configs["cleanup.policy"].value == "compact"


def test_partition_mismatch_names_the_topic(settings: Settings) -> None:
    wider = settings.model_copy(update={"partitions": 4})

    with pytest.raises(TopicMismatchError, match=rf"'{settings.topics.turns}' has 3 partitions .* expects 4"):
        ensure_topics(wider)


def test_produce_consume_round_trip(settings: Settings) -> None:
    topic = settings.topics.turns
    key, value = b"acme/support-bot/user-42", f"hello {uuid.uuid4()}".encode()
    producer = Producer(settings.kafka_client_config())
    producer.produce(topic, key=key, value=value)
    assert producer.flush(10) == 0, "message not delivered within 10 s"

    consumer = Consumer(
        {
            **settings.kafka_client_config(),
            "group.id": settings.consumer_group,
            "auto.offset.reset": "earliest",
            "session.timeout.ms": settings.session_timeout_ms,
        }
    )
    try:
        consumer.subscribe([topic])
        message = None
        for _ in range(30):  # up to ~30 s for the group to form and the fetch to return
            message = consumer.poll(1.0)
            if message is not None:
                break
        assert message is not None, f"nothing consumed from {topic}"
        assert message.error() is None, message.error()
        assert (message.key(), message.value()) == (key, value)
    finally:
        consumer.close()


@pytest.mark.skipif(bool(os.environ.get("KAFKA_BOOTSTRAP_SERVERS")), reason="uses an external broker")
def test_start_is_idempotent_and_status_reports_the_broker(kafka_bootstrap: str) -> None:
    broker = local_kafka.start(TEST_KAFKA_HOME, port=TEST_KAFKA_PORT)

    assert broker.bootstrap == kafka_bootstrap
    assert local_kafka.start(TEST_KAFKA_HOME, port=TEST_KAFKA_PORT).pid == broker.pid
    state = local_kafka.status(TEST_KAFKA_HOME, TEST_KAFKA_PORT)
    assert state["running"] and state["pid"] == broker.pid and state["bootstrap"] == kafka_bootstrap
