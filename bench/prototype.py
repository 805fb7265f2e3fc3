"""Phase 7: a prototype of the suggested fix, the worker's per-event logic in a confluent-kafka loop
that writes the same changelog rows through librdkafka. Not the product: it lacks Faust's
rebalance, recovery and timer wiring, so its rate is a ceiling for that design."""

from __future__ import annotations

import time

from bench.common import CREATED, figure, say, section, window_rate


def prototype_phase(settings, total: int) -> None:
    """The same Processor logic in a confluent-kafka loop: consume(1000), fold, produce the changelog
    row (ScopeSignals.encode() bytes, as the worker) through librdkafka, flush + commit every 10,000
    events (Faust's commit_every)."""
    from confluent_kafka import Consumer, Producer

    from dreamstream.topic_admin import ensure_topics
    from streams.processor import Outputs, Processor
    from streams.signals import ScopeSignals

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
    from_row, to_row = ScopeSignals.decode, ScopeSignals.encode
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
