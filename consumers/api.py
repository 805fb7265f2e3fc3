"""The consolidation worker's HTTP API: health, readiness, a scope's memories, diary and
generations, and manual triggers.

It runs in a background thread of the worker process with its own event loop (`start_api`), on
`api_host:api_port` (127.0.0.1 by default). Whenever `api_token` is set, every route except the
two probes needs `Authorization: Bearer <api_token>`; the settings refuse a non-loopback host
without a token.

| route | answer |
|---|---|
| `GET /healthz` | 200 while the process serves requests |
| `GET /readyz` | 200 when the store answers and the consumer has partitions, else 503 |
| `GET /scopes[?tenant=T]` | the scopes the store knows |
| `GET /scopes/{tenant}/{agent}/{subject}/memories[?generation=N&include_inactive=true&limit=L&cursor=C]` | a generation's memories (default: the active one, active records); with `limit`, a page and `next_cursor` |
| `GET /scopes/{tenant}/{agent}/{subject}/memories/search?q=TEXT[&k=10]` | the closest memories with scores, memory-adds not yet consolidated included (`consolidated: false`) |
| `GET /scopes/{tenant}/{agent}/{subject}/memories/{memory_id}` | one memory as readers see it now, and what it was in every kept generation |
| `GET /scopes/{tenant}/{agent}/{subject}/diary` | one entry per pass and operator decision |
| `GET /scopes/{tenant}/{agent}/{subject}/generations` | the pointer: active generation and the kept ones |
| `POST /scopes/{tenant}/{agent}/{subject}/trigger` | 202 `{"request_id", "scope"}`; body `{"reason": "…"}` optional |
| `POST /scopes/{tenant}/{agent}/{subject}/rollback` | body `{"by", "reason", "generation"?}`: an earlier kept generation is active again |
| `POST /scopes/{tenant}/{agent}/{subject}/generations/{n}/approve` or `/reject` | body `{"by", "reason", "force"?}`: an operator decision about a quarantined generation |

Operator decisions run here, in the worker, so they are counted on its metrics
(`dreamstream_rollbacks_total`, `dreamstream_quarantine_decisions_total`) and publish their
audit event from where the change happens.

Errors are JSON `{"error": "…"}`: 400 for a malformed scope or parameter (an unknown or repeated
query parameter included), 401 for a missing or wrong token, 404 for an unknown scope, generation
or memory (a trigger needs no known scope: a scope's first pass is triggered before the store
knows it), 409 for a decision that does not apply to the generation as it stands, 503 while the
store stayed busy too long or Kafka refused the control event.

Embedded Qdrant is one in-process client that is not safe to use from two threads at once, so
every store access here holds the runtime's lock, which the worker holds around its own store
access; against a Qdrant server no lock is needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from aiohttp import web
from aiohttp.typedefs import Handler
from confluent_kafka import KafkaException
from pydantic import ValidationError

from consumers.audit_publisher import AuditPublisher
from consumers.runtime import Runtime
from consumers.store import quarantine as decisions
from consumers.store.history import ScopeReader, ScopeView, generations_json, record_history
from consumers.store.memories import ScopeState
from plumbing.kafka_io import send_control
from schemas import MemoryRecord, ScopeError, parse_scope
from schemas.settings import Settings

log = logging.getLogger(__name__)
OPEN_PATHS = frozenset({"/healthz", "/readyz"})
"""Probes answer without a token: they reveal nothing about any scope."""
STORE_WAIT_S = 30.0
"""How long a request waits for the store while the worker uses it, before a 503."""
MAX_K = 100
MAX_PAGE = 1_000
MAX_QUERY_CHARS = 1_000
T = TypeVar("T")


@dataclass(frozen=True)
class Decisions:
    """Operator decisions on this process's stores (consumers/store/quarantine.py)."""

    rollback: Callable[[str, int | None, str, str], ScopeState]
    approve: Callable[[str, int, str, str, bool], ScopeState]
    reject: Callable[[str, int, str, str], ScopeState]


