"""Throughput and memory of the stream worker (`streams/`) on real Kafka, against a plain baseline.

    python -m bench.streams            # 200,000 turns over 100,000 scopes (~5 min on an idle 2-core machine)
    python -m bench.streams --quick    # 20,000 turns over 10,000 scopes (~1.5 min)

One run, one fresh topic set (2 partitions unless --partitions), every phase over the same turns topic:

1. produce N ConversationTurn events (key = scope) over S active scopes;
2. baseline: a confluent-kafka consume(batch) loop validating each record with
   `ConversationTurn.model_validate_json`;
3. an idle `dreamstream worker streams` (its own empty topic set): startup and RSS with 0 scopes;
4. `dreamstream worker streams` (start_stream_worker) on the turns topic: events/s from its consumer
   group's committed offsets (group = app id), CPU, startup, peak memory (VmHWM), bytes per scope,
   and the serialized signals rows read back from its changelog;
5. Faust's own floor, same App options and topic: an agent that does nothing, and one that only
   writes a fixed signals row per event (`--no-floor` skips);
6. the worker's per-event logic in this process without Faust (Processor.decode + apply + decide +
   the signals row round trip), per-stage costs, the timer's table scan, heap per row, a cProfile,
   and the same logic with the row kept as orjson bytes (a candidate fix);
7. a prototype of the suggested fix: the same logic in a confluent-kafka loop that writes the same
   changelog rows through librdkafka and commits after they are delivered (`--no-prototype` skips);
8. with `--profile-worker`: a second worker under cProfile on the same topic (own app id).

Rates are measured between 10 % and 95 % of the records, which excludes startup. Figures are
printed as they come; the last line is one JSON object with all of them. Uses
KAFKA_BOOTSTRAP_SERVERS when set, else the tests' local broker on 127.0.0.1:19092 (started if
needed, left running). Deletes the topics and consumer groups it created, stops what it started.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import cProfile
import gc
import json
import os
import pstats
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # `tests.integration.kafka_env` lives in the repo, not the package
    sys.path.insert(0, str(REPO_ROOT))

CLK_TCK = os.sysconf("SC_CLK_TCK")
LO, HI = 0.10, 0.95  # the measured window, as shares of the records
LOGIC_SUBSET = 50_000  # records for the slower in-process variants (rates are per event)


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


# --------------------------------------------------------------------------- events

NAMES = ["Ava", "Noah", "Mia", "Liam", "Zoe", "Omar", "Lena", "Ravi", "Ines", "Hugo", "Yuki", "Sven"]
CITIES = ["Berlin", "Lisbon", "Madrid", "Oslo", "Tokyo", "Austin", "Dublin", "Prague", "Porto", "Seoul"]
PRODUCTS = ["Postgres", "Kafka", "Redis", "Snowflake", "Salesforce", "Jira", "Stripe", "Figma"]
TENANTS = ["acme", "globex", "initech", "umbrella", "hooli"]
AGENTS = ["support-bot", "travel-assistant", "coder", "sales-bot"]
USER_PLAIN = [
    "Can you check the status of my order {code}?",
    "What time does the {city} office open tomorrow?",
    "Please remind me to call {name} on Friday.",
    "I need a hotel in {city} for two nights, something quiet.",
    "How do I reset my password for {product}?",
    "is there a faster way to export the weekly report",
    "thanks, that works",
    "Can you summarise the last meeting with {name}?",
    "My flight {code} to {city} is next Tuesday, can you check the gate?",
    "I'm vegetarian, please keep that in mind for the dinner booking.",
]
USER_CORRECTION = [
    "No, it's {city}, not {city2}.",
    "Actually I meant the {product} plan, not the basic one.",
    "Sorry, I meant {name} from finance.",
    "That's wrong, my flight is {code}.",
    "I changed my mind, book the aisle seat instead of the window.",
]
USER_DECISION = [
    "We decided to go with {product} for the backend.",
    "Let's switch to {product} next sprint.",
    "I'll use the {city} warehouse from now on.",
    "We settled on {name} as the account owner.",
    "We picked the annual plan, switching billing to {product}.",
]
ASSISTANT = [
    "Done: I booked {code} to {city} for you, window seat 14A.",
    "Your order {code} ships on Monday.",
    "I've noted that {name} prefers email over calls.",
    "Here is the summary you asked for: three action items, all assigned.",
    "The {city} office opens at 9am local time.",
    "Sure, I'll remind you on Friday at 10am.",
    "I couldn't find that file; could you share the exact name?",
    "{product} supports that; I've linked the setup guide.",
]


def _pool(templates: list[str], rnd: random.Random, size: int = 256) -> list[str]:
    """Pre-rendered contents, each already JSON-encoded (producing then costs one f-string)."""
    out = []
    for _ in range(size):
        city, city2 = rnd.sample(CITIES, 2)
        code = rnd.choice([f"LH{rnd.randint(100, 999)}", f"A{rnd.randint(10, 99)}X", f"{rnd.randint(1000, 9999)}KB"])
        text = rnd.choice(templates).format(name=rnd.choice(NAMES), city=city, city2=city2,
                                            product=rnd.choice(PRODUCTS), code=code)
        out.append(json.dumps(text))
    return out


def scope_name(i: int) -> str:
    return f"{TENANTS[i % len(TENANTS)]}/{AGENTS[(i // len(TENANTS)) % len(AGENTS)]}/user-{i}"


def scope_sequence(events: int, scopes: int, rnd: random.Random, hot_share: float = 0.05) -> list[int]:
    """Every scope gets one event; of the rest, `hot_share` goes to a hot set of scopes/1000 (they
    cross threshold_messages=40 and emit one job each) and the others to random scopes."""
    seq = list(range(scopes))
    hot = max(1, scopes // 1000)
    for _ in range(events - scopes):
        seq.append(rnd.randrange(hot) if rnd.random() < hot_share else rnd.randrange(scopes))
    rnd.shuffle(seq)
    return seq


def generate(events: int, scopes: int, seed: int = 7):
    """Yield (key, value) for `events` valid ConversationTurn records in arrival order: turns
    alternate user/assistant per scope; 15 % of user turns are corrections, 15 % decisions."""
    rnd = random.Random(seed)
    plain, corr, dec, asst = (_pool(t, rnd) for t in (USER_PLAIN, USER_CORRECTION, USER_DECISION, ASSISTANT))
    names = [scope_name(i) for i in range(scopes)]
    counts = [0] * scopes
    base = datetime(2026, 4, 12, 9, 0, tzinfo=timezone.utc)
    for i, s in enumerate(scope_sequence(events, scopes, rnd)):
        scope, n = names[s], counts[s]
        counts[s] = n + 1
        if n % 2 == 0:
            role = "user"
            r = rnd.random()
            content = rnd.choice(corr if r < 0.15 else dec if r < 0.30 else plain)
        else:
            role, content = "assistant", rnd.choice(asst)
        ts = (base + timedelta(seconds=i)).isoformat()
        value = (f'{{"scope":"{scope}","session_id":"{scope}#s{n // 8}","message_id":"{scope}#{n}",'
                 f'"role":"{role}","content":{content},"ts":"{ts}"}}')
        yield scope.encode(), value.encode()


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

    return sum(consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)[1]
               for p in range(partitions))


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
    (argv given) this module in one of its child modes (cProfile-wrapped worker, Faust floor)."""

    def __init__(self, settings, home: Path, name: str, extra_env: dict[str, str], argv: list[str] | None = None):
        from dreamstream.pipeline import settings_env, start_stream_worker

        self.name, self.log = name, home / f"{name}.log"
        self.t0 = time.monotonic()
        with _cwd_env(home, extra_env):
            if argv is None:
                self.proc = start_stream_worker(settings, self.log)
            else:
                env = {**os.environ, **settings_env(settings), "PYTHONPATH": str(REPO_ROOT)}
                with open(self.log, "ab") as log_file:
                    self.proc = subprocess.Popen([sys.executable, "-m", "bench.streams", *argv], env=env,
                                                 stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
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

    def __init__(self, child: Child, admin, watermarks, group: str, topic: str, changelog: str | None,
                 partitions: int, target: int, broker: int | None = None, quiet: bool = False):
        self.child, self.admin, self.watermarks = child, admin, watermarks
        self.group, self.topic, self.changelog, self.partitions = group, topic, changelog, partitions
        self.target, self.broker, self.quiet = target, broker, quiet
        self.samples: list[tuple[float, int]] = []  # (monotonic, committed)
        self.writes: list[tuple[float, int]] = []  # (monotonic, changelog end offset)
        self.cpu: list[tuple] = []  # (monotonic, child cpu s, machine busy, machine total, bench cpu s, broker cpu s)
        self.hwm = 0
        self.first_write = self.first_commit = None

    def run(self, timeout_s: float) -> "Follow":
        deadline = time.monotonic() + timeout_s
        last_print = 0.0
        while True:
            self.child.check()
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.child.name}: committed {self.samples[-1][1] if self.samples else 0} "
                                   f"of {self.target} within {timeout_s:.0f} s")
            done = committed(self.admin, self.group, self.topic, self.partitions)
            writes = end_offsets(self.watermarks, self.changelog, self.partitions) if self.changelog else 0
            now = time.monotonic()
            self.samples.append((now, done))
            self.writes.append((now, writes))
            self.cpu.append((now, proc_cpu_s(self.child.pid), *machine_cpu(), time.process_time(),
                             proc_cpu_s(self.broker) if self.broker else 0.0))
            self.hwm = max(self.hwm, proc_status(self.child.pid).get("VmHWM", 0))
            if self.first_write is None and writes > 0:
                self.first_write = now - self.child.t0
            if self.first_commit is None and done > 0:
                self.first_commit = now - self.child.t0
            if not self.quiet and (now - last_print >= 5 or done >= self.target):
                last_print = now
                say(f"    t={now - self.child.t0:5.1f}s committed {done:>9,}/{self.target:,}  table writes "
                    f"{writes:>9,}  VmHWM {mb(self.hwm)}")
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


