"""Every answer is JSON, errors included, and every route but the probes needs the token."""

from __future__ import annotations

import hmac
import logging
from contextvars import ContextVar

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from confluent_kafka import KafkaException

from consumers.api.guard import ReadsBusy, StoreBusy
from consumers.api.params import BadRequest, error_response
from consumers.api.ui_paths import is_ui_path
from dreaming.store import quarantine as decisions
from schemas import ScopeError

log = logging.getLogger(__name__)

OPEN_PATHS = frozenset({"/healthz", "/readyz", "/openapi.json"})
"""The probes and the API's description answer without a token: they reveal nothing about any
scope. So do the review page's static files (`/ui/`, routes/ui.py): the page sends the token on the
requests that read data."""


def is_open(path: str) -> bool:
    return path in OPEN_PATHS or is_ui_path(path)


@web.middleware
async def json_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException as exc:  # aiohttp's own (unknown route, wrong method): JSON too
        if exc.status < 400:
            raise
        return error_response(exc.status, exc.reason, headers={k: v for k, v in exc.headers.items() if k == "Allow"})
    except (ScopeError, BadRequest) as exc:
        return error_response(400, str(exc))
    except decisions.DecisionRefused as exc:
        return error_response(409, str(exc))
    except LookupError as exc:
        return error_response(404, str(exc).strip("'\""))
    except ReadsBusy as exc:
        return error_response(429, str(exc), headers={"Retry-After": str(exc.retry_after_s)})
    except StoreBusy as exc:
        return error_response(503, str(exc))
    except KafkaException as exc:
        log.warning("API: Kafka: %s", exc)
        return error_response(503, f"Kafka: {exc}")
    except Exception:  # the HTTP boundary: logged with its traceback, answered as JSON
        log.exception("API: %s %s failed", request.method, request.path)
        return error_response(500, "internal error (see the worker's log)")


ROLE: ContextVar[str] = ContextVar("dreamstream_api_role", default="agent")
"""The caller's role, "agent" or "operator", set by authentication for the request's own task
(each request runs in a task of its own, so roles never leak between requests)."""


def bearer_auth(token: bytes | None, operator_token: bytes | None = None) -> Middleware:
    """With a token, every route outside OPEN_PATHS needs `Authorization: Bearer <token>`.

    Roles: with `operator_token` set, it names the operator and `token` an agent; without it there
    is one role, and whoever passes (anyone, when no token is set either) is an operator, as before
    roles existed."""

    @web.middleware
    async def auth(request: web.Request, handler: Handler) -> web.StreamResponse:
        role = "operator" if operator_token is None else "agent"
        if token is not None and not is_open(request.path):
            scheme, _, given = request.headers.get("Authorization", "").partition(" ")
            presented = given.strip().encode()
            is_operator = operator_token is not None and hmac.compare_digest(presented, operator_token)
            if scheme.lower() != "bearer" or not (is_operator or hmac.compare_digest(presented, token)):
                return error_response(
                    401, "missing or wrong bearer token", headers={"WWW-Authenticate": 'Bearer realm="dreamstream"'}
                )
            if is_operator:
                role = "operator"
        reset = ROLE.set(role)
        try:
            return await handler(request)
        finally:
            ROLE.reset(reset)

    return auth


def is_operator(request: web.Request) -> bool:
    """Whether the caller of `request` (the one this task serves) holds the operator role."""
    return ROLE.get() == "operator"


def require_operator(request: web.Request, what: str) -> None:
    """403 unless the caller holds the operator role."""
    if not is_operator(request):
        raise web.HTTPForbidden(reason=f"{what} needs the operator role (the operator token)")
