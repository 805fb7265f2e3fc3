"""Create (and, for tests, delete) the catalog's topics with confluent-kafka's AdminClient.

Every topic must exist with the catalog's partition count before a Faust worker starts: Faust
crash-loops on a PartitionsMismatch otherwise, so a mismatch here is an error that names the topic.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin._metadata import ClusterMetadata  # where its stubs take it from (not re-exported)
from confluent_kafka.cimpl import NewTopic

from schemas.settings import Settings


class TopicAdminError(RuntimeError):
    """Kafka could not be reached, or refused a topic operation."""


class TopicMismatchError(TopicAdminError):
    """A topic exists with a partition count other than the catalog's."""


def ensure_topics(settings: Settings, timeout_s: float = 30.0) -> list[str]:
    """Create every catalog topic that is missing; return all catalog topic names.

    Idempotent. Waits until the metadata lists each topic with a leader on every partition."""
    catalog = settings.topics
    specs = catalog.specs()
    admin = _admin(settings)
    bootstrap = settings.kafka_bootstrap_servers
    existing = _metadata(admin, bootstrap, timeout_s)
    _check_partitions(existing, (spec.name for spec in specs), catalog.partitions)
    missing = [spec for spec in specs if spec.name not in existing.topics]
    if missing:
        new_topics = [
            NewTopic(spec.name, catalog.partitions, catalog.replication, config=dict(spec.config)) for spec in missing
        ]
        futures = admin.create_topics(new_topics, operation_timeout=timeout_s, request_timeout=timeout_s)
        # Another process created one first: fine, its partition count is checked below.
        _settle(futures, KafkaError.TOPIC_ALREADY_EXISTS, "create", bootstrap)
    names = [spec.name for spec in specs]
    _wait_until(admin, bootstrap, timeout_s, lambda md: _all_ready(md, names, catalog.partitions))
    return names


def delete_topics(settings: Settings, names: Iterable[str], timeout_s: float = 30.0) -> None:
    """Delete `names` (missing ones are skipped) and wait until the metadata no longer lists them."""
    names = list(names)
    if not names:
        return
    admin = _admin(settings)
    bootstrap = settings.kafka_bootstrap_servers
    futures = admin.delete_topics(names, operation_timeout=timeout_s, request_timeout=timeout_s)
    _settle(futures, KafkaError.UNKNOWN_TOPIC_OR_PART, "delete", bootstrap)
    _wait_until(admin, bootstrap, timeout_s, lambda md: not set(names) & set(md.topics))


def _settle(futures: dict[str, Future[None]], tolerated: int, verb: str, bootstrap: str) -> None:
    """Wait for per-topic admin results; the one error code that means "already so" is fine."""
    for name, future in futures.items():
        try:
            future.result()
        except KafkaException as exc:
            error: KafkaError = exc.args[0]
            if error.code() != tolerated:
                raise TopicAdminError(f"cannot {verb} topic {name!r} on {bootstrap}: {error.str()}") from exc


def _admin(settings: Settings) -> AdminClient:
    # librdkafka's own log lines go to Python logging, not straight to stderr; failures
    # reach the caller as exceptions anyway.
    return AdminClient({**settings.kafka_client_config()}, logger=logging.getLogger(__name__))


def _metadata(admin: AdminClient, bootstrap: str, timeout_s: float) -> ClusterMetadata:
    try:
        return admin.list_topics(timeout=timeout_s)
    except KafkaException as exc:
        raise TopicAdminError(f"cannot reach Kafka at {bootstrap}: {exc.args[0].str()}") from exc


def _check_partitions(metadata: ClusterMetadata, names: Iterable[str], expected: int) -> None:
    for name in names:
        topic = metadata.topics.get(name)
        if topic is not None and topic.error is None and len(topic.partitions) != expected:
            raise TopicMismatchError(
                f"topic {name!r} has {len(topic.partitions)} partitions but the catalog expects {expected}; "
                f"delete it, or use another topic prefix / app id, or set partitions={len(topic.partitions)}"
            )


def _all_ready(metadata: ClusterMetadata, names: list[str], partitions: int) -> bool:
    _check_partitions(metadata, names, partitions)  # a concurrent creator may have used another count
    for name in names:
        topic = metadata.topics.get(name)
        if topic is None or topic.error is not None or len(topic.partitions) != partitions:
            return False
        if any(partition.leader < 0 for partition in topic.partitions.values()):
            return False
    return True


def _wait_until(admin: AdminClient, bootstrap: str, timeout_s: float, done: Callable[[ClusterMetadata], bool]) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        if done(_metadata(admin, bootstrap, timeout_s)):
            return
        if time.monotonic() >= deadline:
            raise TopicAdminError(f"topics on {bootstrap} did not reach the expected state within {timeout_s:.0f}s")
        time.sleep(0.2)