# --------------------------------------------------------------------------- phases 1-5

def produce_phase(settings, events: int, scopes: int) -> None:
    from consumers.kafka_io import flush_or_raise, make_producer

    section(f"1. produce {events:,} turns over {scopes:,} scopes to {settings.topics.turns} "
            f"({settings.partitions} partitions)")
    producer = make_producer(settings, **{"linger.ms": 20, "batch.num.messages": 10_000,
                                          "queue.buffering.max.messages": 1_000_000,
                                          "queue.buffering.max.kbytes": 1_048_576})
    errors: list[str] = []

    def on_delivery(err, msg):
        if err:
            errors.append(str(err))

    topic, produce, poll = settings.topics.turns, producer.produce, producer.poll
    size = 0
    t0 = time.perf_counter()
    for i, (key, value) in enumerate(generate(events, scopes)):
        size += len(value)
        while True:
            try:
                produce(topic, key=key, value=value, on_delivery=on_delivery)
                break
            except BufferError:
                poll(0.05)
        if i % 5_000 == 0:
            poll(0)
    flush_or_raise(producer, errors, timeout_s=180)
    elapsed = time.perf_counter() - t0
    figure("produce_events_per_s", round(events / elapsed), f"produced in {elapsed:.1f} s: {events / elapsed:,.0f} events/s")
    figure("event_bytes_avg", round(size / events), f"average value {size / events:.0f} bytes")


