"""What a Kafka error means to a worker: the one list of error codes both workers and the
operator command judge by (before: three lists, in the stream worker's health, the consolidation
worker's retry rules and its consumer loop).

Every classifier errs towards "not transient" for what it does not know, so an unknown error is
reported (and, inside a pass, recorded as a failed outcome) rather than retried forever.
"""

from __future__ import annotations

from confluent_kafka import KafkaError, KafkaException

UNREACHABLE_CODES = frozenset({KafkaError._ALL_BROKERS_DOWN, KafkaError._TRANSPORT, KafkaError._RESOLVE})
"""No broker answers: the client reconnects by itself; a worker counts the attempts and backs off."""

COORDINATOR_MOVING_CODES = frozenset(
    {KafkaError.NOT_COORDINATOR, KafkaError.COORDINATOR_LOAD_IN_PROGRESS, KafkaError.COORDINATOR_NOT_AVAILABLE}
)
"""A fresh broker loads its group coordinator, or the coordinator just moved: ask again shortly."""

TRANSIENT_CODES = (
    UNREACHABLE_CODES
    | COORDINATOR_MOVING_CODES
    | {
        KafkaError._TIMED_OUT,
        KafkaError._MSG_TIMED_OUT,
        KafkaError._WAIT_COORD,
        KafkaError.REQUEST_TIMED_OUT,
        KafkaError.NETWORK_EXCEPTION,
        KafkaError.NOT_LEADER_FOR_PARTITION,
        KafkaError.LEADER_NOT_AVAILABLE,
        KafkaError.NOT_ENOUGH_REPLICAS,
        KafkaError.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        KafkaError.REBALANCE_IN_PROGRESS,
        KafkaError.UNKNOWN_TOPIC_OR_PART,
        KafkaError._UNKNOWN_PARTITION,
        KafkaError._NO_OFFSET,
    }
)
"""Codes a restart or a leader election clears. UNKNOWN_TOPIC_OR_PART is here because a broker
that has just restarted answers it until its metadata is loaded."""

PARTITION_LOST_CODES = frozenset(
    {
        KafkaError.ILLEGAL_GENERATION,
        KafkaError.UNKNOWN_MEMBER_ID,
        KafkaError._ASSIGNMENT_LOST,
        KafkaError.FENCED_INSTANCE_ID,
        KafkaError._STATE,
    }
)
"""A commit refused because the group moved on: the partition is someone else's now, and its
uncommitted work is redelivered to them. Not a reason to exit, nor to retry."""

UNFIXABLE_CONSUMER_CODES = frozenset(
    {
        KafkaError.TOPIC_AUTHORIZATION_FAILED,
        KafkaError.GROUP_AUTHORIZATION_FAILED,
        KafkaError._AUTHENTICATION,
        KafkaError.SASL_AUTHENTICATION_FAILED,
        KafkaError.CLUSTER_AUTHORIZATION_FAILED,
        KafkaError._INVALID_ARG,
    }
)
"""A consumer error no retry fixes (credentials, rights, a bad argument): the worker exits and says so."""


def kafka_error(err: BaseException) -> KafkaError | None:
    """The KafkaError a KafkaException carries, else None."""
    if isinstance(err, KafkaException) and err.args and isinstance(err.args[0], KafkaError):
        return err.args[0]
    return None


def is_unreachable(error: KafkaError) -> bool:
    return error.code() in UNREACHABLE_CODES


def is_coordinator_moving(error: KafkaError) -> bool:
    return error.code() in COORDINATOR_MOVING_CODES


def is_transient_kafka(error: KafkaError) -> bool:
    if error.fatal():
        return False
    return error.code() in TRANSIENT_CODES or error.retriable()


def is_transient_kafka_call(err: BaseException) -> bool:
    """For a retrier: the exception carries a transient Kafka error."""
    error = kafka_error(err)
    return error is not None and is_transient_kafka(error)


def is_partition_lost(error: KafkaError) -> bool:
    return error.code() in PARTITION_LOST_CODES


def is_unfixable_consumer_error(error: KafkaError) -> bool:
    return error.fatal() or error.code() in UNFIXABLE_CONSUMER_CODES
