"""The Faust stream worker: validate inputs, keep per-scope signals, emit dream jobs.

One agent reads every input topic (turns, memory-adds, control, and the audit topic for job
outcomes) as one co-partitioned stream, so a scope's events are handled in order by one
coroutine and its table row needs no locking. A timer nudges quiet scopes through the control
topic, so time-based triggers also run inside the agent, where table writes belong.
Run with `dreamstream worker streams`.
"""

from __future__ import annotations

import logging
import time
import uuid

import faust
import faust.web

from schemas import ControlEvent, JobLifecycleEvent
from schemas.scope import ScopeError, parse_scope
from schemas.settings import get_settings
from streams.credentials import broker_credentials
from streams.decode import InputEvent
from streams.metrics import DEAD_LETTERS, EVENTS, JOBS_EMITTED, SCOPES_TRACKED
from streams.policy import decide
from streams.processor import BadInputStorm, Outputs, Processor
from streams.signals import ScopeSignals

log = logging.getLogger(__name__)
settings = get_settings()
topics = settings.topics
processor = Processor(settings)

app = faust.App(
    settings.app_id,
    broker_credentials=broker_credentials(settings),
    datadir=str(settings.home / "faust"),
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
    web_port=settings.streams_web_port or 6066,
    key_serializer="raw",
    value_serializer="raw",
)

inputs = app.topic(topics.turns, topics.memory_adds, topics.control, topics.audit,
                   key_type=bytes, value_type=bytes, partitions=settings.partitions)
jobs_topic = app.topic(topics.jobs, key_type=bytes, value_type=bytes, partitions=settings.partitions)
audit_topic = app.topic(topics.audit, key_type=bytes, value_type=bytes, partitions=settings.partitions)
control_topic = app.topic(topics.control, key_type=bytes, value_type=bytes, partitions=settings.partitions)
dead_letter_topic = app.topic(topics.dead_letter, key_type=bytes, value_type=bytes, partitions=settings.partitions)

signals_table = app.Table(
    # Rows are kept as their JSON bytes (value_type=bytes → Faust's "raw" codec, also for the
    # changelog and its recovery): Faust's json codec on a dict cost more than our whole
    # per-event logic (bench/streams.py). Keys use Faust's json codec (from key_type=str).
    "signals", default=None, partitions=settings.partitions, key_type=str, value_type=bytes,
)


@app.agent(inputs)
async def process(stream: faust.Stream) -> None:
    async for event in stream.events():
        message = event.message
        out = Outputs()
        try:
            decoded = processor.decode(message.topic, message.partition, message.offset, message.key, message.value, out)
        except BadInputStorm as storm:
            # Stop the whole worker, loudly and uncommitted: the events are redelivered once
            # whoever broke the producer has fixed it.
            log.critical("%s", storm)
            await app.crash(storm)
            return
        if decoded is not None:
            _fold(decoded, message, out)
        elif out.dead_letters:
            _count(message.topic, "dead_lettered")
        await _publish(out, message.partition)


def _fold(decoded: InputEvent, message: faust.types.Message, out: Outputs) -> None:
    """Fold one valid event into its scope's row and decide; the row is written back only when
    the scope is (still) tracked, so an outcome for a forgotten scope does not resurrect it."""
    now = time.time()
    row = signals_table.get(decoded.scope)
    if row is None and isinstance(decoded, JobLifecycleEvent):
        return
    signals = ScopeSignals.decode(row)
    if isinstance(decoded, ControlEvent) and decoded.action == "forget":
        processor.forget(decoded, signals, now, out)
        signals_table.pop(decoded.scope, None)
        _due.pop(decoded.scope, None)
        _count(message.topic, "accepted")
        return
    fresh = processor.apply(decoded, message.topic, message.partition, message.offset, signals, now)
    _count(message.topic, "accepted" if fresh else "duplicate")
    if fresh:
        processor.decide(decoded.scope, signals, now, out)
        signals_table[decoded.scope] = signals.encode()
        _track_due(decoded.scope, signals)


