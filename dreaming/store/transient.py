"""Which store errors are worth retrying: a Qdrant server that is briefly away comes back; bad
data does not. (Kafka's are judged by `plumbing.kafka_errors`.)

Every classifier errs towards "not transient" for what it does not know, so an unknown error is
reported (and, inside a pass, recorded as a failed outcome) rather than retried forever.
"""

from __future__ import annotations


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