class StoreBusy(RuntimeError):
    pass


class StoreGuard:
    """Serialises store access with the worker when the store is embedded."""

    def __init__(self, lock: threading.RLock | None, wait_s: float | None = None) -> None:
        self._lock = lock
        self._wait_s = STORE_WAIT_S if wait_s is None else wait_s

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        if self._lock is None:
            yield
            return
        if not self._lock.acquire(timeout=self._wait_s):
            raise StoreBusy(f"the store stayed busy for {self._wait_s:.0f}s; retry")
        try:
            yield
        finally:
            self._lock.release()

    def busy(self) -> bool:
        """True when someone else holds the store right now (so it is in use, hence reachable)."""
        if self._lock is None:
            return False
        if self._lock.acquire(blocking=False):
            self._lock.release()
            return False
        return True


def make_app(
    settings: Settings,
    reader: ScopeReader,
    store_ping: Callable[[], None],
    ready: Callable[[], bool],
    guard: StoreGuard,
    trigger: Callable[[str, str], str],
    operator: Decisions | None = None,
) -> web.Application:
    token = settings.api_token.get_secret_value().encode() if settings.api_token else None

    @web.middleware
    async def errors(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            return await handler(request)
        except web.HTTPException as exc:  # aiohttp's own (unknown route, wrong method): JSON too
            if exc.status < 400:
                raise
            return _error(exc.status, exc.reason, headers={k: v for k, v in exc.headers.items() if k == "Allow"})
        except (ScopeError, BadRequest) as exc:
            return _error(400, str(exc))
        except decisions.DecisionRefused as exc:
            return _error(409, str(exc))
        except LookupError as exc:
            return _error(404, str(exc).strip("'\""))
        except StoreBusy as exc:
            return _error(503, str(exc))
        except KafkaException as exc:
            log.warning("API: Kafka: %s", exc)
            return _error(503, f"Kafka: {exc}")
        except Exception:  # the HTTP boundary: logged with its traceback, answered as JSON
            log.exception("API: %s %s failed", request.method, request.path)
            return _error(500, "internal error (see the worker's log)")

    @web.middleware
    async def auth(request: web.Request, handler: Handler) -> web.StreamResponse:
        if token is not None and request.path not in OPEN_PATHS:
            scheme, _, given = request.headers.get("Authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token):
                return _error(
                    401, "missing or wrong bearer token", headers={"WWW-Authenticate": 'Bearer realm="dreamstream"'}
                )
        return await handler(request)

    async def blocking(fn: Callable[[], T]) -> T:
        def run() -> T:
            with guard():
                return fn()

        return await asyncio.to_thread(run)

    async def healthz(request: web.Request) -> web.Response:
        _params(request)
        return web.json_response({"status": "ok"})

    async def readyz(request: web.Request) -> web.Response:
        _params(request)
        assigned = bool(ready())
        store, detail = await asyncio.to_thread(_store_reachable, guard, store_ping)
        body: dict[str, bool | str] = {
            "ready": assigned and store,
            "consumer_assigned": assigned,
            "store_reachable": store,
        }
        if detail:
            body["store_error"] = detail
        return web.json_response(body, status=200 if body["ready"] else 503)

    async def scopes(request: web.Request) -> web.Response:
        tenant = _params(request, "tenant").get("tenant") or None
        return web.json_response({"scopes": await blocking(lambda: reader.scopes(tenant))})

    async def memories(request: web.Request) -> web.Response:
        scope = _scope(request)
        params = _params(request, "generation", "include_inactive", "limit", "cursor")
        generation = _int_param(params, "generation")
        include_inactive = _bool_param(params, "include_inactive")
        limit = _int_param(params, "limit", low=1, high=MAX_PAGE)
        offset = 0
        if params.get("cursor"):
            cursor_generation, offset = _cursor(params["cursor"])
            if generation is not None and generation != cursor_generation:
                raise BadRequest("cursor belongs to another generation than the one asked for")
            generation = cursor_generation  # a page sequence stays on one generation, whatever is promoted meanwhile
        # One hold of the store for both reads, so the number and the records agree.
        state, records = await blocking(
            lambda: (reader.state(scope), reader.records(scope, generation, include_inactive))
        )
        number = state.active_generation if generation is None else generation
        body: dict[str, object] = {"scope": scope, "generation": number}
        if limit is not None:
            end = offset + limit
            body["next_cursor"] = f"{number}:{end}" if end < len(records) else None
            body["total"] = len(records)
            records = records[offset:end]
        body["memories"] = [m.model_dump(mode="json") for m in records]
        return web.json_response(body)

    async def search(request: web.Request) -> web.Response:
        scope = _scope(request)
        params = _params(request, "q", "k")
        query = params.get("q", "").strip()
        if not query:
            raise BadRequest("q (the search text) is required")
        if len(query) > MAX_QUERY_CHARS:
            raise BadRequest(f"q must be at most {MAX_QUERY_CHARS} characters")
        k = _int_param(params, "k", low=1, high=MAX_K) or 10
        hits = await blocking(lambda: reader.search(scope, query, k))
        return web.json_response(
            {
                "scope": scope,
                "query": query,
                "k": k,
                "results": [search_hit_json(record, score) for record, score in hits],
            }
        )

    async def memory(request: web.Request) -> web.Response:
        scope = _scope(request)
        _params(request)
        memory_id = request.match_info["memory_id"]
        state, versions = await blocking(lambda: (reader.state(scope), record_history(reader, scope, memory_id)))
        current = next((v.record for v in versions if v.generation.generation == state.active_generation), None)
        return web.json_response(
            {
                "scope": scope,
                "memory_id": memory_id,
                "active_generation": state.active_generation,
                "memory": current.model_dump(mode="json") if current else None,
                "history": [v.to_json() for v in versions],
            }
        )

    async def diary(request: web.Request) -> web.Response:
        scope = _scope(request)
        _params(request)
        entries = await blocking(lambda: reader.diary(scope))
        return web.json_response({"scope": scope, "entries": [e.model_dump(mode="json") for e in entries]})

    async def generations(request: web.Request) -> web.Response:
        scope = _scope(request)
        _params(request)
        state = await blocking(lambda: reader.state(scope))
        return web.json_response(generations_json(state))

    async def rollback(request: web.Request) -> web.Response:
        scope, body = _scope(request), await _decision_body(request, "generation")
        generation = body.get("generation")
        if generation is not None and (
            not isinstance(generation, int) or isinstance(generation, bool) or generation < 1
        ):
            raise BadRequest("generation must be a positive integer")
        state = await blocking(lambda: _operator().rollback(scope, generation, body["by"], body["reason"]))
        return web.json_response(generations_json(state))

    async def decide(request: web.Request) -> web.Response:
        scope, action = _scope(request), request.match_info["action"]
        generation = _int_param({"generation": request.match_info["generation"]}, "generation", low=1)
        assert generation is not None  # the route matched a non-empty {generation}
        body = await _decision_body(request, "force")
        force = body.get("force", False)
        if not isinstance(force, bool):
            raise BadRequest("force must be true or false")
        ops = _operator()
        if action == "approve":
            state = await blocking(lambda: ops.approve(scope, generation, body["by"], body["reason"], force))
        else:
            state = await blocking(lambda: ops.reject(scope, generation, body["by"], body["reason"]))
        return web.json_response(generations_json(state))

    def _operator() -> Decisions:
        if operator is None:
            raise web.HTTPNotImplemented(reason="operator decisions are not served here")
        return operator

    async def trigger_pass(request: web.Request) -> web.Response:
        scope = _scope(request)
        _params(request)
        reason = await _reason(request)
        try:
            request_id = await asyncio.to_thread(trigger, scope, reason)
        except ValidationError as err:  # the control event refused the reason (too long)
            raise BadRequest(f"reason: {err.errors()[0]['msg']}") from None
        return web.json_response({"request_id": request_id, "scope": scope}, status=202)

    app = web.Application(middlewares=[errors, auth])
    base = "/scopes/{tenant}/{agent}/{subject}"
    app.add_routes(
        [
            web.get("/healthz", healthz),
            web.get("/readyz", readyz),
            web.get("/scopes", scopes),
            web.get(f"{base}/memories", memories),
            web.get(f"{base}/memories/search", search),  # before {memory_id}: routes match in order
            web.get(f"{base}/memories/{{memory_id}}", memory),
            web.get(f"{base}/diary", diary),
            web.get(f"{base}/generations", generations),
            web.post(f"{base}/trigger", trigger_pass),
            web.post(f"{base}/rollback", rollback),
            web.post(f"{base}/generations/{{generation}}/{{action:approve|reject}}", decide),
        ]
    )
    return app


class BadRequest(ValueError):
    pass


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response({"error": message}, status=status, headers=headers)


def _scope(request: web.Request) -> str:
    m = request.match_info
    scope = f"{m['tenant']}/{m['agent']}/{m['subject']}"
    parse_scope(scope)
    return scope


def search_hit_json(record: MemoryRecord, score: float) -> dict[str, Any]:
    """One search result. `consolidated` and `tier` are read defensively: a store that does not
    tell them yet serves curated memories only, from the core tier."""
    return {
        "memory": record.model_dump(mode="json"),
        "score": score,
        "consolidated": getattr(record, "consolidated", True),
        "tier": getattr(record, "tier", "core"),
    }


def _params(request: web.Request, *allowed: str) -> dict[str, str]:
    """The query parameters, refusing unknown, repeated and empty ones: `?tenant[]=acme`,
    `?tenant=a&tenant=b` or `?tenant=` must not quietly mean "every tenant" or "one of them"."""
    query = request.query
    unknown = sorted(set(query) - set(allowed))
    if unknown:
        hint = f" (allowed: {', '.join(allowed)})" if allowed else " (this route takes none)"
        raise BadRequest(f"unknown query parameter {unknown[0]!r}{hint}")
    repeated = sorted(name for name in set(query) if len(query.getall(name)) > 1)
    if repeated:
        raise BadRequest(f"query parameter {repeated[0]!r} given more than once")
    empty = sorted(name for name, value in query.items() if not value.strip())
    if empty:
        raise BadRequest(f"query parameter {empty[0]!r} is empty: leave it out or give it a value")
    return dict(query)


def _int_param(params: dict[str, str], name: str, low: int = 0, high: int | None = None) -> int | None:
    raw = params.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"{name} must be an integer, got {raw!r}") from None
    if value < low or (high is not None and value > high):
        raise BadRequest(
            f"{name} must be between {low} and {high}" if high is not None else f"{name} must be at least {low}"
        )
    return value


def _cursor(raw: str) -> tuple[int, int]:
    generation, _, offset = raw.partition(":")
    if not (generation.isdigit() and offset.isdigit()):
        raise BadRequest(f"cursor {raw!r} is not one this API gave out")
    return int(generation), int(offset)


def _bool_param(params: dict[str, str], name: str) -> bool:
    raw = params.get(name, "").lower()
    if raw in ("", "0", "false", "no"):
        return False
    if raw in ("1", "true", "yes"):
        return True
    raise BadRequest(f"{name} must be true or false, got {raw!r}")


async def _decision_body(request: web.Request, *optional: str) -> dict[str, Any]:
    """`{"by": who, "reason": why, ...}`: a decision always says who made it and why."""
    try:
        body = await request.json() if request.can_read_body else None
    except ValueError:
        raise BadRequest('the body must be JSON: {"by": "...", "reason": "..."}') from None
    if not isinstance(body, dict):
        raise BadRequest('the body must be a JSON object: {"by": "...", "reason": "..."}')
    unknown = sorted(set(body) - {"by", "reason", *optional})
    if unknown:
        raise BadRequest(f"unknown field {unknown[0]!r}")
    for name in ("by", "reason"):
        if not isinstance(body.get(name), str) or not body[name].strip():
            raise BadRequest(f"{name} is required (a non-empty string)")
    return body


async def _reason(request: web.Request) -> str:
    if not request.can_read_body:
        return "manual"
    try:
        body = await request.json()
    except ValueError:  # not JSON, or not UTF-8
        raise BadRequest('the body must be JSON: {"reason": "..."}') from None
    reason = body.get("reason", "manual") if isinstance(body, dict) else None
    if not isinstance(reason, str):
        raise BadRequest("reason must be a string")
    return reason


def _store_reachable(guard: StoreGuard, ping: Callable[[], None]) -> tuple[bool, str]:
    if guard.busy():
        return True, ""  # the worker is using it right now
    try:
        with guard():
            ping()
    except Exception as err:  # noqa: BLE001 - any failure to answer means "not ready"; reported, not hidden
        log.warning("readiness: store unreachable: %s", err)
        return False, f"{type(err).__name__}: {err}"
    return True, ""


@dataclass
class ApiServer:
    url: str
    _loop: asyncio.AbstractEventLoop
    _thread: threading.Thread

    def stop(self, timeout_s: float = 10.0) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout_s)