async def _publish(out: Outputs, partition: int) -> None:
    """Jobs, lifecycle events and dead letters go to the input's partition (co-partitioning) and
    are awaited until delivered: the input offset is committed only after they are durable."""
    pending = []
    for letter in out.dead_letters:
        DEAD_LETTERS.labels(letter.topic, letter.error_type).inc()
        log.warning("dead-lettered %s[%d]@%d: %s", letter.topic, letter.partition, letter.offset, letter.reason)
        key = letter.key.encode() if letter.key is not None else None
        pending.append(await dead_letter_topic.send(key=key, value=letter.model_dump_json().encode(), partition=partition))
    for job in out.jobs:
        JOBS_EMITTED.labels(job.trigger, "emitted").inc()
        log.info("job %s for %s (%s)", job.job_id, job.scope, job.trigger)
        pending.append(await jobs_topic.send(key=job.scope.encode(), value=job.model_dump_json().encode(), partition=partition))
    for lifecycle in out.events:
        if lifecycle.status == "skipped":
            JOBS_EMITTED.labels(lifecycle.trigger, "skipped").inc()
        value = lifecycle.model_dump_json().encode()
        pending.append(await audit_topic.send(key=lifecycle.scope.encode(), value=value, partition=partition))
    for future in pending:
        await future


_counters: dict[tuple[str, str], object] = {}
_due: dict[str, float] = {}
"""Scopes with unconsumed signal → the earliest time a time-based trigger could fire for them.
The timer reads this instead of every row; it is rebuilt from the table every `_RESCAN_TICKS`
ticks, which also covers rows restored from the changelog after a restart or rebalance."""
_RESCAN_TICKS = 30
_ticks = 0


def _count(topic: str, outcome: str) -> None:
    counter = _counters.get((topic, outcome))
    if counter is None:  # prometheus' labels() lookup costs more than the increment
        counter = _counters[(topic, outcome)] = EVENTS.labels(topic, outcome)
    counter.inc()


def _track_due(scope: str, signals: ScopeSignals) -> None:
    if signals.pending_signal == 0:
        _due.pop(scope, None)
        return
    policy = settings.policy_for(scope.partition("/")[0])
    due = signals.last_event_at + policy.idle_s
    if policy.schedule_s and signals.last_pass_at:
        due = min(due, signals.last_pass_at + policy.schedule_s)
    _due[scope] = due


@app.timer(interval=settings.timer_interval_s)
async def nudge_quiet_scopes() -> None:
    """Idle and schedule triggers need no event to fire, so the timer looks for scopes whose
    policy says "now" and sends them an `evaluate` control event; the agent does the rest."""
    global _ticks
    now = time.time()
    if _ticks % _RESCAN_TICKS == 0:
        _due.clear()
        for scope, row in list(signals_table.items()):
            _track_due(scope, ScopeSignals.decode(row))
        SCOPES_TRACKED.set(len(signals_table))
    _ticks += 1
    for scope in [scope for scope, due in _due.items() if due <= now]:
        signals = ScopeSignals.decode(signals_table.get(scope))
        verdict = decide(signals, settings.policy_for(scope.partition("/")[0]), now)
        if verdict is None or verdict.trigger not in ("idle", "schedule") or signals.partition < 0:
            _track_due(scope, signals)
            continue
        _due.pop(scope, None)  # the agent re-tracks it when it handles the nudge
        nudge = ControlEvent(scope=scope, action="evaluate", request_id=f"timer-{uuid.uuid4().hex[:12]}")
        await control_topic.send(key=scope.encode(), value=nudge.model_dump_json().encode(), partition=signals.partition)


@app.page("/trigger/{tenant}/{agent}/{subject}")
class TriggerView(faust.web.View):
    """POST asks the scope to dream now; answers with the request id to wait on in the audit topic."""

    async def post(self, request: faust.web.Request, tenant: str, agent: str, subject: str) -> faust.web.Response:
        scope = f"{tenant}/{agent}/{subject}"
        try:
            parse_scope(scope)
        except ScopeError as err:
            return self.json({"error": str(err)}, status=400)
        control = ControlEvent(scope=scope, action="trigger", request_id=f"http-{uuid.uuid4().hex[:12]}", reason="http")
        await control_topic.send(key=scope.encode(), value=control.model_dump_json().encode())
        return self.json({"scope": scope, "request_id": control.request_id}, status=202)
