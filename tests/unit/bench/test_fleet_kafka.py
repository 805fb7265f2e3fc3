"""bench.fleet's Kafka phase waits for its consumer group with `wait_until`: a transient Kafka error
(a busy broker, a coordinator still loading) is another try on a new admin client, anything else
raises at once, and the deadline's error says what was last seen. A fake clock, no broker."""

from __future__ import annotations

from pathlib import Path

import pytest
from confluent_kafka import KafkaError, KafkaException

from bench.fleet_kafka import _settings, wait_until


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0
        self.now += seconds


class Probe:
    """`not_yet` replaying `answers` in turn: a string (not yet), None (done) or an error code,
    which is raised after the request's timeout has passed on the clock."""

    def __init__(self, clock: Clock, *answers: str | int | None) -> None:
        self.clock, self.answers = clock, list(answers)
        self.clients: list[int] = []
        self.timeouts: list[float] = []

    def __call__(self, client: int, request_timeout_s: float) -> str | None:
        self.clients.append(client)
        self.timeouts.append(request_timeout_s)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, int):
            self.clock.now += request_timeout_s if answer == KafkaError._TIMED_OUT else 0.01
            raise KafkaException(KafkaError(answer))
        return answer


class Connect:
    """The client factory: client n is the number n."""

    def __init__(self) -> None:
        self.made = 0

    def __call__(self) -> int:
        self.made += 1
        return self.made - 1


def wait(clock: Clock, probe: Probe, connect: Connect, timeout_s: float = 60.0) -> None:
    wait_until(connect, probe, timeout_s, "the group did not form", clock=clock, sleep=clock.sleep)


def test_a_group_that_forms_is_asked_on_one_client_until_done() -> None:
    clock = Clock()
    probe = Probe(clock, "1/2 member(s)", "2/2 member(s), state PREPARING_REBALANCING", None)
    connect = Connect()
    wait(clock, probe, connect)
    assert probe.clients == [0, 0, 0]
    assert connect.made == 1


@pytest.mark.parametrize(
    "code", [KafkaError._TIMED_OUT, KafkaError.COORDINATOR_LOAD_IN_PROGRESS, KafkaError.COORDINATOR_NOT_AVAILABLE]
)
def test_a_transient_error_is_another_try_on_a_new_client(code: int) -> None:
    clock = Clock()
    probe = Probe(clock, code, "1/2 member(s)", None)
    connect = Connect()
    wait(clock, probe, connect)
    # The client that saw the error is not asked again (librdkafka#4605); the next one is kept.
    assert probe.clients == [0, 1, 1]


def test_any_other_error_raises_at_once() -> None:
    clock = Clock()
    probe = Probe(clock, KafkaError.GROUP_AUTHORIZATION_FAILED, None)
    connect = Connect()
    with pytest.raises(KafkaException) as raised:
        wait(clock, probe, connect)
    assert raised.value.args[0].code() == KafkaError.GROUP_AUTHORIZATION_FAILED
    assert len(probe.clients) == 1


def test_at_the_deadline_the_error_says_what_was_last_seen() -> None:
    clock = Clock()
    probe = Probe(clock, "1/2 member(s), state STABLE, 6 partition(s) assigned", KafkaError._TIMED_OUT)
    connect = Connect()
    with pytest.raises(TimeoutError) as raised:
        wait(clock, probe, connect, timeout_s=25.0)
    message = str(raised.value)
    assert "the group did not form within 25 s" in message
    assert "last seen: 1/2 member(s), state STABLE, 6 partition(s) assigned" in message
    assert "Local: Timed out" in message
    # Each request is bounded by the time left, so the wait ends at its deadline, not after it.
    assert clock.now == pytest.approx(25.0)
    assert all(t <= 10.0 for t in probe.timeouts) and probe.timeouts[-1] < 10.0


def test_the_broker_is_the_one_settings_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KAFKA_BOOTSTRAP_SERVERS", raising=False)
    monkeypatch.setenv("DREAMSTREAM_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:29192")
    assert _settings(tmp_path).kafka_bootstrap_servers == "127.0.0.1:29192"
