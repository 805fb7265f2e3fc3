"""Every answer is JSON, errors included, and every route but the probes needs the token."""

from __future__ import annotations

import hmac
import logging

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from confluent_kafka import KafkaException

from consumers.api.guard import StoreBusy
from consumers.api.params import BadRequest, error_response
from consumers.store import quarantine as decisions
from schemas import ScopeError

log = logging.getLogger(__name__)

OPEN_PATHS = frozenset({"/healthz", "/readyz", "/openapi.json"})
"""The probes and the API's description answer without a token: they reveal nothing about any scope."""


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
    except StoreBusy as exc:
        return error_response(503, str(exc))
    except KafkaException as exc:
        log.warning("API: Kafka: %s", exc)
        return error_response(503, f"Kafka: {exc}")
    except Exception:  # the HTTP boundary: logged with its traceback, answered as JSON
        log.exception("API: %s %s failed", request.method, request.path)
        return error_response(500, "internal error (see the worker's log)")


def bearer_auth(token: bytes | None) -> Middleware:
    """With a token, every route outside OPEN_PATHS needs `Authorization: Bearer <token>`."""

    @web.middleware
    async def auth(request: web.Request, handler: Handler) -> web.StreamResponse:
        if token is not None and request.path not in OPEN_PATHS:
            scheme, _, given = request.headers.get("Authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token):
                return error_response(
                    401, "missing or wrong bearer token", headers={"WWW-Authenticate": 'Bearer realm="dreamstream"'}
                )
        return await handler(request)

    return auth
