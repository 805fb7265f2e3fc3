"""The Faust stream worker: validate inputs, keep per-scope signals, emit dream jobs.

One agent reads every input topic (turns, memory-adds, control, and the audit topic for job
outcomes) as one co-partitioned stream, so a scope's events are handled in order by one
coroutine and its table row needs no locking. Run with `dreamstream worker streams`.
"""

from __future__ import annotations

import logging
import time

import faust

from schemas.settings import get_settings
from streams.processor import Outputs, Processor, pending_event
from streams.signals import ScopeSignals

log = logging.getLogger(__name__)
settings = get_settings()
topics = settings.topics
processor = Processor(settings)

app = faust.App(
    settings.app_id,
    broker=[f"kafka://{server}" for server in settings.kafka_bootstrap_servers.split(",")],
    store="memory://",  # state is rebuilt from the changelog topic on restart
    topic_partitions=settings.partitions,
    topic_replication_factor=settings.replication_factor,
    topic_allow_declare=False,  # topics are created up front with the right partition counts
    topic_disable_leader=True,
    consumer_auto_offset_reset="earliest",
    broker_session_timeout=settings.session_timeout_ms / 1000,
    broker_heartbeat_interval=max(settings.session_timeout_ms / 3000, 1),
    web_bind="127.0.0.1",
    web_port=settings.metrics_port or 6066,
    key_serializer="raw",
    value_serializer="raw",
)

inputs = app.topic(topics.turns, topics.memory_adds, topics.control, topics.audit,
                   key_type=bytes, value_type=bytes, partitions=settings.partitions)
jobs_topic = app.topic(topics.jobs, key_type=bytes, value_type=bytes, partitions=settings.partitions)
audit_topic = app.topic(topics.audit, key_type=bytes, value_type=bytes, partitions=settings.partitions)
dead_letter_topic = app.topic(topics.dead_letter, key_type=bytes, value_type=bytes, partitions=settings.partitions)

signals_table = app.Table(
    "signals", default=None, partitions=settings.partitions,
    schema=faust.Schema(key_type=str, value_type=None, key_serializer="json", value_serializer="json"),
)


@app.agent(inputs)
async def process(stream: faust.Stream) -> None:
    async for event in stream.events():
        message = event.message
        out = Outputs()
        decoded = processor.decode(message.topic, message.partition, message.offset, message.key, message.value, out)
        if decoded is not None:
            now = time.time()
            signals = ScopeSignals.from_json(signals_table.get(decoded.scope))
            processor.apply(decoded, message.topic, message.offset, signals, now)
            job = processor.maybe_job(decoded.scope, signals, now)
            signals_table[decoded.scope] = signals.to_json()
            if job is not None:
                out.jobs.append(job)
        await _publish(out, message.partition)


async def _publish(out: Outputs, partition: int) -> None:
    """Jobs and dead letters go to the same partition as their input (co-partitioning), and are
    awaited until delivered: the input offset is committed only after they are durable."""
    pending = []
    for letter in out.dead_letters:
        log.warning("dead-lettered %s[%d]@%d: %s", letter.topic, letter.partition, letter.offset, letter.reason)
        key = letter.key.encode() if letter.key is not None else None
        pending.append(await dead_letter_topic.send(key=key, value=letter.model_dump_json().encode(), partition=partition))
    for job in out.jobs:
        log.info("job %s for %s (%s)", job.job_id, job.scope, job.trigger)
        key = job.scope.encode()
        pending.append(await jobs_topic.send(key=key, value=job.model_dump_json().encode(), partition=partition))
        pending.append(await audit_topic.send(key=key, value=pending_event(job).model_dump_json().encode(), partition=partition))
    for future in pending:
        await future
