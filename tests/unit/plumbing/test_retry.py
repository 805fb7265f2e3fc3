"""Bounded retries: transient errors are retried with a capped backoff, logged once per interval
and counted; anything else is raised at once; a resource away too long ends in GaveUp saying so."""

from __future__ import annotations

import logging
import threading

import httpx
import pytest
from confluent_kafka import KafkaError, KafkaException
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from dreaming.store.transient import is_transient_store
from plumbing.kafka_errors import is_partition_lost, is_transient_kafka, is_transient_kafka_call
from plumbing.retry import TRANSIENT_ERRORS, GaveUp, Retrier, RetryPolicy, Stopping

FAST = RetryPolicy(initial_s=0.001, max_s=0.004, log_every_s=60.0, give_up_after_s=5.0)


class Flaky:
    def __init__(self, failures: int, error: BaseException) -> None:
        self.failures, self.error, self.calls = failures, error, 0

    def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return "ok"


def test_transient_errors_are_retried_logged_once_and_counted(caplog):
    before = TRANSIENT_ERRORS.labels("kafka", "commit offsets")._value.get()
    call = Flaky(20, KafkaException(KafkaError(KafkaError.NOT_COORDINATOR)))
    with caplog.at_level(logging.INFO, logger="plumbing.retry"):
        assert Retrier("kafka", FAST).call("commit offsets", call, is_transient_kafka_call) == "ok"
    assert call.calls == 21
    assert TRANSIENT_ERRORS.labels("kafka", "commit offsets")._value.get() - before == 20
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, "one line per interval, not one per attempt"
    assert any("recovered after" in r.getMessage() for r in caplog.records)


def test_other_errors_are_raised_at_once():
    call = Flaky(1, KafkaException(KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED)))
    with pytest.raises(KafkaException):
        Retrier("kafka", FAST).call("commit offsets", call, is_transient_kafka_call)
    assert call.calls == 1


def test_the_delay_is_capped_and_a_long_outage_gives_up_saying_how_long():
    assert [FAST.delay(n) for n in (0, 1, 2, 10, 100)] == [0.001, 0.002, 0.004, 0.004, 0.004]
    short = RetryPolicy(initial_s=0.001, max_s=0.002, log_every_s=60.0, give_up_after_s=0.05)
    with pytest.raises(GaveUp, match=r"qdrant index: still failing after \d+s and \d+ attempts"):
        Retrier("qdrant", short).call(
            "index", Flaky(10**9, ResponseHandlingException(OSError("refused"))), is_transient_store
        )


def test_stop_interrupts_the_wait():
    stop = threading.Event()
    stop.set()
    with pytest.raises(Stopping):
        Retrier("kafka", RetryPolicy(initial_s=10, max_s=10), stop).call(
            "commit offsets", Flaky(1, KafkaException(KafkaError(KafkaError._TRANSPORT))), is_transient_kafka_call
        )


@pytest.mark.parametrize(
    ("error", "transient"),
    [
        (ResponseHandlingException(ConnectionRefusedError("refused")), True),
        (UnexpectedResponse(503, "Service Unavailable", b"", httpx.Headers()), True),
        (UnexpectedResponse(429, "Too Many Requests", b"", httpx.Headers()), True),
        (UnexpectedResponse(400, "Bad Request", b"", httpx.Headers()), False),
        (httpx.ConnectError("refused"), True),
        (ValueError("bad vector size"), False),
    ],
)
def test_which_store_errors_are_transient(error, transient):
    assert is_transient_store(error) is transient


def test_which_kafka_errors_are_transient_or_a_lost_partition():
    assert is_transient_kafka(KafkaError(KafkaError.NOT_COORDINATOR))
    assert is_transient_kafka(KafkaError(KafkaError.COORDINATOR_LOAD_IN_PROGRESS))
    assert is_transient_kafka(KafkaError(KafkaError._MSG_TIMED_OUT))
    assert not is_transient_kafka(KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED))
    assert not is_transient_kafka(KafkaError(KafkaError._TRANSPORT, fatal=True))
    assert is_partition_lost(KafkaError(KafkaError.ILLEGAL_GENERATION))
    assert not is_partition_lost(KafkaError(KafkaError.NOT_COORDINATOR))
