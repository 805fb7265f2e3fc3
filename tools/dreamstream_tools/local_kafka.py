"""A single-node Apache Kafka (KRaft mode) on 127.0.0.1 for development, tests and the demo.

Steps follow the Kafka 4.x "standalone controller" docs: fetch the broker jars from Maven Central
with the pom shipped beside this module, write `server.properties`, format storage once with
`--standalone`, start `kafka.Kafka` detached, wait until a metadata request answers.

Which process is the broker is decided on the process this module started (`broker_process`):
its pid and its start time go to the pid file as it is launched, and a broker is "ours" while a
process with that pid and that start time lives; never on a read of a command line (a process
that has not exec'd java yet shows the launcher's). Ready means the port answers
a Kafka metadata request, within the timeout; if the broker we started exits first, or does not
answer in time, it is stopped before the error is raised. `start(..., stop_at_exit=True)` also
stops it when this process ends: normally, by an exception, or by SIGTERM/SIGHUP (the demo).

Layout under `<home>/kafka/`:

    libs-<pom digest>/        broker jars (a changed pom gets a fresh directory)
    <port>/server.properties  one directory per client port, so a test broker on another port
    <port>/data/              never shares storage with the demo broker
    <port>/broker.pid, broker.log, broker.json (cluster id and controller port it was formatted with)
"""

from __future__ import annotations

import argparse
import atexit
import base64
import contextlib
import fcntl
import hashlib
import json
import logging
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from dreamstream_tools.broker_process import PidFileError, PidRecord, alive, launch, read_pid, send, wait_gone

HOST = "127.0.0.1"
POM_RESOURCE = "kafka_pom.xml"
LOG_TAIL_LINES = 30


class LocalKafkaError(RuntimeError):
    """The local broker could not be set up, started or stopped; the message says why."""


@dataclass(frozen=True)
class LocalBroker:
    bootstrap: str
    pid: int
    home: Path
    log_file: Path


@dataclass(frozen=True)
class _BrokerPaths:
    port: int
    root: Path

    @property
    def properties(self) -> Path:
        return self.root / "server.properties"

    @property
    def log4j(self) -> Path:
        return self.root / "log4j.properties"

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def pid_file(self) -> Path:
        return self.root / "broker.pid"

    @property
    def log_file(self) -> Path:
        return self.root / "broker.log"

    @property
    def state_file(self) -> Path:
        return self.root / "broker.json"

    @property
    def bootstrap(self) -> str:
        return f"{HOST}:{self.port}"


def _kafka_dir(home: Path) -> Path:
    return Path(home).expanduser().resolve() / "kafka"


def _paths(home: Path, port: int) -> _BrokerPaths:
    return _BrokerPaths(port, _kafka_dir(home) / str(port))


# --- jars


def ensure_jars(home: Path) -> Path:
    """Download the broker jars once into `<home>/kafka/libs-<digest>/` and return that directory."""
    pom_text = resources.files("dreamstream_tools").joinpath(POM_RESOURCE).read_text(encoding="utf-8")
    digest = hashlib.sha256(pom_text.encode()).hexdigest()[:12]
    libs = _kafka_dir(home) / f"libs-{digest}"
    done_marker = libs / ".complete"  # written last, so an interrupted download is redone
    if done_marker.exists():
        return libs
    for tool, what in (("java", "a Java 17+ runtime"), ("mvn", "Maven 3.8+")):
        if shutil.which(tool) is None:
            raise LocalKafkaError(f"`{tool}` not found on PATH: the local Kafka broker needs {what}")
    libs.mkdir(parents=True, exist_ok=True)
    # A copy outside the package: mvn may write beside its pom and site-packages can be read-only.
    pom = libs.parent / f"pom-{digest}.xml"
    pom.write_text(pom_text, encoding="utf-8")
    command = ["mvn", "-q", "-B", "-f", str(pom), "dependency:copy-dependencies", f"-DoutputDirectory={libs}"]
    result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if result.returncode != 0:
        raise LocalKafkaError(
            f"fetching the Kafka jars failed (`{' '.join(command)}` exited {result.returncode}):\n"
            + _tail(result.stdout + result.stderr)
        )
    if not any(libs.glob("kafka_2.13-*.jar")):
        raise LocalKafkaError(f"mvn finished but no kafka_2.13 jar is in {libs}; check {pom}")
    done_marker.write_text("ok\n")
    return libs


# --- configuration


