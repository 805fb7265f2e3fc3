"""The client's exceptions: one class per kind of refusal, all `DreamstreamError`s with the HTTP status."""

from __future__ import annotations


class DreamstreamError(RuntimeError):
    """The API refused a request or could not be reached; `status` is the HTTP status (0: no answer)."""

    def __init__(self, message: str, status: int = 0, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class Unreachable(DreamstreamError):
    pass


class BadRequest(DreamstreamError, ValueError):
    pass


class Unauthorized(DreamstreamError):
    pass


class Forbidden(DreamstreamError):
    pass


class NotFound(DreamstreamError, LookupError):
    pass


class Conflict(DreamstreamError):
    pass


class Busy(DreamstreamError):
    """429 (too many requests in flight) or 503 (store busy, Kafka away): retry after `retry_after`."""


class ServerError(DreamstreamError):
    pass


BY_STATUS: dict[int, type[DreamstreamError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    429: Busy,
    503: Busy,
}
