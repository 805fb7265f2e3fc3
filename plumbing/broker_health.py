"""Either worker while the broker is away: librdkafka's log lines at most once per interval
(`QuietKafkaLog`), and the failed attempts counted, logged once per `broker_retry_log_s` and
turned into a back-off for the loop (`BrokerHealth`). Both workers give their clients these as
`logger` and `error_cb`, so an outage reads the same in both logs."""

from __future__ import annotations

import logging
import time

from confluent_kafka import KafkaError
from prometheus_client import Counter, Gauge

from plumbing.kafka_errors import is_unreachable
from plumbing.kafka_io import KAFKA_LOG
from schemas.settings import Settings

log = logging.getLogger("dreamstream.kafka.health")

KAFKA_UNREACHABLE = Gauge("dreamstream_kafka_unreachable", "1 while this worker cannot reach any Kafka broker")
KAFKA_CONNECT_FAILURES = Counter(
    "dreamstream_kafka_connect_failures_total", "Failed attempts of this worker to reach Kafka"
)


class QuietKafkaLog:
    """librdkafka's log lines through `dreamstream.kafka`, each facility at most once per
    interval, with the count of lines held back (a broker outage repeats the same line on every
    reconnect attempt)."""

    def __init__(self, interval_s: float, target: logging.Logger = KAFKA_LOG) -> None:
        self.interval, self.target = interval_s, target
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def log(self, level: int, fmt: str, *args: object) -> None:
        facility = str(args[0]) if args else fmt
        now = time.monotonic()
        if now - self._last.get(facility, -1e9) < self.interval:
            self._held[facility] = self._held.get(facility, 0) + 1
            return
        self._last[facility] = now
        held = self._held.pop(facility, 0)
        suffix = f" ({held} similar lines held back in the last {self.interval:g}s)" if held else ""
        self.target.log(level, fmt + suffix, *args)


class BrokerHealth:
    """Counts failed connection attempts; while the broker is unreachable, one log line per
    `broker_retry_log_s` with the attempts so far, a gauge, and a growing back-off for the loop."""

    def __init__(self, settings: Settings, say: logging.Logger = log) -> None:
        self.interval = settings.broker_retry_log_s
        self.bootstrap = settings.kafka_bootstrap_servers
        self.say = say
        self.down_since: float | None = None
        self.fatal: KafkaError | None = None
        self.attempts = 0
        self._logged_at = -1e9
        KAFKA_UNREACHABLE.set(0)

    def error(self, err: KafkaError) -> None:
        """librdkafka's error_cb (every client of the worker)."""
        now = time.monotonic()
        if err.fatal():
            self.fatal = err  # the loop stops at its next turn, uncommitted
            self.say.critical("fatal Kafka client error: %s", err.str())
            return
        if is_unreachable(err):
            self.attempts += 1
            KAFKA_CONNECT_FAILURES.inc()
            if self.down_since is None:
                self.down_since = now
                KAFKA_UNREACHABLE.set(1)
            if now - self._logged_at >= self.interval:
                self._logged_at = now
                self.say.warning(
                    "Kafka at %s unreachable for %.0fs: %d failed attempts so far (last: %s); retrying with back-off",
                    self.bootstrap,
                    now - self.down_since,
                    self.attempts,
                    err.str(),
                )
            return
        if now - self._logged_at >= self.interval:
            self._logged_at = now
            self.say.warning("Kafka error: %s", err.str())

    def ok(self) -> None:
        if self.down_since is not None:
            self.say.warning(
                "Kafka at %s reachable again after %.0fs and %d failed attempts",
                self.bootstrap,
                time.monotonic() - self.down_since,
                self.attempts,
            )
            self.down_since, self.attempts, self._logged_at = None, 0, -1e9
            KAFKA_UNREACHABLE.set(0)

    @property
    def idle_sleep_s(self) -> float:
        """How long the loop rests when a poll brought nothing: longer while the broker is away."""
        if self.down_since is None:
            return 0.02
        return min(1.0, 0.05 * 2.0 ** min(self.attempts, 5))
