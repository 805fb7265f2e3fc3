"""The stream worker: validate inputs, keep per-scope signals, emit dream jobs.

Faust hosts the process: its CLI (`dreamstream worker streams`), signal handling and shutdown,
the timer and the web view. The records themselves are read by `streams.loop.StreamLoop`, a
confluent-kafka consumer that owns its offsets (Faust's own Kafka consumer, producer and tables
are not started: its agent path cost ~100 µs per event and could skip events produced while a
group formed). Rows keep the changelog format Faust's table wrote: key = the scope as a JSON
string, value = the row's JSON bytes, in the compacted `<app id>-signals-changelog` topic.

A timer nudges quiet scopes through the control topic, so time-based triggers are decided in
the stream like everything else. The trigger view (`POST /trigger/<tenant>/<agent>/<subject>`)
needs the consolidation API's bearer token when one is set, and is bound to loopback otherwise;
Faust's `/table` and `/router` pages are off.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
import sys
import time
import uuid

import faust
import faust.web
import faust.web.base
from confluent_kafka import KafkaError, Message
from faust.app.base import BootStrategy
from mode import Service

from plumbing.kafka_io import DeliveryFailed
from schemas import ControlEvent
from schemas.scope import ScopeError, parse_scope
from schemas.settings import get_settings
from streams.loop import StreamLoop
from streams.storm import BadInputStorm

log = logging.getLogger(__name__)
settings = get_settings()
topics = settings.topics

LOOPBACK = ("127.0.0.1", "localhost", "::1")
web_host = settings.api_host if settings.api_token is not None else "127.0.0.1"
"""The trigger view answers off loopback only when a bearer token guards it."""

# Faust's built-in pages would show any tenant's row (/table) and the cluster layout (/router).
faust.web.base.Web.default_blueprints = []


class _NoKafka(BootStrategy):
    """Faust without its Kafka consumer, producer, conductor and tables: StreamLoop reads."""

    enable_kafka = False


class _App(faust.App):
    BootStrategy = _NoKafka

    async def _wait_for_table_recovery_completed(self) -> bool:
        return self.should_stop  # no Faust tables: nothing to wait for


app = _App(
    settings.app_id,
    datadir=str(settings.home / "faust"),
    broker=[f"kafka://{server}" for server in settings.kafka_bootstrap_servers.split(",")],
    web_bind=web_host,
    web_port=settings.streams_web_port or 6066,
    web_enabled=bool(settings.streams_web_port),
    web_router_enabled=False,
    web_tables_enabled=False,
)


class InputLoop(Service):
    """Runs StreamLoop on the app's event loop: a batch at a time, resting when there is none."""

    stream: StreamLoop | None = None

    async def on_start(self) -> None:
        InputLoop.stream = self.stream = StreamLoop(settings)
        self.stream.start()

    @Service.task
    async def _run(self) -> None:
        stream = self.stream
        try:
            assert stream is not None  # made by on_start, which runs before the service's tasks
            while not self.should_stop and not stream.stopped:
                read = stream.poll(0)
                await asyncio.sleep(0 if read else stream.health.idle_sleep_s)
        except BadInputStorm as storm:
            # Stop loudly and at once: nothing of the batch that crossed the limit was published
            # (what earlier batches published is committed: StreamLoop.poll), so a restart reads
            # the storm again and publishes nothing twice.
            _die(f"{storm}", 2)
        except DeliveryFailed as failed:
            _die(f"{failed}; exiting without committing past it", 3)
        except Exception as err:  # anything else is a bug or a broken broker: restart uncommitted
            log.exception("stream loop failed")
            _die(f"stream loop failed: {err!r}", 4)

    async def on_stop(self) -> None:
        if self.stream is not None:
            self.stream.close(commit=True)


def _die(message: str, code: int) -> None:
    log.critical("%s", message)
    logging.shutdown()
    sys.stderr.flush()
    os._exit(code)


app.service(InputLoop)


@app.timer(interval=settings.timer_interval_s)  # type: ignore[untyped-decorator]  # faust's App.timer returns a bare Callable
async def nudge_quiet_scopes() -> None:
    """Idle and schedule triggers need no event to fire: due scopes get an `evaluate` control
    event. Touches only the scopes that are due (a heap), never every row."""
    stream = InputLoop.stream
    if stream is not None and not stream.stopped:
        stream.nudge_quiet_scopes(time.time())


def _authorized(request: faust.web.Request) -> bool:
    token = settings.api_token
    if token is None:
        return True
    given = request.headers.get("Authorization", "")
    return hmac.compare_digest(given.encode(), f"Bearer {token.get_secret_value()}".encode())


@app.page("/trigger/{tenant}/{agent}/{subject}")
class TriggerView(faust.web.View):
    """POST asks the scope to dream now; answers with the request id to wait on in the audit topic."""

    async def post(self, request: faust.web.Request, tenant: str, agent: str, subject: str) -> faust.web.Response:
        if not _authorized(request):
            return self.json({"error": "missing or wrong bearer token"}, status=401)
        scope = f"{tenant}/{agent}/{subject}"
        try:
            parse_scope(scope)
        except ScopeError as err:
            return self.json({"error": str(err)}, status=400)
        stream = InputLoop.stream
        if stream is None or stream.stopped:
            return self.json({"error": "the stream worker is not running"}, status=503)
        control = ControlEvent(scope=scope, action="trigger", request_id=f"http-{uuid.uuid4().hex[:12]}", reason="http")
        delivered: asyncio.Future[KafkaError | None] = asyncio.get_running_loop().create_future()

        def done(err: KafkaError | None, _msg: Message) -> None:
            if not delivered.done():
                delivered.set_result(err)

        stream.send_control(control, stream.processor.validator.home(scope.encode()), done)
        failure: KafkaError | str | None
        try:
            failure = await asyncio.wait_for(delivered, timeout=30)
        except TimeoutError:
            failure = "timed out"
        if failure is not None:
            return self.json({"error": f"could not publish the trigger: {failure}"}, status=503)
        return self.json({"scope": scope, "request_id": control.request_id}, status=202)
