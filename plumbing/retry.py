"""Retry a call on transient errors with bounded exponential backoff.

One warning per `log_every_s` while a resource is away (not one per attempt: an outage of a
minute would otherwise write hundreds of lines), one info line when it is back, every transient
error counted in `dreamstream_transient_errors_total{resource, operation}`. After `give_up_after_s`
of failing the last error is raised as `GaveUp`, which says for how long and why: the worker
exits on it, since a supervisor restart is the better remedy by then.

Shared by the workers (plumbing/): what counts as transient is the caller's classifier, for Kafka
`plumbing.kafka_errors.is_transient_kafka_call`, for the store `consumers.steps.transient`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from prometheus_client import Counter

log = logging.getLogger(__name__)
T = TypeVar("T")

TRANSIENT_ERRORS = Counter(
    "dreamstream_transient_errors_total",
    "Transient Kafka/Qdrant errors retried by the consolidation worker",
    ["resource", "operation"],
)


OPERATIONS = {
    "kafka": ("consume", "commit offsets", "read committed offset", "deliver audit events"),
    "qdrant": ("index", "dream pass", "mark job published", "forget"),
}
"""The (resource, operation) pairs the consolidation worker retries, exported at 0 from the start."""


def declare_transient_series() -> None:
    for resource, operations in OPERATIONS.items():
        for operation in operations:
            TRANSIENT_ERRORS.labels(resource, operation)


class GaveUp(RuntimeError):
    """A transient error lasted longer than the policy allows."""


class Stopping(RuntimeError):
    """The worker was asked to stop while waiting to retry."""


@dataclass(frozen=True)
class RetryPolicy:
    initial_s: float = 0.2
    max_s: float = 5.0
    log_every_s: float = 30.0
    give_up_after_s: float | None = 900.0
    """None retries for as long as the worker runs."""

    def delay(self, attempt: int) -> float:
        return min(self.max_s, self.initial_s * (2.0 ** min(attempt, 30)))


class Retrier:
    def __init__(self, resource: str, policy: RetryPolicy = RetryPolicy(), stop: threading.Event | None = None) -> None:
        self.resource = resource
        self.policy = policy
        self._stop = stop or threading.Event()

    def call(self, operation: str, fn: Callable[[], T], is_transient: Callable[[BaseException], bool]) -> T:
        attempt = 0
        first_failure: float | None = None
        logged_at = float("-inf")
        while True:
            try:
                result = fn()
            except Exception as err:
                if not is_transient(err):
                    raise
                TRANSIENT_ERRORS.labels(self.resource, operation).inc()
                now = time.monotonic()
                first_failure = now if first_failure is None else first_failure
                away = now - first_failure
                if self.policy.give_up_after_s is not None and away >= self.policy.give_up_after_s:
                    raise GaveUp(
                        f"{self.resource} {operation}: still failing after {away:.0f}s and {attempt + 1} "
                        f"attempts: {err}"
                    ) from err
                if now - logged_at >= self.policy.log_every_s:
                    log.warning(
                        "%s %s: transient error, retrying (failing for %.0fs, %d attempts): %s",
                        self.resource,
                        operation,
                        away,
                        attempt + 1,
                        err,
                    )
                    logged_at = now
                if self._stop.wait(self.policy.delay(attempt)):
                    raise Stopping(f"{self.resource} {operation}: stopped while retrying: {err}") from err
                attempt += 1
                continue
            if first_failure is not None:
                log.info(
                    "%s %s: recovered after %.1fs and %d retries",
                    self.resource,
                    operation,
                    time.monotonic() - first_failure,
                    attempt,
                )
            return result