def baseline_phase(settings, total: int) -> list[tuple]:
    """Plain confluent-kafka: consume(batch) and model_validate_json per message."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    from schemas import ConversationTurn

    section("2. baseline: confluent-kafka consume(5000) + ConversationTurn.model_validate_json per record")
    consumer = Consumer({**settings.kafka_client_config(), "group.id": f"bench-baseline-{uuid.uuid4().hex[:8]}",
                         "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(settings.topics.turns, p, OFFSET_BEGINNING) for p in range(settings.partitions)])
    validate = ConversationTurn.model_validate_json
    kept: list = []
    count, samples, cpu = 0, [], []
    t0 = time.perf_counter()
    deadline = t0 + 300
    while count < total and time.perf_counter() < deadline:
        batch = consumer.consume(num_messages=5_000, timeout=1.0)
        for msg in batch:
            if msg.error():
                raise RuntimeError(f"baseline consumer: {msg.error()}")
            validate(msg.value())
        count += len(batch)
        kept.extend(batch)
        samples.append((time.perf_counter(), count))
        cpu.append(time.process_time())
    elapsed = time.perf_counter() - t0
    consumer.close()
    if count < total:
        raise RuntimeError(f"baseline read only {count} of {total} records")
    rate, a, b = window_rate(samples, total)
    ia, ib = samples.index(a), samples.index(b)
    cores = (cpu[ib] - cpu[ia]) / (b[0] - a[0])
    figure("baseline_events_per_s", round(rate), f"baseline {rate:,.0f} events/s ({total / elapsed:,.0f}/s over "
                                                 f"{elapsed:.2f} s including connect and first fetch)")
    figure("baseline_cpu_us_per_event", round(cores / rate * 1e6, 2),
           f"{cores:.2f} cores = {cores / rate * 1e6:.1f} µs CPU/event (librdkafka threads included)")
    return [(m.topic(), m.partition(), m.offset(), m.key(), m.value()) for m in kept]


def idle_phase(settings, home: Path, extra_env: dict[str, str], admin) -> int:
    """A worker with 0 scopes, on a topic set of its own: startup to a stable group, then its RSS."""
    from confluent_kafka import ConsumerGroupState

    section("3. idle worker (0 scopes, an empty topic set of its own)")
    worker = Child(settings, home, "idle-worker", extra_env)
    try:
        ready = None
        deadline = time.monotonic() + 120
        while ready is None:
            worker.check()
            if time.monotonic() > deadline:
                raise RuntimeError("idle worker did not join its group within 120 s")
            with contextlib.suppress(Exception):
                group = admin.describe_consumer_groups([settings.app_id], request_timeout=5)[settings.app_id].result()
                if group.state == ConsumerGroupState.STABLE and any(m.assignment.topic_partitions for m in group.members):
                    ready = time.monotonic() - worker.t0
            time.sleep(0.2)
        time.sleep(5)  # changelog recovery (empty) done, first timer tick passed
        status = [proc_status(worker.pid) for _ in range(5) if not time.sleep(0.2)]
    finally:
        worker.stop()
    idle_rss = max(s.get("VmRSS", 0) for s in status)
    figure("idle_startup_s", round(ready, 2), f"startup (spawn -> group stable, partitions assigned): {ready:.1f} s")
    figure("idle_rss_bytes", idle_rss, f"idle RSS {mb(idle_rss)} (VmHWM {mb(max(s.get('VmHWM', 0) for s in status))})")
    return idle_rss


def worker_phase(settings, home: Path, total: int, scopes: int, extra_env: dict[str, str], admin, watermarks,
                 idle_rss: int, broker: int | None) -> float:
    section(f"4. `dreamstream worker streams` on the same topic (group {settings.app_id})")
    topics, parts = settings.topics, settings.partitions
    worker = Child(settings, home, "worker", extra_env)
    try:
        follow = Follow(worker, admin, watermarks, settings.app_id, topics.turns, topics.signals_changelog, parts,
                        total, broker).run(timeout_s=120 + total / 300)
        time.sleep(3)  # after the backlog, no traffic
        status = proc_status(worker.pid)
    finally:
        worker.stop()
    hwm, steady = max(follow.hwm, status.get("VmHWM", 0)), status.get("VmRSS", 0)
    rate, a, b = follow.rate()
    figure("worker_events_per_s", round(rate),
           f"worker {rate:,.0f} events/s (committed offsets {a[1]:,} -> {b[1]:,} in {b[0] - a[0]:.1f} s)")
    cl_rate, _, _ = window_rate(follow.writes, total)
    if cl_rate:
        figure("worker_table_writes_per_s", round(cl_rate),
               f"cross-check: {cl_rate:,.0f} table writes/s (changelog end offsets, same window)")
    figure("worker_startup_s", round(follow.first_write, 2),
           f"startup: {follow.first_write:.1f} s spawn -> first table write; {follow.first_commit:.1f} s -> first "
           f"commit (Faust commits every 2.8 s or 10,000 events)")
    figure("worker_first_commit_s", round(follow.first_commit, 2))
    cpu = follow.cpu_in(a[0], b[0])
    if cpu:
        other = cpu["machine"] - cpu["child"] - cpu["bench"] - cpu.get("broker", 0.0)
        figure("worker_cpu_cores", round(cpu["child"], 2),
               f"CPU in the window: worker {cpu['child']:.2f} cores, Kafka broker "
               f"{cpu.get('broker', float('nan')):.2f}, this bench {cpu['bench']:.2f}, anything else {other:.2f} "
               f"(machine busy {cpu['machine']:.2f} of {os.cpu_count()})")
        figure("broker_cpu_cores", round(cpu.get("broker", -1), 2))
        figure("other_cpu_cores", round(other, 2))
        per = cpu["child"] / rate
        figure("worker_cpu_us_per_event", round(per * 1e6, 1),
               f"worker CPU per event {per * 1e6:,.0f} µs, i.e. at most {1 / per:,.0f} events/s on one whole core "
               f"(the agent is one coroutine, and the GIL holds the process to about one core)")
    per_peak, per_steady = (hwm - idle_rss) / scopes, (steady - idle_rss) / scopes
    figure("worker_peak_rss_bytes", hwm, f"peak memory VmHWM {mb(hwm)} with {scopes:,} scopes (idle worker "
                                         f"{mb(idle_rss)}); RSS 3 s after the backlog {mb(steady)}")
    figure("worker_steady_rss_bytes", steady)
    figure("bytes_per_scope_peak", round(per_peak),
           f"state per scope: (peak - idle) / scopes = {per_peak:,.0f} bytes; (steady - idle) / scopes = "
           f"{per_steady:,.0f} bytes")
    figure("bytes_per_scope_steady", round(per_steady))
    jobs, dead = end_offsets(watermarks, topics.jobs, parts), end_offsets(watermarks, topics.dead_letter, parts)
    figure("worker_jobs_emitted", jobs, f"jobs emitted {jobs:,}; dead letters {dead:,}")
    figure("worker_dead_letters", dead)
    return rate


def changelog_phase(settings) -> bytes | None:
    """Serialized signals rows as the worker wrote them to its changelog topic."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer({**settings.kafka_client_config(), "group.id": f"bench-changelog-{uuid.uuid4().hex[:8]}",
                         "enable.auto.commit": False})
    topic = settings.topics.signals_changelog
    # compaction may already have removed older rows of a scope: read up to the end offsets
    ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)[1]
            for p in range(settings.partitions)}
    position = {p: 0 for p in ends}
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(settings.partitions)])
    sizes, example = [], None
    deadline = time.monotonic() + 120
    while any(position[p] < ends[p] for p in ends) and time.monotonic() < deadline:
        for msg in consumer.consume(num_messages=10_000, timeout=1.0):
            if msg.error():
                continue
            position[msg.partition()] = msg.offset() + 1
            if msg.value() is not None:
                sizes.append(len(msg.value()))
                if example is None and b'"entities":{"' in msg.value():
                    example = msg.value()
    consumer.close()
    if not sizes:
        return None
    sizes.sort()
    median, p95 = sizes[len(sizes) // 2], sizes[int(len(sizes) * 0.95)]
    figure("signals_row_json_bytes", median,
           f"serialized signals row (changelog value): median {median} B, mean {statistics.fmean(sizes):.0f} B, "
           f"p95 {p95} B, max {sizes[-1]} B over {len(sizes):,} rows still in the (compacted) topic")
    if example:
        say(f"    e.g. {example.decode()[:400]}")
    return example


def floor_phase(settings, home: Path, count: int, extra_env: dict[str, str], row: bytes) -> None:
    """Faust alone: the worker's App options and input topics, an agent doing nothing / only a table
    write. The agent appends (time, events) to a file every 500 events (its commits come only every
    2.8 s or 10,000 events, too coarse for a short run)."""
    from dreamstream.topic_admin import ensure_topics

    section(f"5. Faust's floor on this machine: same App options and topics, first {count:,} records")
    for mode, what in (("noop", "agent iterating stream.events(), nothing else"),
                       ("table", "agent writing one fixed signals row per event (a changelog record each)")):
        floor = settings.model_copy(update={"app_id": f"{settings.app_id}-floor-{mode}"})
        ensure_topics(floor)  # its changelog topic
        CREATED.append(floor)
        progress = home / f"{floor.app_id}.progress"
        progress.unlink(missing_ok=True)
        child = Child(floor, home, f"faust-floor-{mode}",
                      {**extra_env, "BENCH_FLOOR_ROW": row.decode(), "BENCH_PROGRESS": str(progress)},
                      argv=["--_faust-floor", mode])
        cpu: list[tuple[float, float]] = []
        samples: list[tuple[float, int]] = []
        try:
            deadline = time.monotonic() + 120 + count / 200
            while not samples or samples[-1][1] < count:
                child.check()
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Faust floor ({mode}) did not reach {count} events")
                time.sleep(0.25)
                cpu.append((time.time(), proc_cpu_s(child.pid)))
                with contextlib.suppress(OSError):
                    samples = [(float(t), int(c)) for t, c in
                               (line.split() for line in progress.read_text().splitlines() if line.count(" ") == 1)]
        finally:
            child.stop()
        rate, a, b = window_rate(samples, count)
        win = [c for c in cpu if a[0] <= c[0] <= b[0]]
        cores = (win[-1][1] - win[0][1]) / (win[-1][0] - win[0][0]) if len(win) >= 2 else float("nan")
        figure(f"faust_floor_{mode}_events_per_s", round(rate),
               f"{rate:7,.0f} events/s, {cores:.2f} cores = {cores / rate * 1e6:4.0f} µs CPU/event  ({what})")
        figure(f"faust_floor_{mode}_cpu_us_per_event", round(cores / rate * 1e6, 1))


def _faust_floor(mode: str) -> None:
    """Child mode: a Faust app with streams.app's App options on the same input topic."""
    import faust

    from schemas.settings import get_settings

    settings = get_settings()
    row = json.loads(os.environ["BENCH_FLOOR_ROW"])
    try:
        from streams.credentials import broker_credentials
        credentials = broker_credentials(settings)
    except ImportError:
        credentials = None
    app = faust.App(
        settings.app_id,
        broker_credentials=credentials, datadir=str(settings.home / f"faust-{settings.app_id}"),
        broker=[f"kafka://{server}" for server in settings.kafka_bootstrap_servers.split(",")],
        store="memory://", topic_partitions=settings.partitions, topic_replication_factor=settings.replication_factor,
        topic_allow_declare=False, topic_disable_leader=True, consumer_auto_offset_reset="earliest",
        broker_session_timeout=settings.session_timeout_ms / 1000,
        broker_heartbeat_interval=max(settings.session_timeout_ms / 3000, 1),
        key_serializer="raw", value_serializer="raw",
    )
    topics = settings.topics
    inputs = app.topic(topics.turns, topics.memory_adds, topics.control, topics.audit, key_type=bytes, value_type=bytes, partitions=settings.partitions)
    table = app.Table("signals", default=None, partitions=settings.partitions,
                      schema=faust.Schema(key_type=str, value_type=None, key_serializer="json", value_serializer="json"))

    progress = open(os.environ["BENCH_PROGRESS"], "a")

    @app.agent(inputs)
    async def process(stream):
        n = 0
        async for event in stream.events():
            if mode == "table":
                table[event.message.key.decode()] = row
            n += 1
            if n % 500 == 0:
                progress.write(f"{time.time()} {n}\n")
                progress.flush()

    sys.argv = ["bench-floor", "worker", "--without-web", "--loglevel", "warn"]
    app.main()


# --------------------------------------------------------------------------- phase 6: logic in-process

def dict_rows():
    """The worker's row codec today: a dict (dataclasses.asdict), json-encoded by Faust for the changelog."""
    from faust.serializers import codecs

    from streams.signals import ScopeSignals

    dumps = codecs.dumps
    return ScopeSignals.from_json, ScopeSignals.to_json, lambda row: dumps("json", row)


def bytes_rows():
    """Candidate: keep the row as its JSON bytes (orjson serializes the dataclass directly, byte-identical
    to today's changelog values); the table's value_serializer becomes "raw". orjson's result sits in
    a ~1 KB allocation whatever its length, so the row is copied to an exact-size bytes object."""
    import orjson

    from streams.signals import ScopeSignals

    loads, dumps = orjson.loads, orjson.dumps

    def from_row(raw):
        return ScopeSignals(**loads(raw)) if raw else ScopeSignals()

    def to_row(signals):
        return bytes(memoryview(dumps(signals)))

    return from_row, to_row, None


def agent_body(settings, codec):
    """The body of streams.app.process / _fold for valid events, without Faust, over a dict standing
    in for the table (Faust's memory store keeps exactly the objects it is given)."""
    from faust.serializers import codecs

    from schemas import JobLifecycleEvent
    from streams.processor import Outputs, Processor

    try:  # the per-event Prometheus counter the agent increments (when the module exists)
        from streams.metrics import EVENTS
    except ImportError:
        EVENTS = None
    processor = Processor(settings)
    table: dict = {}
    from_row, to_row, encode = codec
    key_dumps = codecs.dumps
    jobs = [0]

    def run(msgs, serialize=True):
        for topic, partition, offset, key, value in msgs:
            out = Outputs()
            decoded = processor.decode(topic, partition, offset, key, value, out)
            if decoded is not None:
                now = time.time()
                row = table.get(decoded.scope)
                if row is None and isinstance(decoded, JobLifecycleEvent):
                    continue
                signals = from_row(row)
                fresh = processor.apply(decoded, topic, partition, offset, signals, now)
                if EVENTS is not None:
                    EVENTS.labels(topic, "accepted" if fresh else "duplicate").inc()
                if fresh:
                    processor.decide(decoded.scope, signals, now, out)
                    row = table[decoded.scope] = to_row(signals)
                    if serialize:  # what the table's changelog send does with key and value
                        key_dumps("json", decoded.scope)
                        if encode is not None:
                            encode(row)
            if out.jobs:
                jobs[0] += len(out.jobs)
                if serialize:
                    for message in (*out.jobs, *out.events):
                        message.model_dump_json().encode()
    return run, table, jobs


def timed(fn, *args) -> float:
    """CPU seconds of fn(*args): unlike wall time, barely moved by other load on the machine."""
    gc.collect()
    t0 = time.process_time()
    fn(*args)
    return time.process_time() - t0


def heap_per_row(settings, msgs, codec) -> tuple[float, int]:
    """tracemalloc: Python heap retained per table row (every 10th scope)."""
    sample = [m for m in msgs if zlib.crc32(m[3]) % 10 == 0]
    run, table, _ = agent_body(settings, codec)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    run(sample, serialize=False)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return (after - before) / max(len(table), 1), len(table)


CATEGORIES = [
    ("our code (streams/, schemas/)", lambda f, n: f.startswith((str(REPO_ROOT / "streams"), str(REPO_ROOT / "schemas")))),
    ("pydantic validation", lambda f, n: "pydantic" in f or "pydantic" in n),
    ("regex (extract)", lambda f, n: "re.Pattern" in n or "/re/" in f or "_sre" in n),
    ("dataclasses.asdict + copy.deepcopy", lambda f, n: "dataclasses.py" in f or "copy.py" in f),
    ("faust", lambda f, n: "/faust/" in f),
    ("mode", lambda f, n: "/mode/" in f),
    ("aiokafka", lambda f, n: "/aiokafka/" in f or "aiokafka" in n),
    ("asyncio event loop", lambda f, n: "/asyncio/" in f or "_asyncio" in n or "epoll" in n or "selectors.py" in f),
    ("socket I/O", lambda f, n: "socket" in n),
    ("json / orjson", lambda f, n: "orjson" in n or "/json/" in f or "json" in n),
]


def profile_breakdown(stats: pstats.Stats, per: int, label: str, top: int = 14) -> dict[str, float]:
    """Own time per category and the top functions, in µs per event (inflated by cProfile)."""
    totals: dict[str, float] = {}
    rows, grand = [], 0.0
    for (filename, line, name), (cc, nc, tt, ct, callers) in stats.stats.items():
        grand += tt
        category = next((c for c, match in CATEGORIES if match(filename, name)), "other (stdlib, builtins)")
        totals[category] = totals.get(category, 0.0) + tt
        where = name if filename == "~" else f"{Path(filename).name}:{line} {name}"
        rows.append((tt, nc, where))
    say(f"    {label}: own time by category ({grand:.2f} s under cProfile = {grand / per * 1e6:.1f} µs/event)")
    for category, tt in sorted(totals.items(), key=lambda kv: -kv[1]):
        say(f"      {tt / grand:6.1%}  {tt / per * 1e6:8.2f} µs/event  {category}")
    say("    top functions by own time:")
    for tt, nc, where in sorted(rows, reverse=True)[:top]:
        say(f"      {tt / grand:6.1%}  {tt / per * 1e6:8.2f} µs/event  {nc / per:6.2f} calls/event  {where[:100]}")
    return {c: round(tt / grand, 4) for c, tt in totals.items()}


def in_process_phase(settings, msgs: list, profile: bool) -> None:
    import orjson

    from schemas.scope import parse_scope
    from streams.decode import Decoder
    from streams.extract import extract
    from streams.policy import decide
    from streams.signals import ScopeSignals

    section("6. the worker's per-event logic in this process (no Faust, no Kafka), same records; CPU time")
    n = len(msgs)
    subset = msgs[:LOGIC_SUBSET]
    m = len(subset)

    run, table, jobs = agent_body(settings, dict_rows())
    t_logic = timed(run, msgs, False)
    figure("logic_events_per_s", round(n / t_logic),
           f"Processor.decode + apply + decide + row round trip (dict rows, as today), all {n:,} records, one "
           f"pass: {n / t_logic:,.0f} events/s ({t_logic / n * 1e6:.1f} µs/event, {jobs[0]} jobs)")
    t_ser = t_bytes = float("inf")
    for _ in range(2):  # alternate the two, keep the best of each: other load varies meanwhile
        t_ser = min(t_ser, timed(agent_body(settings, dict_rows())[0], subset))
        t_bytes = min(t_bytes, timed(agent_body(settings, bytes_rows())[0], subset))
    figure("logic_with_changelog_serialization_events_per_s", round(m / t_ser),
           f"  as the worker does it, with the changelog's key/value serialisation (Faust json codec), first "
           f"{m:,} records, best of 2: {m / t_ser:,.0f} events/s ({t_ser / m * 1e6:.1f} µs/event)")
    figure("logic_bytes_rows_events_per_s", round(m / t_bytes),
           f"  candidate, row kept as orjson bytes (same changelog bytes): {m / t_bytes:,.0f} events/s "
           f"({t_bytes / m * 1e6:.1f} µs/event)")

    decoder = Decoder(settings.topics, settings.max_event_bytes)
    events = [decoder.decode(t, k, v) for t, p, o, k, v in subset]
    scopes = [e.scope for e in events]
    rows = list(table.values())[:m]
    objs = [ScopeSignals.from_json(r) for r in rows]
    raw = [orjson.dumps(s) for s in objs]
    from faust.serializers import codecs

    stage = {
        "validate (Decoder.decode: model_validate_json + key check)":
            timed(lambda: [decoder.decode(t, k, v) for t, p, o, k, v in subset]) / m,
        "  of which parse_scope (validator; decide's tenant_of calls it again)": timed(lambda: [parse_scope(s) for s in scopes]) / m,
        "extract (regexes)": timed(lambda: [extract(e.role, e.content) for e in events]) / m,
        "ScopeSignals.from_json (dict row)": timed(lambda: [ScopeSignals.from_json(r) for r in rows]) / len(rows),
        "ScopeSignals.to_json (dataclasses.asdict)": timed(lambda: [s.to_json() for s in objs]) / len(objs),
        "Faust json codec dumps of the dict row": timed(lambda: [codecs.dumps("json", r) for r in rows]) / len(rows),
        "candidate: bytes(memoryview(orjson.dumps(signals))) row": timed(lambda: [bytes(memoryview(orjson.dumps(s))) for s in objs]) / len(objs),
        "candidate: ScopeSignals(**orjson.loads(row))": timed(lambda: [ScopeSignals(**orjson.loads(r)) for r in raw]) / len(raw),
    }
    say("    per-event stages (µs/event, measured separately on the same records):")
    for name, secs in stage.items():
        say(f"      {secs * 1e6:7.2f}  {name}")
    FIGURES["logic_stage_us"] = {k.strip(): round(v * 1e6, 2) for k, v in stage.items()}

    now = time.time()

    def nudge_scan():  # streams.app.nudge_quiet_scopes without the sends
        for scope, row in list(table.items()):
            signals = ScopeSignals.from_json(row)
            decide(signals, settings.policy_for(parse_scope(scope)[0]), now)
    t_scan = timed(nudge_scan)
    figure("timer_scan_ms", round(t_scan * 1e3, 1),
           f"timer nudge_quiet_scopes: one tick scans all {len(table):,} rows in {t_scan * 1e3:,.0f} ms "
           f"({t_scan / len(table) * 1e6:.1f} µs/row; every {settings.timer_interval_s:g} s = "
           f"{t_scan / settings.timer_interval_s:.1%} of the worker, the agent stalled meanwhile)")

    worker_cpu = FIGURES.get("worker_cpu_us_per_event")
    if worker_cpu:  # CPU per event on both sides: other load on the machine cancels out (mostly)
        per_worker, per_logic = worker_cpu / 1e6, t_ser / m
        figure("faust_overhead_us_per_event", round((per_worker - per_logic) * 1e6, 1),
               f"worker {per_worker * 1e6:,.0f} µs CPU/event = our logic {per_logic * 1e6:.0f} µs "
               f"({per_logic / per_worker:.0%}) + Faust/aiokafka/changelog/commit {(per_worker - per_logic) * 1e6:,.0f} µs "
               f"({1 - per_logic / per_worker:.0%})")
        figure("logic_share_of_worker_time", round(per_logic / per_worker, 3))

    heap, rows_n = heap_per_row(settings, msgs, dict_rows())
    heap_b, _ = heap_per_row(settings, msgs, bytes_rows())
    figure("python_heap_bytes_per_row", round(heap),
           f"Python heap per table row (key + row, tracemalloc over {rows_n:,} scopes): dict row {heap:,.0f} B; "
           f"candidate bytes row {heap_b:,.0f} B")
    figure("python_heap_bytes_per_row_bytes_candidate", round(heap_b))

    if profile:
        run_p, _, _ = agent_body(settings, dict_rows())
        prof = cProfile.Profile()
        prof.enable()
        run_p(subset)
        prof.disable()
        FIGURES["logic_profile_shares"] = profile_breakdown(pstats.Stats(prof), m, "cProfile of the in-process logic")


# --------------------------------------------------------------------------- phase 7: prototype of the fix

def prototype_phase(settings, total: int) -> None:
    """The same Processor logic in a confluent-kafka loop: consume(1000), fold, produce the changelog
    row (orjson bytes) through librdkafka, flush + commit every 10,000 events (Faust's commit_every)."""
    from confluent_kafka import Consumer, Producer

    from dreamstream.topic_admin import ensure_topics
    from streams.processor import Outputs, Processor

    section("7. prototype of the suggested fix: same logic in a confluent-kafka loop (not the product)")
    proto = settings.model_copy(update={"app_id": f"{settings.app_id}-proto"})
    ensure_topics(proto)
    CREATED.append(proto)
    consumer = Consumer({**proto.kafka_client_config(), "group.id": proto.app_id, "enable.auto.commit": False,
                         "auto.offset.reset": "earliest",
                         "partition.assignment.strategy": "range", "session.timeout.ms": proto.session_timeout_ms})
    producer = Producer({**proto.kafka_client_config(), "linger.ms": 20, "acks": "all", "enable.idempotence": True,
                         "batch.num.messages": 10_000, "partitioner": "murmur2_random"})
    consumer.subscribe([proto.topics.turns])
    processor = Processor(proto)
    from_row, to_row, _ = bytes_rows()
    table: dict = {}
    changelog, produce = proto.topics.signals_changelog, producer.produce
    done = since_commit = 0
    samples: list[tuple[float, int]] = []
    errors: list[str] = []
    t0 = time.monotonic()
    cpu0 = time.process_time()
    try:
        while done < total and time.monotonic() - t0 < 120 + total / 1000:
            batch = consumer.consume(num_messages=1_000, timeout=1.0)
            for msg in batch:
                topic, partition, offset = msg.topic(), msg.partition(), msg.offset()
                out = Outputs()
                decoded = processor.decode(topic, partition, offset, msg.key(), msg.value(), out)
                if decoded is not None:
                    now = time.time()
                    signals = from_row(table.get(decoded.scope))
                    processor.apply(decoded, topic, partition, offset, signals, now)
                    processor.decide(decoded.scope, signals, now, out)
                    row = table[decoded.scope] = to_row(signals)
                    produce(changelog, key=decoded.scope.encode(), value=row, partition=partition)
                for job in out.jobs:
                    produce(proto.topics.jobs, key=job.scope.encode(), value=job.model_dump_json().encode(),
                            partition=partition)
                for ev in out.events:
                    produce(proto.topics.audit, key=ev.scope.encode(), value=ev.model_dump_json().encode(),
                            partition=partition)
            producer.poll(0)
            done += len(batch)
            since_commit += len(batch)
            if since_commit >= 10_000 or done >= total:
                if producer.flush(30):  # rows durable before the input offsets move
                    errors.append("changelog flush timed out")
                consumer.commit(asynchronous=False)
                since_commit = 0
            samples.append((time.monotonic(), done))
    finally:
        consumer.close()
        producer.flush(30)
    cpu = (time.process_time() - cpu0) / (time.monotonic() - t0)
    rate, a, b = window_rate(samples, total)
    if rate is None or errors:
        say(f"    prototype did not finish: {done:,} of {total:,} {errors}")
        return
    figure("prototype_cpu_us_per_event", round(cpu / rate * 1e6, 1))
    figure("prototype_events_per_s", round(rate),
           f"{rate:,.0f} events/s ({cpu:.2f} cores = {cpu / rate * 1e6:.0f} µs CPU/event, librdkafka threads "
           f"included; a changelog row produced per event, commit after flush); "
           f"lacks Faust's rebalance/recovery/timer wiring, so it is a ceiling for that design, not a drop-in")


# --------------------------------------------------------------------------- phase 8: worker under cProfile

def profiled_worker_phase(settings, home: Path, count: int, extra_env: dict[str, str], admin, watermarks) -> None:
    """A second worker (own app id, so it reads the turns topic from the start) under cProfile."""
    from dreamstream.topic_admin import ensure_topics

    section(f"8. a second worker under cProfile (main thread), same topic, first ~{count:,} records")
    prof = settings.model_copy(update={"app_id": f"{settings.app_id}-prof"})
    ensure_topics(prof)
    CREATED.append(prof)
    out = home / "worker.prof"
    child = Child(prof, home, "profiled-worker", extra_env, argv=["--_profiled-worker", str(out)])
    try:
        Follow(child, admin, watermarks, prof.app_id, prof.topics.turns, None, prof.partitions, count,
               quiet=True).run(timeout_s=120 + count / 100)
    finally:
        child.stop()
    processed = end_offsets(watermarks, prof.topics.signals_changelog, prof.partitions)
    if not out.exists():
        say("    (no profile written)")
        return
    FIGURES["worker_profile_shares"] = profile_breakdown(pstats.Stats(str(out)), processed,
                                                         f"cProfile of the worker ({processed:,} events incl. startup)")


def _profiled_worker(out: str) -> None:
    """Child mode: the `dreamstream worker streams` command under cProfile, dumped at exit."""
    prof = cProfile.Profile()

    def dump() -> None:
        prof.disable()
        prof.dump_stats(out)

    atexit.register(dump)
    sys.argv = ["dreamstream", "worker", "streams"]
    from dreamstream.cli import main

    prof.enable()
    main()


# --------------------------------------------------------------------------- main

CREATED: list = []  # Settings whose topics this run created (deleted at the end)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.streams", description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--scopes", type=int, default=100_000, help="active scopes (each gets at least one event)")
    parser.add_argument("--quick", action="store_true", help="20,000 events over 10,000 scopes")
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument("--policy", choices=["bench", "default"], default="bench",
                        help="bench: threshold_messages=40, other triggers off (one job per hot scope, ~scopes/1000); "
                             "default: the Settings default policy (far more jobs: signals threshold 3)")
    parser.add_argument("--floor-events", type=int, help="records for each Faust floor run (default events/10, "
                                                         "at least 10,000)")
    parser.add_argument("--no-floor", action="store_true", help="skip phase 5")
    parser.add_argument("--no-prototype", action="store_true", help="skip phase 7")
    parser.add_argument("--no-profile", action="store_true", help="skip the in-process cProfile")
    parser.add_argument("--profile-worker", action="store_true", help="phase 8: a worker under cProfile (slow)")
    parser.add_argument("--profile-events", type=int, default=20_000)
    parser.add_argument("--worker-env", action="append", default=[], metavar="NAME=VALUE",
                        help="extra environment for the worker children, e.g. Faust's PRODUCER_LINGER=0.05")
    parser.add_argument("--logs", type=Path, help="copy the children's logs into this directory")
    parser.add_argument("--_profiled-worker", dest="profiled_worker", help=argparse.SUPPRESS)
    parser.add_argument("--_faust-floor", dest="faust_floor", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.profiled_worker:
        return _profiled_worker(args.profiled_worker)
    if args.faust_floor:
        return _faust_floor(args.faust_floor)
    if args.quick:
        args.events, args.scopes = 20_000, 10_000
    args.scopes = min(args.scopes, args.events)
    extra_env = dict(item.split("=", 1) for item in args.worker_env)

    from confluent_kafka import Consumer
    from confluent_kafka.admin import AdminClient

    from dreamstream.topic_admin import delete_topics
    from schemas.policy import TriggerPolicy
    from tests.integration.kafka_env import broker_bootstrap, unique_settings

    started = time.monotonic()
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP_SERVERS") or broker_bootstrap()
    home = Path(tempfile.mkdtemp(prefix="dreamstream-bench-"))
    policy = (TriggerPolicy(threshold_messages=40, threshold_signals=1_000_000, idle_s=86_400, schedule_s=0)
              if args.policy == "bench" else TriggerPolicy())
    overrides = {"partitions": args.partitions, "trigger": policy}
    say(f"dreamstream stream worker benchmark: {args.events:,} events, {args.scopes:,} scopes, {args.partitions} "
        f"partitions, Kafka {bootstrap}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, policy {args.policy}")
    FIGURES.update(events=args.events, scopes=args.scopes, partitions=args.partitions, policy=args.policy,
                   worker_env=extra_env)
    groups: list[str] = []
    admin = watermarks = None
    try:
        settings = unique_settings(bootstrap, home, **overrides)
        CREATED.append(settings)
        admin = AdminClient(settings.kafka_client_config())
        watermarks = Consumer({**settings.kafka_client_config(), "group.id": f"bench-wm-{uuid.uuid4().hex[:8]}"})
        produce_phase(settings, args.events, args.scopes)
        total = end_offsets(watermarks, settings.topics.turns, settings.partitions)
        msgs = baseline_phase(settings, total)

        idle_settings = unique_settings(bootstrap, home, **overrides)
        CREATED.append(idle_settings)
        idle_rss = idle_phase(idle_settings, home, extra_env, admin)

        rate = worker_phase(settings, home, total, args.scopes, extra_env, admin, watermarks, idle_rss,
                            broker_pid(bootstrap))
        row = changelog_phase(settings) or b'{"messages":1}'
        ratio = rate / FIGURES["baseline_events_per_s"]
        figure("ratio_worker_to_baseline", round(ratio, 3), f"ratio worker/baseline {ratio:.3f} (events/s)")
        if "worker_cpu_us_per_event" in FIGURES:
            cpu_ratio = FIGURES["baseline_cpu_us_per_event"] / FIGURES["worker_cpu_us_per_event"]
            figure("ratio_worker_to_baseline_cpu", round(cpu_ratio, 3),
                   f"ratio per CPU second {cpu_ratio:.3f} (baseline µs CPU/event / worker µs CPU/event; "
                   f"less sensitive to other load)")

        if not args.no_floor:
            floor_phase(settings, home, min(total, args.floor_events or max(10_000, total // 10)), extra_env, row)
        in_process_phase(settings, msgs, not args.no_profile)
        del msgs
        if not args.no_prototype:
            prototype_phase(settings, total)
        if args.profile_worker:
            profiled_worker_phase(settings, home, min(total, args.profile_events), extra_env, admin, watermarks)

        section("targets (this machine)")
        checks = {
            "worker >= 20,000 events/s": FIGURES["worker_events_per_s"] >= 20_000,
            "worker/baseline >= 0.25": FIGURES["ratio_worker_to_baseline"] >= 0.25,
            "<= 2 KB state per scope (peak RSS - idle RSS)": FIGURES["bytes_per_scope_peak"] <= 2048,
        }
        for name, ok in checks.items():
            say(f"  {'met   ' if ok else 'MISSED'}  {name}")
        FIGURES["targets_met"] = checks
    finally:
        section("cleanup")
        main_prefix = CREATED[0].topic_prefix if CREATED else None
        for s in CREATED:
            names = [spec.name for spec in s.topics.specs()]
            if s is not CREATED[0] and s.topic_prefix == main_prefix:
                names = [s.topics.signals_changelog]  # floor/proto/profiled apps share the input topics
            groups.append(s.app_id)
            try:
                delete_topics(s, names)
            except Exception as err:  # keep cleaning up the rest
                say(f"  could not delete topics of {s.app_id}: {err}")
        if CREATED:
            say(f"  deleted the topics of {len(CREATED)} app ids")
        if admin is not None:
            with contextlib.suppress(Exception):
                for future in admin.delete_consumer_groups(groups, request_timeout=10).values():
                    with contextlib.suppress(Exception):
                        future.result()
        if watermarks is not None:
            watermarks.close()
        if args.logs:
            args.logs.mkdir(parents=True, exist_ok=True)
            for log in home.glob("*.log"):
                shutil.copy(log, args.logs / log.name)
            say(f"  children's logs copied to {args.logs}")
        shutil.rmtree(home, ignore_errors=True)
        FIGURES["bench_wall_s"] = round(time.monotonic() - started, 1)
        say(f"  wall time {FIGURES['bench_wall_s']} s")
    print(json.dumps(FIGURES), flush=True)


if __name__ == "__main__":
    main()