class ApiError(RuntimeError):
    pass


def start_api(
    settings: Settings, runtime: Runtime, ready: Callable[[], bool], lock: threading.RLock | None = None
) -> ApiServer:
    """Serve the API on settings.api_host:settings.api_port (0: any free port) in a daemon
    thread. `ready` says whether the worker's consumer has partitions; `lock` (default
    `runtime.lock`) is the one the worker holds while it uses the store."""
    guard = StoreGuard(None if settings.qdrant_url else (lock if lock is not None else runtime.lock))

    def trigger(scope: str, reason: str) -> str:
        return next(iter(send_control(settings, [scope], "trigger", reason)))

    def ping() -> None:
        runtime.client.get_collections()

    reader = ScopeView(runtime.memories, runtime.diary)
    publish = AuditPublisher(settings, "operator")
    operator = Decisions(
        rollback=lambda scope, generation, by, reason: decisions.rollback(
            runtime.memories, runtime.diary, scope, generation, by, reason, publish=publish
        ),
        approve=lambda scope, generation, by, reason, force: decisions.approve(
            runtime.memories,
            runtime.transcripts,
            runtime.diary,
            scope,
            generation,
            by,
            reason,
            force=force,
            publish=publish,
        ),
        reject=lambda scope, generation, by, reason: decisions.reject(
            runtime.memories, runtime.diary, scope, generation, by, reason, publish=publish
        ),
    )
    app = make_app(settings, reader, ping, ready, guard, trigger, operator)
    loop = asyncio.new_event_loop()
    started = threading.Event()
    failure: list[BaseException] = []
    bound: list[int] = []

    def serve() -> None:
        asyncio.set_event_loop(loop)
        runner = web.AppRunner(app, access_log=None)
        try:
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, settings.api_host, settings.api_port)
            loop.run_until_complete(site.start())
            bound.append(runner.addresses[0][1])  # the real port when api_port is 0
        except BaseException as err:  # surfaced to the caller of start_api
            failure.append(err)
            started.set()
            loop.run_until_complete(runner.cleanup())
            loop.close()
            return
        started.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(runner.cleanup())
            loop.close()

    thread = threading.Thread(target=serve, name="dreamstream-api", daemon=True)
    thread.start()
    if not started.wait(30):
        raise ApiError("the HTTP API did not start within 30s")
    if failure:
        raise ApiError(
            f"cannot serve the HTTP API on {settings.api_host}:{settings.api_port}: {failure[0]}"
        ) from failure[0]
    host = f"[{settings.api_host}]" if ":" in settings.api_host else settings.api_host
    url = f"http://{host}:{bound[0]}"
    log.info("HTTP API on %s%s", url, " (bearer token required)" if settings.api_token else "")
    return ApiServer(url, loop, thread)
