"""Shared helpers of the stream benchmark: figures and output, /proc readings, timing, Kafka offsets,
and the worker child processes (`Child`) with their progress polling (`Follow`)."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # `tests.integration.kafka_env` lives in the repo, not the package
    sys.path.insert(0, str(REPO_ROOT))

CLK_TCK = os.sysconf("SC_CLK_TCK")
LO, HI = 0.10, 0.95  # the measured window, as shares of the records
CREATED: list = []  # Settings whose topics this run created (deleted at the end)


# --------------------------------------------------------------------------- output

FIGURES: dict[str, object] = {}


def say(text: str) -> None:
    print(text, flush=True)


def figure(name: str, value: object, text: str = "") -> None:
    FIGURES[name] = value
    if text:
        say(f"  {text}")


def section(title: str) -> None:
    say(f"\n== {title}")


def mb(n: float) -> str:
    return f"{n / 2**20:.1f} MB"


def timed(fn, *args) -> float:
    """CPU seconds of fn(*args): unlike wall time, barely moved by other load on the machine."""
    gc.collect()
    t0 = time.process_time()
    fn(*args)
    return time.process_time() - t0


# --------------------------------------------------------------------------- /proc


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS / VmHWM in bytes."""
    out = {}
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                name, value = line.split(":", 1)
                out[name] = int(value.split()[0]) * 1024
    return out


def proc_cpu_s(pid: int) -> float:
    """utime + stime of a process (all its threads), in seconds."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return float("nan")


def machine_cpu() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine; iowait counts as idle."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    return sum(values) - values[3] - values[4], sum(values)


def broker_pid(bootstrap: str) -> int | None:
    """The pid of the tests' local broker, when that is the broker in use (for its CPU share)."""
    from tests.integration.kafka_env import TEST_KAFKA_HOME, TEST_KAFKA_PORT

    if bootstrap != f"127.0.0.1:{TEST_KAFKA_PORT}":
        return None
    with contextlib.suppress(OSError, ValueError):
        pid = int((TEST_KAFKA_HOME / "kafka" / str(TEST_KAFKA_PORT) / "broker.pid").read_text().strip())
        if Path(f"/proc/{pid}").exists():
            return pid
    return None


# --------------------------------------------------------------------------- Kafka helpers


def end_offsets(consumer, topic: str, partitions: int) -> int:
    from confluent_kafka import TopicPartition

    return sum(
        consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)[1] for p in range(partitions)
    )


def committed(admin, group: str, topic: str, partitions: int) -> int:
    """Sum over partitions of the group's committed offsets on `topic` (0 where none)."""
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition

    request = ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p) for p in range(partitions)])
    result = admin.list_consumer_group_offsets([request], request_timeout=10)[group].result()
    return sum(max(tp.offset, 0) for tp in result.topic_partitions)


def window_rate(samples: list[tuple[float, int]], total: int, lo: float = LO, hi: float = HI):
    """Events/s between the first samples at or past lo*total and hi*total: (rate, a, b) or (None, ...)."""
    a = next(((t, c) for t, c in samples if c >= lo * total), None)
    b = next(((t, c) for t, c in samples if c >= hi * total), None)
    if a is None or b is None or b[0] <= a[0]:
        return None, a, b
    return (b[1] - a[1]) / (b[0] - a[0]), a, b


