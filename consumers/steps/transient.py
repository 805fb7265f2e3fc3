"""Which errors are worth retrying: a broker or a Qdrant server that is briefly away comes back;
a bad message, a bad config or a fenced producer does not.

Every classifier errs towards "not transient" for what it does not know, so an unknown error is
reported (and, inside a pass, recorded as a failed outcome) rather than retried forever.
"""

from __future__ import annotations

from confluent_kafka import KafkaError, KafkaException

_KAFKA_TRANSIENT_CODES = frozenset(
    {
        KafkaError._TRANSPORT,
        KafkaError._ALL_BROKERS_DOWN,
        KafkaError._TIMED_OUT,
        KafkaError._MSG_TIMED_OUT,
        KafkaError._WAIT_COORD,
        KafkaError._RESOLVE,
        KafkaError.NOT_COORDINATOR,
        KafkaError.COORDINATOR_NOT_AVAILABLE,
        KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
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

_KAFKA_PARTITION_LOST_CODES = frozenset(
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


def kafka_error(err: BaseException) -> KafkaError | None:
    if isinstance(err, KafkaException) and err.args and isinstance(err.args[0], KafkaError):
        return err.args[0]
    return None


def is_transient_kafka(error: KafkaError) -> bool:
    if error.fatal():
        return False
    return error.code() in _KAFKA_TRANSIENT_CODES or error.retriable()


def is_partition_lost(error: KafkaError) -> bool:
    return error.code() in _KAFKA_PARTITION_LOST_CODES


def is_transient_store(err: BaseException) -> bool:
    """A Qdrant server that did not answer, or answered 5xx / 429. Embedded Qdrant raises plain
    Python errors (ValueError, a pydantic error) for bad data: those are not transient."""
    from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

    if isinstance(err, ResponseHandlingException):  # connection refused, reset, timed out
        return True
    if isinstance(err, UnexpectedResponse):
        return err.status_code is not None and (err.status_code >= 500 or err.status_code == 429)
    try:
        import httpx
    except ImportError:  # qdrant-client always brings httpx; this only guards a stripped install
        return False
    if isinstance(err, (httpx.TransportError, httpx.TimeoutException)):
        return True
    try:
        import grpc
    except ImportError:
        return False
    if isinstance(err, grpc.RpcError):
        code = err.code() if callable(getattr(err, "code", None)) else None
        return code in (
            grpc.StatusCode.UNAVAILABLE,
            grpc.StatusCode.DEADLINE_EXCEEDED,
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        )
    return False


class StoreUnavailable(RuntimeError):
    """Qdrant could not be reached: the job is retried, never recorded as failed (recording it
    would need the store too)."""