def _server_properties(paths: _BrokerPaths, controller_port: int) -> str:
    controller = f"{HOST}:{controller_port}"
    return "\n".join(
        [
            "process.roles=broker,controller",
            "node.id=1",
            f"controller.quorum.bootstrap.servers={controller}",
            f"listeners=PLAINTEXT://{paths.bootstrap},CONTROLLER://{controller}",
            f"advertised.listeners=PLAINTEXT://{paths.bootstrap},CONTROLLER://{controller}",
            "controller.listener.names=CONTROLLER",
            "inter.broker.listener.name=PLAINTEXT",
            "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            f"log.dirs={paths.data}",
            # One node: every internal topic has a single replica.
            "offsets.topic.replication.factor=1",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "share.coordinator.state.topic.replication.factor=1",
            "share.coordinator.state.topic.min.isr=1",
            # Fewer internal partitions: the first consumer group joins faster on a small machine.
            "offsets.topic.num.partitions=8",
            "transaction.state.log.num.partitions=8",
            # Groups form at once instead of waiting 3 s for more members (tests, demo).
            "group.initial.rebalance.delay.ms=0",
            # Topics come from the catalog (topic_admin.ensure_topics), never from a typo.
            "auto.create.topics.enable=false",
            "num.partitions=1",
            # A dev broker: keep the disk small.
            "log.retention.hours=24",
            "log.segment.bytes=16777216",
            "",
        ]
    )


_LOG4J = """\
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.org.apache.kafka.storage.internals.log=WARN
log4j.logger.kafka.log.LogCleaner=WARN
"""


def _cluster_id() -> str:
    """A Kafka cluster id: a random UUID, base64url without padding (what `StorageTool random-uuid` prints)."""
    while True:
        value = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not value.startswith("-"):  # Kafka rejects ids that look like a command-line flag
            return value


def _controller_port(paths: _BrokerPaths, requested: int | None) -> int:
    """The controller port: the one storage was formatted with, else `requested` or port + 1."""
    if not (paths.state_file.exists() and (paths.data / "meta.properties").exists()):
        return requested or paths.port + 1
    formatted = json.loads(paths.state_file.read_text())["controller_port"]
    # The quorum's voter endpoint is baked into storage at format time.
    if requested not in (None, formatted):
        raise LocalKafkaError(
            f"{paths.data} was formatted with controller port {formatted}, not {requested}; "
            f"use that port or delete {paths.root}"
        )
    return int(formatted)


def _prepare(paths: _BrokerPaths, libs: Path, controller_port: int) -> None:
    """Write the config; format storage on first use."""
    paths.root.mkdir(parents=True, exist_ok=True)
    paths.properties.write_text(_server_properties(paths, controller_port))
    paths.log4j.write_text(_LOG4J)
    if (paths.data / "meta.properties").exists() and paths.state_file.exists():
        return
    if paths.data.exists():
        # broker.json is written right after a format, so storage without it is from an interrupted
        # format; StorageTool refuses to format over it.
        shutil.rmtree(paths.data)
    cluster_id = _cluster_id()
    _run_java(
        libs,
        ["kafka.tools.StorageTool", "format", "--standalone", "-t", cluster_id, "-c", str(paths.properties)],
        what=f"formatting Kafka storage in {paths.data}",
    )
    paths.state_file.write_text(json.dumps({"cluster_id": cluster_id, "controller_port": controller_port}))


def _java_command(libs: Path, heap: str, paths: _BrokerPaths | None) -> list[str]:
    command = ["java", f"-Xmx{heap}", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError", "-Djava.awt.headless=true"]
    # Logging goes through slf4j -> reload4j (log4j.properties); log4j-core 2 is on the classpath
    # too and would otherwise log a bogus "No configuration found" ERROR.
    command.append("-Dlog4j2.statusLoggerLevel=OFF")
    if paths is not None:
        command += [f"-Dlog4j.configuration=file:{paths.log4j}", f"-Dkafka.logs.dir={paths.root}"]
    return command + ["-cp", f"{libs}/*"]


def _run_java(libs: Path, args: list[str], what: str) -> None:
    command = _java_command(libs, "256m", None) + args
    result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise LocalKafkaError(f"{what} failed (exit {result.returncode}):\n" + _tail(result.stdout + result.stderr))


# --- processes


def _read_pid(paths: _BrokerPaths) -> PidRecord | None:
    try:
        return read_pid(paths.pid_file)
    except PidFileError as err:
        raise LocalKafkaError(str(err)) from None


def _alive(record: PidRecord, paths: _BrokerPaths) -> bool:
    # A pid file from before start times were recorded: the broker's command line names its config.
    return alive(record, legacy_marker=str(paths.properties))


def _running_pid(paths: _BrokerPaths) -> int | None:
    """The broker's pid if it is running; a stale pid file is removed."""
    record = _read_pid(paths)
    if record is None:
        return None
    if _alive(record, paths):
        return record.pid
    paths.pid_file.unlink(missing_ok=True)
    return None


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((HOST, port)) == 0


def _launch(paths: _BrokerPaths, libs: Path, heap: str) -> int:
    java = _java_command(libs, heap, paths) + ["kafka.Kafka", str(paths.properties)]
    with paths.log_file.open("ab") as log:
        log.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} starting Kafka on {paths.bootstrap}\n".encode())
    return launch(java, paths.log_file, paths.pid_file)