@contextlib.contextmanager
def _cwd_env(path: Path, extra: dict[str, str]):
    """Faust writes `<app id>-data/` into its working directory: keep it out of the repository."""
    old, saved = os.getcwd(), {k: os.environ.get(k) for k in extra}
    os.chdir(path)
    os.environ.update(extra)
    try:
        yield
    finally:
        os.chdir(old)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class Child:
    """A stream worker child process: `dreamstream worker streams` through start_stream_worker, or
    (argv given) `python -m bench.streams` in one of its child modes (cProfile-wrapped worker, Faust floor)."""

    def __init__(self, settings, home: Path, name: str, extra_env: dict[str, str], argv: list[str] | None = None):
        from dreamstream_tools.pipeline import settings_env, start_stream_worker

        self.name, self.log = name, home / f"{name}.log"
        self.t0 = time.monotonic()
        # The children run this checkout's code, whatever `pip install -e` points at.
        pythonpath = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
        with _cwd_env(home, {**extra_env, "PYTHONPATH": pythonpath}):
            if argv is None:
                self.proc = start_stream_worker(settings, self.log)
            else:
                env = {**os.environ, **settings_env(settings), "PYTHONPATH": str(REPO_ROOT)}
                with open(self.log, "ab") as log_file:
                    self.proc = subprocess.Popen(
                        [sys.executable, "-m", "bench.streams", *argv],
                        env=env,
                        stdout=log_file,
                        stderr=subprocess.STDOUT,
                        stdin=subprocess.DEVNULL,
                    )
        self.pid = self.proc.pid

    def check(self) -> None:
        if self.proc.poll() is not None:
            tail = self.log.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"{self.name} exited with {self.proc.returncode}; log tail:\n{tail}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Follow:
    """Poll a child's committed offsets, its table writes (changelog end offsets), CPU and memory."""

    def __init__(
        self,
        child: Child,
        admin,
        watermarks,
        group: str,
        topic: str,
        changelog: str | None,
        partitions: int,
        target: int,
        broker: int | None = None,
        quiet: bool = False,
    ):
        self.child, self.admin, self.watermarks = child, admin, watermarks
        self.group, self.topic, self.changelog, self.partitions = group, topic, changelog, partitions
        self.target, self.broker, self.quiet = target, broker, quiet
        self.samples: list[tuple[float, int]] = []  # (monotonic, committed)
        self.writes: list[tuple[float, int]] = []  # (monotonic, changelog end offset)
        self.cpu: list[tuple] = []  # (monotonic, child cpu s, machine busy, machine total, bench cpu s, broker cpu s)
        self.hwm = 0
        self.first_write = self.first_commit = None

    def run(self, timeout_s: float) -> Follow:
        deadline = time.monotonic() + timeout_s
        last_print = 0.0
        while True:
            self.child.check()
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"{self.child.name}: committed {self.samples[-1][1] if self.samples else 0} "
                    f"of {self.target} within {timeout_s:.0f} s"
                )
            done = committed(self.admin, self.group, self.topic, self.partitions)
            writes = end_offsets(self.watermarks, self.changelog, self.partitions) if self.changelog else 0
            now = time.monotonic()
            self.samples.append((now, done))
            self.writes.append((now, writes))
            self.cpu.append(
                (
                    now,
                    proc_cpu_s(self.child.pid),
                    *machine_cpu(),
                    time.process_time(),
                    proc_cpu_s(self.broker) if self.broker else 0.0,
                )
            )
            self.hwm = max(self.hwm, proc_status(self.child.pid).get("VmHWM", 0))
            if self.first_write is None and writes > 0:
                self.first_write = now - self.child.t0
            if self.first_commit is None and done > 0:
                self.first_commit = now - self.child.t0
            if not self.quiet and (now - last_print >= 5 or done >= self.target):
                last_print = now
                say(
                    f"    t={now - self.child.t0:5.1f}s committed {done:>9,}/{self.target:,}  table writes "
                    f"{writes:>9,}  VmHWM {mb(self.hwm)}"
                )
            if done >= self.target:
                return self
            time.sleep(0.25)

    def rate(self):
        return window_rate(self.samples, self.target)

    def cpu_in(self, t_a: float, t_b: float) -> dict[str, float] | None:
        win = [c for c in self.cpu if t_a <= c[0] <= t_b]
        if len(win) < 2:
            return None
        (ta, ca, ba, aa, pa, ka), (tb, cb, bb, ab, pb, kb) = win[0], win[-1]
        dt = tb - ta
        out = {"child": (cb - ca) / dt, "machine": (bb - ba) / (ab - aa) * os.cpu_count(), "bench": (pb - pa) / dt}
        if self.broker:
            out["broker"] = (kb - ka) / dt
        return out
