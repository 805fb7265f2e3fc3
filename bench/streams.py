"""Throughput and memory of the stream worker (`streams/`) on real Kafka, against a plain baseline.

    python -m bench.streams            # 200,000 turns over 100,000 scopes (about 3-4 minutes)
    python -m bench.streams --quick    # 20,000 turns over 10,000 scopes

One run, one fresh topic set (partitions=2 unless --partitions), all phases over the same turns topic:

1. produce N ConversationTurn events (key = scope) over S active scopes;
2. baseline: a confluent-kafka consume loop that validates each record with
   `ConversationTurn.model_validate_json` (events/s between 10 % and 95 % of the topic);
3. an idle worker (`dreamstream worker streams`, its own empty topic set): startup time and RSS
   with 0 scopes;
4. the worker on the turns topic: events/s from its consumer group's committed offsets (group =
   app id) between 10 % and 95 % of the topic, startup, CPU, peak memory (VmHWM) and bytes per scope;
5. the worker's per-event logic in this process without Faust (Processor.decode + apply + decide,
   the signals row round trip, the changelog serialisation), a per-stage breakdown and a cProfile;
   `--profile-worker` also runs a second worker under cProfile over the same topic.

Figures are printed as they come; the last line is one JSON object with all of them. Uses
KAFKA_BOOTSTRAP_SERVERS when set, else the tests' local broker on 127.0.0.1:19092. Deletes the
topics and consumer groups it created and stops every worker it started.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import cProfile
import dataclasses
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
LO, HI = 0.10, 0.95  # the measured window, as shares of the topic


# --------------------------------------------------------------------------- output

FIGURES: dict[str, object] = {}


def say(text: str) -> None:
    print(text, flush=True)


def figure(name: str, value: object, text: str) -> None:
    FIGURES[name] = value
    if text:
        say(f"  {text}")


def section(title: str) -> None:
    say(f"\n== {title}")


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
    """Pre-rendered contents, each already JSON-encoded (so producing costs one f-string)."""
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
    """Every scope gets one event; the rest go mostly to random scopes, `hot_share` of them to a
    hot set of scopes/1000 (those cross threshold_messages=40 and emit a job each)."""
    seq = list(range(scopes))
    hot = max(1, scopes // 1000)
    for _ in range(events - scopes):
        seq.append(rnd.randrange(hot) if rnd.random() < hot_share else rnd.randrange(scopes))
    rnd.shuffle(seq)
    return seq


def generate(events: int, scopes: int, seed: int = 7):
    """Yield (key, value) for `events` valid ConversationTurn records, in arrival order."""
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
    """utime + stime of a process, in seconds."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return float("nan")


def machine_cpu() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


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


def mb(n: float) -> str:
    return f"{n / 2**20:.1f} MB"


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
    """Events/s between the first samples at or past lo*total and hi*total; None if not reached."""
    a = next(((t, c) for t, c in samples if c >= lo * total), None)
    b = next(((t, c) for t, c in samples if c >= hi * total), None)
    if a is None or b is None or b[0] <= a[0]:
        return None, a, b
    return (b[1] - a[1]) / (b[0] - a[0]), a, b


@contextlib.contextmanager
def cwd(path: Path):
    """Faust writes `<app id>-data/` into its working directory: keep it out of the repository."""
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


# --------------------------------------------------------------------------- phases

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
    figure("event_bytes_avg", round(size / events), f"average value size {size / events:.0f} bytes")