def _metadata_answers(bootstrap: str) -> bool:
    """True when the broker answers a metadata request and lists itself (it is unfenced)."""
    # librdkafka's log lines go to Python logging: connection refusals while booting are expected.
    logger = logging.getLogger(__name__)
    admin = AdminClient({"bootstrap.servers": bootstrap, "socket.connection.setup.timeout.ms": 2000}, logger=logger)
    try:
        return bool(admin.list_topics(timeout=3).brokers)
    except KafkaException:
        return False  # not ready yet; the caller retries until its deadline


def _wait_ready(paths: _BrokerPaths, pid: int, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    record = _read_pid(paths) or PidRecord(pid, None)
    while time.monotonic() < deadline:
        if not _alive(record, paths):
            raise LocalKafkaError(
                f"Kafka on {paths.bootstrap} exited during startup; end of {paths.log_file}:\n"
                + _tail(paths.log_file.read_text(errors="replace"))
            )
        # Probe the port first so librdkafka doesn't log a connection error per attempt.
        if _port_open(paths.port) and _metadata_answers(paths.bootstrap):
            return
        time.sleep(0.5)
    raise LocalKafkaError(
        f"Kafka on {paths.bootstrap} did not answer within {timeout_s:.0f}s; end of {paths.log_file}:\n"
        + _tail(paths.log_file.read_text(errors="replace"))
    )


def _tail(text: str, lines: int = LOG_TAIL_LINES) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


# --- public API


def start(
    home: Path,
    port: int = 9092,
    controller_port: int | None = None,
    heap: str = "512m",
    timeout_s: float = 90,
    stop_at_exit: bool = False,
) -> LocalBroker:
    """Start a broker on 127.0.0.1:`port` (controller on `port + 1` by default), or return the one
    already running there from this home. Blocks until it answers metadata requests.

    `stop_at_exit`: a broker this call launched is stopped when this process ends (atexit, and
    SIGTERM/SIGHUP turned into a normal exit); one that was running already is left alone."""
    home = Path(home).expanduser().resolve()
    paths = _paths(home, port)
    with _port_lock(paths):
        running = _running_pid(paths) is not None
        broker = _start_locked(home, paths, controller_port, heap, timeout_s)
    if stop_at_exit and not running:
        _stop_when_this_process_ends(paths)
    return broker


_OWNED: dict[int, _BrokerPaths] = {}
_EXIT_HOOKS = threading.Lock()


def _stop_when_this_process_ends(paths: _BrokerPaths) -> None:
    with _EXIT_HOOKS:
        if not _OWNED:
            atexit.register(_stop_owned)
            if threading.current_thread() is threading.main_thread():
                for signum in (signal.SIGTERM, signal.SIGHUP):
                    if signal.getsignal(signum) in (signal.SIG_DFL, None):
                        signal.signal(signum, _exit_on_signal)
        _OWNED[paths.port] = paths


def _exit_on_signal(signum: int, _frame: object) -> None:
    # A normal exit: `finally` blocks and atexit run, so what this process started is stopped.
    sys.exit(128 + signum)


def _stop_owned() -> None:
    for port, paths in list(_OWNED.items()):
        try:
            _stop_one(paths, timeout_s=30)
        except LocalKafkaError as err:
            print(f"error: stopping the Kafka broker on port {port}: {err}", file=sys.stderr)
        _OWNED.pop(port, None)


@contextlib.contextmanager
def _port_lock(paths: _BrokerPaths) -> Iterator[None]:
    """Serialise start() per port across processes (e.g. parallel test workers), so storage is
    formatted once and one broker is launched."""
    paths.root.mkdir(parents=True, exist_ok=True)
    with (paths.root / "start.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _start_locked(
    home: Path, paths: _BrokerPaths, controller_port: int | None, heap: str, timeout_s: float
) -> LocalBroker:
    port = paths.port
    pid = _running_pid(paths)
    if pid is None:
        controller_port = _controller_port(paths, controller_port)
        for taken in (port, controller_port):
            if _port_open(taken):
                raise LocalKafkaError(
                    f"{HOST}:{taken} is already in use by another process (not a broker started from {home}); "
                    "stop it, pick another port, or point KAFKA_BOOTSTRAP_SERVERS at the Kafka you have"
                )
        libs = ensure_jars(home)
        _prepare(paths, libs, controller_port)
        pid = _launch(paths, libs, heap)
        try:
            _wait_ready(paths, pid, timeout_s)
        except BaseException:
            _stop_one(paths, timeout_s=10)  # don't leave a half-started broker behind (^C included)
            raise
    else:
        _wait_ready(paths, pid, timeout_s)
    return LocalBroker(paths.bootstrap, pid, home, paths.log_file)


def _stop_one(paths: _BrokerPaths, timeout_s: float) -> bool:
    """Stop the broker of one port dir; False when none was running."""
    record = _read_pid(paths)
    if record is None or not _alive(record, paths):
        paths.pid_file.unlink(missing_ok=True)
        _OWNED.pop(paths.port, None)
        return False
    marker = str(paths.properties)
    send(record.pid, signal.SIGTERM)  # controlled shutdown: flushes logs, closes the quorum cleanly
    if not wait_gone(record, marker, timeout_s):
        send(record.pid, signal.SIGKILL)
        if not wait_gone(record, marker, 10):
            raise LocalKafkaError(f"Kafka pid {record.pid} survived SIGKILL; see {paths.log_file}")
    paths.pid_file.unlink(missing_ok=True)
    _OWNED.pop(paths.port, None)
    return True


def _port_dirs(home: Path) -> list[_BrokerPaths]:
    root = _kafka_dir(home)
    if not root.is_dir():
        return []
    ports = sorted(int(entry.name) for entry in root.iterdir() if entry.is_dir() and entry.name.isdigit())
    return [_paths(home, port) for port in ports]


def stop(home: Path, timeout_s: float = 30, port: int | None = None) -> list[int]:
    """Stop the broker on `port`, or every broker started from `home`; return the ports stopped.

    SIGTERM first, SIGKILL after `timeout_s`. Data is kept, so the next start is quick."""
    targets = [_paths(home, port)] if port is not None else _port_dirs(home)
    return [paths.port for paths in targets if _stop_one(paths, timeout_s)]


def status(home: Path, port: int | None = None) -> dict[str, object]:
    """State of the broker on `port`; without a port, the first running broker of `home` (else 9092)."""
    if port is None:
        running = [paths for paths in _port_dirs(home) if _running_pid(paths) is not None]
        paths = running[0] if running else _paths(home, 9092)
    else:
        paths = _paths(home, port)
    pid = _running_pid(paths)
    return {
        "running": pid is not None,
        "pid": pid,
        "bootstrap": paths.bootstrap,
        "data_dir": str(paths.data),
        "log_file": str(paths.log_file),
    }


# --- `python -m dreamstream_tools.local_kafka start|stop|status` (CI uses it; the CLI has `dreamstream kafka`)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dreamstream_tools.local_kafka", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("start", "stop", "status"))
    parser.add_argument("--home", type=Path, help="state directory (default: settings home)")
    parser.add_argument("--port", type=int, help="client port (start: default 9092)")
    parser.add_argument("--controller-port", type=int)
    parser.add_argument("--heap", default="512m")
    parser.add_argument("--timeout", type=float, default=90.0, help="seconds to wait for start/stop")
    args = parser.parse_args(argv)
    home = args.home
    if home is None:
        from schemas.settings import get_settings

        home = get_settings().home
    try:
        if args.command == "start":
            broker = start(home, args.port or 9092, args.controller_port, args.heap, args.timeout)
            print(f"Kafka running on {broker.bootstrap} (pid {broker.pid}, log {broker.log_file})")
        elif args.command == "stop":
            stopped = stop(home, args.timeout, args.port)
            print(f"stopped Kafka on port(s) {', '.join(map(str, stopped))}" if stopped else "no Kafka was running")
        else:
            print(json.dumps(status(home, args.port), indent=2))
    except LocalKafkaError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
