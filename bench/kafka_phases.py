"""Phases 1-4 on real Kafka: produce the turns, the confluent-kafka baseline, the idle worker, and
the real worker measured from its consumer group's committed offsets (CPU, memory, changelog rows)."""

from __future__ import annotations

import contextlib
import os
import statistics
import time
import uuid
from pathlib import Path

from bench.common import FIGURES, Child, Follow, end_offsets, figure, mb, proc_status, say, section, window_rate
from bench.events import generate


def produce_phase(settings, events: int, scopes: int) -> None:
    from plumbing.kafka_io import flush_or_raise, make_producer

    section(
        f"1. produce {events:,} turns over {scopes:,} scopes to {settings.topics.turns} "
        f"({settings.partitions} partitions)"
    )
    producer = make_producer(
        settings,
        **{
            "linger.ms": 20,
            "batch.num.messages": 10_000,
            "queue.buffering.max.messages": 1_000_000,
            "queue.buffering.max.kbytes": 1_048_576,
        },
    )
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
    figure(
        "produce_events_per_s",
        round(events / elapsed),
        f"produced in {elapsed:.1f} s: {events / elapsed:,.0f} events/s",
    )
    figure("event_bytes_avg", round(size / events), f"average value {size / events:.0f} bytes")


def baseline_phase(settings, total: int) -> list[tuple]:
    """Plain confluent-kafka: consume(batch) and model_validate_json per message."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    from schemas import ConversationTurn

    section("2. baseline: confluent-kafka consume(5000) + ConversationTurn.model_validate_json per record")
    consumer = Consumer(
        {
            **settings.kafka_client_config(),
            "group.id": f"bench-baseline-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
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
    figure(
        "baseline_events_per_s",
        round(rate),
        f"baseline {rate:,.0f} events/s ({total / elapsed:,.0f}/s over "
        f"{elapsed:.2f} s including connect and first fetch)",
    )
    figure(
        "baseline_cpu_us_per_event",
        round(cores / rate * 1e6, 2),
        f"{cores:.2f} cores = {cores / rate * 1e6:.1f} µs CPU/event (librdkafka threads included)",
    )
    return [(m.topic(), m.partition(), m.offset(), m.key(), m.value()) for m in kept]


WARM_EVENTS, WARM_SCOPES = 2_000, 20


def idle_phase(settings, home: Path, extra_env: dict[str, str], admin) -> int:
    """A worker on a topic set of its own: startup to a stable group and its RSS with 0 scopes
    (cold), then again once it has folded a few turns of a few scopes (warm: polars, msgspec and
    the output path loaded and their pools allocated). The warm RSS is the base the state per
    scope is measured from, so a one-off start-up cost is not spread over the scopes."""
    from confluent_kafka import ConsumerGroupState

    from bench.common import committed
    from plumbing.kafka_io import flush_or_raise, make_producer

    section(f"3. idle worker (0 scopes, then {WARM_EVENTS:,} turns of {WARM_SCOPES} scopes; a topic set of its own)")
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
                if group.state == ConsumerGroupState.STABLE and any(
                    m.assignment.topic_partitions for m in group.members
                ):
                    ready = time.monotonic() - worker.t0
            time.sleep(0.2)
        time.sleep(5)  # changelog recovery (empty) done, first timer tick passed
        status = [proc_status(worker.pid) for _ in range(5) if not time.sleep(0.2)]
        producer, errors = make_producer(settings), []
        for key, value in generate(WARM_EVENTS, WARM_SCOPES, seed=11):
            producer.produce(
                settings.topics.turns, key=key, value=value, on_delivery=lambda err, _m: err and errors.append(err)
            )
        flush_or_raise(producer, errors)
        deadline = time.monotonic() + 60
        while committed(admin, settings.app_id, settings.topics.turns, settings.partitions) < WARM_EVENTS:
            worker.check()
            if time.monotonic() > deadline:
                raise RuntimeError("idle worker did not fold the warm-up turns within 60 s")
            time.sleep(0.2)
        time.sleep(3)
        warm = [proc_status(worker.pid) for _ in range(5) if not time.sleep(0.2)]
    finally:
        worker.stop()
    cold_rss = max(s.get("VmRSS", 0) for s in status)
    idle_rss = max(s.get("VmRSS", 0) for s in warm)
    figure("idle_startup_s", round(ready, 2), f"startup (spawn -> group stable, partitions assigned): {ready:.1f} s")
    figure("idle_cold_rss_bytes", cold_rss, f"idle RSS with 0 scopes {mb(cold_rss)}")
    figure(
        "idle_rss_bytes",
        idle_rss,
        f"idle RSS warm ({WARM_SCOPES} scopes): {mb(idle_rss)}, i.e. {mb(idle_rss - cold_rss)} loaded on first use",
    )
    return idle_rss


def worker_phase(
    settings,
    home: Path,
    total: int,
    scopes: int,
    extra_env: dict[str, str],
    admin,
    watermarks,
    idle_rss: int,
    broker: int | None,
) -> float:
    section(f"4. `dreamstream worker streams` on the same topic (group {settings.app_id})")
    topics, parts = settings.topics, settings.partitions
    worker = Child(settings, home, "worker", extra_env)
    try:
        follow = Follow(
            worker, admin, watermarks, settings.app_id, topics.turns, topics.signals_changelog, parts, total, broker
        ).run(timeout_s=120 + total / 300)
        time.sleep(3)  # after the backlog, no traffic
        status = proc_status(worker.pid)
    finally:
        worker.stop()
    hwm, steady = max(follow.hwm, status.get("VmHWM", 0)), status.get("VmRSS", 0)
    rate, a, b = follow.rate()
    figure(
        "worker_events_per_s",
        round(rate),
        f"worker {rate:,.0f} events/s (committed offsets {a[1]:,} -> {b[1]:,} in {b[0] - a[0]:.1f} s)",
    )
    cl_rate, _, _ = window_rate(follow.writes, total)
    if cl_rate:
        figure(
            "worker_table_writes_per_s",
            round(cl_rate),
            f"cross-check: {cl_rate:,.0f} table writes/s (changelog end offsets, same window)",
        )
    figure(
        "worker_startup_s",
        round(follow.first_write, 2),
        f"startup: {follow.first_write:.1f} s spawn -> first table write; {follow.first_commit:.1f} s -> first "
        f"commit (Faust commits every 2.8 s or 10,000 events)",
    )
    figure("worker_first_commit_s", round(follow.first_commit, 2))
    cpu = follow.cpu_in(a[0], b[0])
    if cpu:
        other = cpu["machine"] - cpu["child"] - cpu["bench"] - cpu.get("broker", 0.0)
        figure(
            "worker_cpu_cores",
            round(cpu["child"], 2),
            f"CPU in the window: worker {cpu['child']:.2f} cores, Kafka broker "
            f"{cpu.get('broker', float('nan')):.2f}, this bench {cpu['bench']:.2f}, anything else {other:.2f} "
            f"(machine busy {cpu['machine']:.2f} of {os.cpu_count()})",
        )
        figure("broker_cpu_cores", round(cpu.get("broker", -1), 2))
        figure("other_cpu_cores", round(other, 2))
        per = cpu["child"] / rate
        figure(
            "worker_cpu_us_per_event",
            round(per * 1e6, 1),
            f"worker CPU per event {per * 1e6:,.0f} µs, i.e. at most {1 / per:,.0f} events/s on one whole core "
            f"(the agent is one coroutine, and the GIL holds the process to about one core)",
        )
    per_peak, per_steady = (hwm - idle_rss) / scopes, (steady - idle_rss) / scopes
    figure(
        "worker_peak_rss_bytes",
        hwm,
        f"peak memory VmHWM {mb(hwm)} with {scopes:,} scopes (idle worker "
        f"{mb(idle_rss)}); RSS 3 s after the backlog {mb(steady)}",
    )
    figure("worker_steady_rss_bytes", steady)
    cold = FIGURES.get("idle_cold_rss_bytes", idle_rss)
    per_cold = (hwm - cold) / scopes
    figure(
        "bytes_per_scope_peak",
        round(per_peak),
        f"state per scope: (peak - warm idle) / scopes = {per_peak:,.0f} bytes; (steady - warm idle) / scopes = "
        f"{per_steady:,.0f} bytes; (peak - cold idle) / scopes = {per_cold:,.0f} bytes (start-up costs included)",
    )
    figure("bytes_per_scope_steady", round(per_steady))
    figure("bytes_per_scope_peak_from_cold", round(per_cold))
    jobs, dead = end_offsets(watermarks, topics.jobs, parts), end_offsets(watermarks, topics.dead_letter, parts)
    figure("worker_jobs_emitted", jobs, f"jobs emitted {jobs:,}; dead letters {dead:,}")
    figure("worker_dead_letters", dead)
    return rate


def changelog_phase(settings) -> bytes | None:
    """Serialized signals rows as the worker wrote them to its changelog topic."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer(
        {
            **settings.kafka_client_config(),
            "group.id": f"bench-changelog-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
        }
    )
    topic = settings.topics.signals_changelog
    # compaction may already have removed older rows of a scope: read up to the end offsets
    ends = {
        p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)[1]
        for p in range(settings.partitions)
    }
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
    figure(
        "signals_row_json_bytes",
        median,
        f"serialized signals row (changelog value): median {median} B, mean {statistics.fmean(sizes):.0f} B, "
        f"p95 {p95} B, max {sizes[-1]} B over {len(sizes):,} rows still in the (compacted) topic",
    )
    if example:
        say(f"    e.g. {example.decode()[:400]}")
    return example