def baseline_phase(settings, total: int):
    """Plain confluent-kafka: consume(batch) and model_validate_json per message."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    from schemas import ConversationTurn

    section("2. baseline: confluent-kafka consume(batch) + ConversationTurn.model_validate_json")
    consumer = Consumer({**settings.kafka_client_config(), "group.id": f"bench-baseline-{uuid.uuid4().hex[:8]}",
                         "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(settings.topics.turns, p, OFFSET_BEGINNING) for p in range(settings.partitions)])
    validate = ConversationTurn.model_validate_json
    kept: list = []
    count, samples = 0, []
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
    elapsed = time.perf_counter() - t0
    consumer.close()
    if count < total:
        raise RuntimeError(f"baseline read only {count} of {total} records")
    rate, _, _ = window_rate(samples, total)
    figure("baseline_events_per_s", round(rate), f"baseline {rate:,.0f} events/s ({LO:.0%}-{HI:.0%} of the topic; "
                                                 f"{total / elapsed:,.0f}/s including connect, {elapsed:.2f} s total)")
    return [(m.topic(), m.partition(), m.offset(), m.key(), m.value()) for m in kept]


class Worker:
    """A `dreamstream worker streams` child (via start_stream_worker), optionally under cProfile."""

    def __init__(self, settings, home: Path, name: str, extra_env: dict[str, str], profile_out: Path | None = None):
        from dreamstream.pipeline import settings_env, start_stream_worker

        self.log = home / f"{name}.log"
        self.settings = settings
        self.t0 = time.monotonic()
        with cwd(home), _env(extra_env):
            if profile_out is None:
                self.proc = start_stream_worker(settings, self.log)
            else:  # same command line, wrapped in cProfile by this module (see _profiled_worker)
                env = {**os.environ, **settings_env(settings), "PYTHONPATH": str(REPO_ROOT)}
                with open(self.log, "ab") as log_file:
                    self.proc = subprocess.Popen(
                        [sys.executable, "-m", "bench.streams", "--_profiled-worker", str(profile_out)],
                        env=env, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.pid = self.proc.pid

    def check(self) -> None:
        if self.proc.poll() is not None:
            tail = self.log.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"stream worker exited with {self.proc.returncode}; log tail:\n{tail}")

    def log_has(self, text: str) -> bool:
        with contextlib.suppress(OSError):
            return text in self.log.read_text(errors="replace")
        return False

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@contextlib.contextmanager
def _env(extra: dict[str, str]):
    saved = {k: os.environ.get(k) for k in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def idle_phase(settings, home: Path, extra_env: dict[str, str], admin) -> dict[str, float]:
    """A worker with 0 scopes, on a topic set of its own: startup to a stable group, then its RSS."""
    from confluent_kafka import ConsumerGroupState

    section("3. idle worker (0 scopes, empty topics of its own)")
    worker = Worker(settings, home, "idle-worker", extra_env)
    try:
        ready = None
        deadline = time.monotonic() + 120
        while ready is None:
            worker.check()
            if time.monotonic() > deadline:
                raise RuntimeError("idle worker did not join its group within 120 s")
            with contextlib.suppress(Exception):
                group = admin.describe_consumer_groups([settings.app_id], request_timeout=5)[settings.app_id].result()
                if group.state == ConsumerGroupState.STABLE and group.members and any(
                        m.assignment.topic_partitions for m in group.members):
                    ready = time.monotonic() - worker.t0
            time.sleep(0.2)
        time.sleep(5)  # let recovery of the (empty) changelog and the first timer tick settle
        rss = [proc_status(worker.pid) for _ in range(5) if not time.sleep(0.2)]
        idle_rss = max(s.get("VmRSS", 0) for s in rss)
        idle_hwm = max(s.get("VmHWM", 0) for s in rss)
    finally:
        worker.stop()
    figure("idle_startup_s", round(ready, 2), f"startup (spawn -> group stable with partitions assigned): {ready:.1f} s")
    figure("idle_rss_bytes", idle_rss, f"idle RSS {mb(idle_rss)} (VmHWM {mb(idle_hwm)})")
    return {"rss": idle_rss, "hwm": idle_hwm}


def worker_phase(settings, home: Path, total: int, scopes: int, extra_env: dict[str, str], admin, watermarks,
                 idle: dict[str, float], broker: int | None) -> dict:
    section(f"4. stream worker on the same topic (group {settings.app_id})")
    topics, parts = settings.topics, settings.partitions
    worker = Worker(settings, home, "worker", extra_env)
    samples: list[tuple[float, int]] = []  # (monotonic, committed turns)
    changelog: list[tuple[float, int]] = []  # (monotonic, changelog end offset = table writes)
    cpu: list[tuple] = []  # (monotonic, worker cpu s, machine busy jiffies, machine total jiffies, bench cpu s)
    bcpu: list[tuple[float, float]] = []
    hwm = 0
    first_write = first_commit = None
    last_print = 0.0
    deadline = time.monotonic() + 120 + total / 500
    try:
        while True:
            worker.check()
            now = time.monotonic()
            if now > deadline:
                raise RuntimeError(f"worker did not finish: committed {samples[-1][1] if samples else 0} of {total}")
            done = committed(admin, settings.app_id, topics.turns, parts)
            writes = end_offsets(watermarks, topics.signals_changelog, parts)
            now = time.monotonic()
            samples.append((now, done))
            changelog.append((now, writes))
            busy, all_ = machine_cpu()
            cpu.append((now, proc_cpu_s(worker.pid), busy, all_, time.process_time()))
            if broker:
                bcpu.append((now, proc_cpu_s(broker)))
            hwm = max(hwm, proc_status(worker.pid).get("VmHWM", 0))
            if first_write is None and writes > 0:
                first_write = now - worker.t0
            if first_commit is None and done > 0:
                first_commit = now - worker.t0
            if now - last_print >= 5 or done >= total:
                last_print = now
                say(f"    t={now - worker.t0:5.1f}s committed {done:>9,}/{total:,}  table writes {writes:>9,}  "
                    f"VmHWM {mb(hwm)}")
            if done >= total:
                break
            time.sleep(0.25)
        time.sleep(3)  # steady state after the backlog, no traffic
        status = proc_status(worker.pid)
        hwm = max(hwm, status.get("VmHWM", 0))
        steady_rss = status.get("VmRSS", 0)
    finally:
        worker.stop()

    rate, a, b = window_rate(samples, total)
    t_a, t_b = a[0], b[0]
    figure("worker_events_per_s", round(rate),
           f"worker {rate:,.0f} events/s (committed offsets, {a[1]:,} -> {b[1]:,} in {t_b - t_a:.1f} s)")
    cl_rate, _, _ = window_rate(changelog, total)
    if cl_rate:
        figure("worker_table_writes_per_s", round(cl_rate),
               f"cross-check: {cl_rate:,.0f} table writes/s (changelog end offsets, same {LO:.0%}-{HI:.0%} window)")
    figure("worker_startup_s", round(first_write, 2),
           f"startup: {first_write:.1f} s spawn -> first table write; {first_commit:.1f} s -> first commit")
    figure("worker_first_commit_s", round(first_commit, 2), "")
    # CPU over the measured window
    in_window = [c for c in cpu if t_a <= c[0] <= t_b]
    if len(in_window) >= 2:
        (ta, wa, ba, aa, pa), (tb, wb, bb, ab, pb) = in_window[0], in_window[-1]
        share = (wb - wa) / (tb - ta)
        machine = (bb - ba) / (ab - aa) * os.cpu_count()
        bench = (pb - pa) / (tb - ta)
        figure("worker_cpu_cores", round(share, 2), f"CPU in the window: worker {share:.2f} cores, this bench (polling) "
                                                    f"{bench:.2f}, whole machine busy {machine:.2f} of {os.cpu_count()}")
        figure("machine_cpu_cores", round(machine, 2), "")
        bwin = [c for c in bcpu if t_a <= c[0] <= t_b]
        if len(bwin) >= 2:
            bshare = (bwin[-1][1] - bwin[0][1]) / (bwin[-1][0] - bwin[0][0])
            other = machine - share - bench - bshare
            figure("broker_cpu_cores", round(bshare, 2), f"Kafka broker {bshare:.2f} cores; everything else on the "
                                                         f"machine {other:.2f} cores (other users' load skews this run)")
            figure("other_cpu_cores", round(other, 2), "")
    per_scope_peak = (hwm - idle["rss"]) / scopes
    per_scope_steady = (steady_rss - idle["rss"]) / scopes
    figure("worker_peak_rss_bytes", hwm, f"peak memory VmHWM {mb(hwm)} with {scopes:,} scopes "
                                         f"(idle worker RSS {mb(idle['rss'])}); RSS 3 s after the backlog {mb(steady_rss)}")
    figure("worker_steady_rss_bytes", steady_rss, "")
    figure("bytes_per_scope_peak", round(per_scope_peak),
           f"state per scope: (peak - idle) / scopes = {per_scope_peak:,.0f} bytes; "
           f"(steady - idle) / scopes = {per_scope_steady:,.0f} bytes")
    figure("bytes_per_scope_steady", round(per_scope_steady), "")
    jobs = end_offsets(watermarks, topics.jobs, parts)
    dead = end_offsets(watermarks, topics.dead_letter, parts)
    figure("worker_jobs_emitted", jobs, f"jobs emitted {jobs:,}; dead letters {dead:,}")
    figure("worker_dead_letters", dead, "")
    return {"rate": rate}


def changelog_phase(settings) -> None:
    """Serialized signals rows, read back from the worker's changelog topic."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer({**settings.kafka_client_config(), "group.id": f"bench-changelog-{uuid.uuid4().hex[:8]}",
                         "enable.auto.commit": False})
    topic = settings.topics.signals_changelog
    total = end_offsets(consumer, topic, settings.partitions)
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(settings.partitions)])
    sizes, example = [], None
    deadline = time.monotonic() + 120
    while len(sizes) < total and time.monotonic() < deadline:
        for msg in consumer.consume(num_messages=10_000, timeout=1.0):
            if not msg.error() and msg.value() is not None:
                sizes.append(len(msg.value()))
                if example is None and b'"entities":{"' in msg.value():
                    example = msg.value()
    consumer.close()
    if not sizes:
        return
    sizes.sort()
    median, p95 = sizes[len(sizes) // 2], sizes[int(len(sizes) * 0.95)]
    figure("signals_row_json_bytes", median,
           f"serialized signals row (changelog value): median {median} B, mean {statistics.fmean(sizes):.0f} B, "
           f"p95 {p95} B, max {sizes[-1]} B over {len(sizes):,} writes")
    if example:
        say(f"    e.g. {example.decode()[:400]}")


# --------------------------------------------------------------------------- in-process logic

def _agent_body(settings, to_json=None, serialize=False):
    """The body of streams.app.process without Faust, over a dict standing in for the table."""
    from faust.serializers import codecs

    from streams.processor import Outputs, Processor
    from streams.signals import ScopeSignals

    processor = Processor(settings)
    table: dict = {}
    dumps = codecs.dumps
    from_json = ScopeSignals.from_json
    to_json = to_json or ScopeSignals.to_json
    stats = {"jobs": 0}

    def run(msgs):
        jobs = 0
        for topic, partition, offset, key, value in msgs:
            out = Outputs()
            decoded = processor.decode(topic, partition, offset, key, value, out)
            if decoded is not None:
                now = time.time()
                signals = from_json(table.get(decoded.scope))
                processor.apply(decoded, topic, partition, offset, signals, now)
                processor.decide(decoded.scope, signals, now, out)
                row = to_json(signals)
                table[decoded.scope] = row
                if serialize:  # what the table's changelog send does with the key and the value
                    dumps("json", decoded.scope)
                    dumps("json", row)
            if out.jobs:
                jobs += len(out.jobs)
                if serialize:
                    for job in out.jobs:
                        job.model_dump_json().encode()
                    for ev in out.events:
                        ev.model_dump_json().encode()
        stats["jobs"] += jobs
    return run, table, stats


def fast_to_json(signals) -> dict:
    """A candidate replacement for ScopeSignals.to_json (dataclasses.asdict deep-copies recursively)."""
    d = dict(signals.__dict__)
    d["entities"] = dict(d["entities"])
    d["offsets"] = dict(d["offsets"])
    d["waiting_requests"] = list(d["waiting_requests"])
    return d


def timed(fn, *args) -> float:
    gc.collect()
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


CATEGORIES = [
    ("our code (streams/, schemas/)", lambda f, n: f.startswith((str(REPO_ROOT / "streams"), str(REPO_ROOT / "schemas")))),
    ("pydantic validation", lambda f, n: "pydantic" in f or "pydantic" in n),
    ("regex (extract)", lambda f, n: "re.Pattern" in n or "/re/" in f or "_sre" in n),
    ("faust", lambda f, n: "/faust/" in f),
    ("mode", lambda f, n: "/mode/" in f),
    ("aiokafka", lambda f, n: "/aiokafka/" in f or "aiokafka" in n),
    ("asyncio", lambda f, n: "/asyncio/" in f or "_asyncio" in n or "select" in n or "epoll" in n),
    ("json (orjson/json)", lambda f, n: "orjson" in n or "/json/" in f or "json" in n),
    ("dataclasses", lambda f, n: "dataclasses.py" in f or "deepcopy" in n or "copy.py" in f),
]


def profile_breakdown(stats: pstats.Stats, per: int, label: str, top: int = 14) -> dict[str, float]:
    """tottime per category and the top functions, in µs per event."""
    totals: dict[str, float] = {}
    rows = []
    grand = 0.0
    for (filename, line, name), (cc, nc, tt, ct, callers) in stats.stats.items():
        grand += tt
        category = next((c for c, match in CATEGORIES if match(filename, name)), "other (stdlib, builtins)")
        totals[category] = totals.get(category, 0.0) + tt
        where = name if filename == "~" else f"{Path(filename).name}:{line} {name}"
        rows.append((tt, nc, where))
    say(f"    {label}: tottime by category (total {grand:.2f} s under cProfile = {grand / per * 1e6:.1f} µs/event)")
    for category, tt in sorted(totals.items(), key=lambda kv: -kv[1]):
        say(f"      {tt / grand:6.1%}  {tt / per * 1e6:7.2f} µs/event  {category}")
    say("    top functions by own time:")
    for tt, nc, where in sorted(rows, reverse=True)[:top]:
        say(f"      {tt / grand:6.1%}  {tt / per * 1e6:7.2f} µs/event  {nc / per:5.2f} calls/event  {where[:110]}")
    return {c: round(tt / grand, 4) for c, tt in totals.items()}


def in_process_phase(settings, msgs: list, worker_rate: float | None, baseline_rate: float, profile: bool) -> None:
    from schemas.scope import parse_scope
    from streams.decode import Decoder
    from streams.extract import extract
    from streams.policy import decide
    from streams.signals import ScopeSignals

    section("5. the worker's per-event logic in this process (no Faust, no Kafka), same records")
    n = len(msgs)
    decoder = Decoder(settings.topics, settings.max_event_bytes)
    events = []
    t_validate = timed(lambda: [decoder.decode(t, k, v) for t, p, o, k, v in msgs])
    events = [decoder.decode(t, k, v) for t, p, o, k, v in msgs]

    run, table, stats = _agent_body(settings)
    t_logic = timed(run, msgs)
    logic_rate = n / t_logic
    jobs = stats["jobs"]
    run_s, _, _ = _agent_body(settings, serialize=True)
    t_logic_ser = timed(run_s, msgs)
    run_f, _, _ = _agent_body(settings, to_json=fast_to_json, serialize=True)
    t_logic_fast = timed(run_f, msgs)

    t_extract = timed(lambda: [extract(e.role, e.content) for e in events])
    rows = list(table.values())
    t_from = timed(lambda: [ScopeSignals.from_json(r) for r in rows])
    objs = [ScopeSignals.from_json(r) for r in rows]
    t_to = timed(lambda: [s.to_json() for s in objs])
    t_to_fast = timed(lambda: [fast_to_json(s) for s in objs])
    from faust.serializers import codecs
    t_dumps = timed(lambda: [codecs.dumps("json", r) for r in rows])
    now = time.time()

    def nudge_scan():  # streams.app.nudge_quiet_scopes without the sends
        for scope, row in list(table.items()):
            signals = ScopeSignals.from_json(row)
            decide(signals, settings.policy_for(parse_scope(scope)[0]), now)
    t_scan = timed(nudge_scan)

    figure("logic_events_per_s", round(logic_rate),
           f"Processor.decode + apply + decide + signals row round trip: {logic_rate:,.0f} events/s "
           f"({t_logic / n * 1e6:.1f} µs/event; {jobs} jobs)")
    ser_rate = n / t_logic_ser
    figure("logic_with_changelog_serialization_events_per_s", round(ser_rate),
           f"  + changelog key/value serialisation (faust json codec): {ser_rate:,.0f} events/s "
           f"({t_logic_ser / n * 1e6:.1f} µs/event)")
    say("    per-event stages (µs/event, measured separately on the same records):")
    stage = {
        "validate (Decoder.decode: model_validate_json + key check)": t_validate / n,
        "extract (regexes)": t_extract / n,
        "ScopeSignals.from_json": t_from / len(rows),
        "ScopeSignals.to_json (dataclasses.asdict)": t_to / len(rows),
        "faust json codec dumps of the row": t_dumps / len(rows),
    }
    for name, secs in stage.items():
        say(f"      {secs * 1e6:7.2f}  {name}")
    FIGURES["logic_stage_us"] = {k: round(v * 1e6, 2) for k, v in stage.items()}
    fast_rate = n / t_logic_fast
    figure("logic_fast_to_json_events_per_s", round(fast_rate),
           f"with a shallow-copy to_json instead of dataclasses.asdict: {fast_rate:,.0f} events/s "
           f"(to_json {t_to / len(rows) * 1e6:.2f} -> {t_to_fast / len(rows) * 1e6:.2f} µs)")
    scan_ms = t_scan * 1e3
    figure("timer_scan_ms", round(scan_ms, 1),
           f"timer nudge_quiet_scopes scan of {len(table):,} rows: {scan_ms:,.0f} ms per tick "
           f"(every {settings.timer_interval_s:g} s = {t_scan / settings.timer_interval_s:.1%} of one core, "
           f"blocking the agent meanwhile)")
    if worker_rate:
        per_worker, per_logic = 1 / worker_rate, t_logic_ser / n
        figure("faust_overhead_us_per_event", round((per_worker - per_logic) * 1e6, 1),
               f"worker {per_worker * 1e6:.1f} µs/event = our logic {per_logic * 1e6:.1f} µs "
               f"({per_logic / per_worker:.0%}) + Faust/aiokafka/changelog/commit {(per_worker - per_logic) * 1e6:.1f} µs "
               f"({1 - per_logic / per_worker:.0%})")
        figure("logic_share_of_worker_time", round(per_logic / per_worker, 3), "")

    # Python heap held per scope row (tracemalloc, on every 10th scope: the memory store keeps the dict)
    sample = [m for m in msgs if zlib.crc32(m[3]) % 10 == 0]
    run_m, table_m, _ = _agent_body(settings)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    run_m(sample)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    heap = (after - before) / max(len(table_m), 1)
    figure("python_heap_bytes_per_row", round(heap),
           f"Python heap per table row (key + dict, tracemalloc over {len(table_m):,} scopes): {heap:,.0f} bytes")
    del table_m

    if profile:
        run_p, _, _ = _agent_body(settings, serialize=True)
        prof = cProfile.Profile()
        prof.enable()
        run_p(msgs)
        prof.disable()
        FIGURES["logic_profile_shares"] = profile_breakdown(pstats.Stats(prof), n, "cProfile of the in-process logic")


def profiled_worker_phase(settings, home: Path, total: int, extra_env: dict[str, str], admin) -> None:
    """A second worker (own app id, so it reads the turns topic from the start) under cProfile."""
    from dreamstream.topic_admin import ensure_topics

    section("6. a second worker under cProfile, same topic (own app id)")
    out = home / "worker.prof"
    worker = Worker(settings, home, "profiled-worker", extra_env, profile_out=out)
    t0 = time.monotonic()
    try:
        while committed(admin, settings.app_id, settings.topics.turns, settings.partitions) < total:
            worker.check()
            if time.monotonic() - t0 > 120 + total / 200:
                raise RuntimeError("profiled worker did not finish")
            time.sleep(0.5)
        elapsed = time.monotonic() - t0
    finally:
        worker.stop()
    say(f"    processed {total:,} events in {elapsed:.1f} s under cProfile (startup included)")
    if not out.exists():
        say("    (no profile written)")
        return
    FIGURES["worker_profile_shares"] = profile_breakdown(pstats.Stats(str(out)), total, "cProfile of the worker")


def _profiled_worker(out: str) -> None:
    """Entry for the profiled child: the `dreamstream worker streams` command under cProfile."""
    prof = cProfile.Profile()

    def dump() -> None:
        prof.disable()
        prof.dump_stats(out)

    atexit.register(dump)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # mode's own handler is installed later
    sys.argv = ["dreamstream", "worker", "streams"]
    from dreamstream.cli import main

    prof.enable()
    main()


# --------------------------------------------------------------------------- main

def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.streams", description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--scopes", type=int, default=100_000, help="active scopes (each gets at least one event)")
    parser.add_argument("--quick", action="store_true", help="20,000 events over 10,000 scopes")
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument("--policy", choices=["bench", "default"], default="bench",
                        help="bench: threshold_messages=40 only (a hot scope per 1000 emits one job); "
                             "default: the Settings default policy (many jobs: signals threshold 3)")
    parser.add_argument("--profile-worker", action="store_true", help="also run a worker under cProfile (slow)")
    parser.add_argument("--no-profile", action="store_true", help="skip the in-process cProfile")
    parser.add_argument("--worker-env", action="append", default=[], metavar="NAME=VALUE",
                        help="extra environment for the worker, e.g. Faust's STREAM_BUFFER_MAXSIZE=16384 (experiments)")
    parser.add_argument("--logs", type=Path, help="copy the workers' logs into this directory")
    parser.add_argument("--_profiled-worker", dest="profiled_worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.profiled_worker:
        return _profiled_worker(args.profiled_worker)
    if args.quick:
        args.events, args.scopes = 20_000, 10_000
    args.scopes = min(args.scopes, args.events)
    extra_env = dict(item.split("=", 1) for item in args.worker_env)

    from confluent_kafka import Consumer
    from confluent_kafka.admin import AdminClient

    from dreamstream.topic_admin import delete_topics, ensure_topics
    from schemas.policy import TriggerPolicy
    from tests.integration.kafka_env import broker_bootstrap, unique_settings

    started = time.monotonic()
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP_SERVERS") or broker_bootstrap()
    home = Path(tempfile.mkdtemp(prefix="dreamstream-bench-"))
    policy = (TriggerPolicy(threshold_messages=40, threshold_signals=1_000_000, idle_s=86_400, schedule_s=0)
              if args.policy == "bench" else TriggerPolicy())
    overrides = {"partitions": args.partitions, "trigger": policy}
    say(f"dreamstream stream worker benchmark: {args.events:,} events, {args.scopes:,} scopes, "
        f"{args.partitions} partitions, Kafka {bootstrap}, {os.cpu_count()} CPUs, policy {args.policy}")
    FIGURES.update(events=args.events, scopes=args.scopes, partitions=args.partitions, policy=args.policy,
                   worker_env=extra_env)
    created: list = []
    groups: list[str] = []
    admin = watermarks = None
    try:
        settings = unique_settings(bootstrap, home, **overrides)
        created.append(settings)
        admin = AdminClient(settings.kafka_client_config())
        watermarks = Consumer({**settings.kafka_client_config(), "group.id": f"bench-watermarks-{uuid.uuid4().hex[:8]}"})
        groups.append(settings.app_id)
        produce_phase(settings, args.events, args.scopes)
        total = end_offsets(watermarks, settings.topics.turns, settings.partitions)
        msgs = baseline_phase(settings, total)

        idle_settings = unique_settings(bootstrap, home, **overrides)
        created.append(idle_settings)
        groups.append(idle_settings.app_id)
        idle = idle_phase(idle_settings, home, extra_env, admin)

        result = worker_phase(settings, home, total, args.scopes, extra_env, admin, watermarks, idle,
                              broker_pid(bootstrap))
        changelog_phase(settings)
        ratio = result["rate"] / FIGURES["baseline_events_per_s"]
        figure("ratio_worker_to_baseline", round(ratio, 3), f"ratio worker/baseline {ratio:.3f}")

        in_process_phase(settings, msgs, result["rate"], FIGURES["baseline_events_per_s"], not args.no_profile)
        del msgs

        if args.profile_worker:
            prof_settings = settings.model_copy(update={"app_id": f"{settings.app_id}-prof"})
            ensure_topics(prof_settings)  # its changelog topic
            created.append(prof_settings)
            groups.append(prof_settings.app_id)
            profiled_worker_phase(prof_settings, home, total, extra_env, admin)

        section("targets (2-core machine)")
        checks = {
            "worker >= 20,000 events/s": FIGURES["worker_events_per_s"] >= 20_000,
            "worker/baseline >= 0.25": FIGURES["ratio_worker_to_baseline"] >= 0.25,
            "<= 2 KB state per scope (peak)": FIGURES["bytes_per_scope_peak"] <= 2048,
        }
        for name, ok in checks.items():
            say(f"  {'MET ' if ok else 'MISSED'}  {name}")
        FIGURES["targets_met"] = checks
    finally:
        section("cleanup")
        for s in created:
            with contextlib.suppress(Exception):
                names = [spec.name for spec in s.topics.specs()]
                if s is not created[0] and s.topic_prefix == created[0].topic_prefix:
                    names = [s.topics.signals_changelog]  # the profiled worker shares the input topics
                delete_topics(s, names)
                say(f"  deleted {len(names)} topics of {s.app_id}")
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
            say(f"  worker logs copied to {args.logs}")
        shutil.rmtree(home, ignore_errors=True)
        FIGURES["bench_wall_s"] = round(time.monotonic() - started, 1)
        say(f"  total wall time {FIGURES['bench_wall_s']} s")
    print(json.dumps(FIGURES), flush=True)


if __name__ == "__main__":
    main()
