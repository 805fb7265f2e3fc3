"""The consolidation worker's HTTP API: health, readiness, a scope's memories, diary and
generations, and manual triggers.

It runs in a background thread of the worker process with its own event loop (`start_api`), on
`api_host:api_port` (127.0.0.1 by default). Whenever `api_token` is set, every route except the
two probes and the review page's static files needs `Authorization: Bearer <api_token>`; the
settings refuse a non-loopback host without a token.

| route | answer |
|---|---|
| `GET /healthz` | 200 while the process serves requests |
| `GET /readyz` | 200 when the store answers and the consumer has partitions, else 503 |
| `GET /scopes[?tenant=T]` | the scopes the store knows |
| `GET /scopes/{tenant}/{agent}/{subject}/memories[?generation=N&include_inactive=true&limit=L&cursor=C]` | a generation's memories (default: the active one, active records); with `limit`, a page and `next_cursor`; `?as_of=T`: what held then |
| `GET /scopes/{tenant}/{agent}/{subject}/memories/search?q=TEXT[&k=10]` | the closest memories with scores, memory-adds not yet consolidated included (`consolidated: false`) |
| `GET /scopes/{tenant}/{agent}/{subject}/memories/{memory_id}` | one memory as readers see it now, and what it was in every kept generation |
| `POST /scopes/{tenant}/{agent}/{subject}/memories` | 202: a memory-add for the next pass, searchable once indexed (`routes/writes.py`) |
| `PATCH`, `DELETE /scopes/{tenant}/{agent}/{subject}/memories/{memory_id}` | 202: a correction the next pass applies |
| `PUT`, `GET /scopes/{tenant}/{agent}/{subject}/steering`, `/tenants/{tenant}/steering` | steering (`routes/steering.py`) |
| `GET /scopes/{tenant}/{agent}/{subject}/diary` | one entry per pass and operator decision |
| `GET /scopes/{tenant}/{agent}/{subject}/generations` | the pointer: active generation and the kept ones |
| `POST /scopes/{tenant}/{agent}/{subject}/trigger` | 202 `{"request_id", "scope"}`; body `{"reason": "…"}` optional |
| `POST /scopes/{tenant}/{agent}/{subject}/rollback` | body `{"by", "reason", "generation"?}`: an earlier kept generation is active again |
| `POST /scopes/{tenant}/{agent}/{subject}/generations/{n}/approve` or `/reject` | body `{"by", "reason", "force"?}`: an operator decision about a quarantined generation |
| `GET /ui/` | the review page's static files, served without the token (`routes/ui.py`) |
| `GET /review/...` | what the review page reads: session role, tenants, scopes, timeline, diff, quarantine, search (`routes/review.py`) |


Errors are JSON `{"error": "…"}`: 400 for a malformed scope or parameter (an unknown or repeated
query parameter included), 401 for a missing or wrong token, 403 for an agent's token where the
operator's is needed (with `api_operator_token` set), 404 for an unknown scope, generation
or memory (a trigger needs no known scope: a scope's first pass is triggered before the store
knows it), 409 for a decision that does not apply to the generation as it stands, 429 (with
`Retry-After`) at once when every read thread is busy and the read queue is full, 503 while a
decision waited too long for a running pass or Kafka refused the control event.

The package: `server.py` (the thread and its loop), `app.py` (the application), `context.py`
(what routes reach), `middleware.py` (JSON errors, the token), `params.py` (reading a request),
`guard.py` (reads on their own bounded pool, writes beside the worker), `routes/` (one module per
concern), `ui/` (the review page: HTML, CSS, JavaScript modules).
"""

from consumers.api.app import make_app
from consumers.api.context import ApiContext, Decisions
from consumers.api.guard import StoreBusy, StoreGuard
from consumers.api.params import BadRequest
from consumers.api.routes.reads import search_hit_json
from consumers.api.server import ApiError, ApiServer, start_api

__all__ = [
    "ApiContext",
    "ApiError",
    "ApiServer",
    "BadRequest",
    "Decisions",
    "StoreBusy",
    "StoreGuard",
    "make_app",
    "search_hit_json",
    "start_api",
]
