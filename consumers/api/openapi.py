"""The API's OpenAPI 3.1 document, built from the routes themselves.

Every handler carries its `Operation` (`@documented(...)`, written beside the handler in its route
module); `document(app)` walks the application's router, so the document lists exactly the routes
the app serves. A route whose handler has no `Operation` stops the app from being built
(`UndocumentedRoute`): a new route cannot be forgotten. A handler that serves a page rather than
the API (the review page's static files under `/ui/`) says so with `@page`, and is left out: it
answers HTML and scripts to a browser, no client calls it.

Schemas of records come from the pydantic models (`MemoryRecord`, `GenerationInfo`, `DiaryEntry`),
so the document follows the contracts; the rest are small JSON Schemas written with the helpers
below (`obj`, `array`, `ref`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Literal, TypeVar

from aiohttp import web
from aiohttp.typedefs import Handler
from pydantic import BaseModel

Schema = dict[str, Any]
H = TypeVar("H", bound=Callable[..., Any])
_ATTRIBUTE = "openapi_operation"
_PAGE_ATTRIBUTE = "openapi_page"
_PATH_PARAM = re.compile(r"\{(\w+)\}")

STRING: Schema = {"type": "string"}
INTEGER: Schema = {"type": "integer"}
BOOLEAN: Schema = {"type": "boolean"}
NUMBER: Schema = {"type": "number"}
DATE_TIME: Schema = {"type": "string", "format": "date-time"}


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def obj(required: Mapping[str, Schema] | None = None, optional: Mapping[str, Schema] | None = None) -> Schema:
    """An object with these properties; additional ones allowed (answers may grow, additively)."""
    properties = {**(required or {}), **(optional or {})}
    out: Schema = {"type": "object", "properties": properties}
    if required:
        out["required"] = list(required)
    return out


@dataclass(frozen=True)
class Param:
    name: str
    schema: Schema
    description: str
    required: bool = False
    where: Literal["query", "path"] = "query"

    def to_json(self) -> Schema:
        return {
            "name": self.name,
            "in": self.where,
            "required": self.required or self.where == "path",
            "description": self.description,
            "schema": self.schema,
        }


PATH_PARAMS = {
    "tenant": Param("tenant", STRING, "the scope's tenant (1-128 letters, digits or ._@:+-)", where="path"),
    "agent": Param("agent", STRING, "the scope's agent", where="path"),
    "subject": Param("subject", STRING, "the scope's subject (a user, a thread)", where="path"),
    "memory_id": Param("memory_id", STRING, "a memory's id", where="path"),
    "generation": Param("generation", {"type": "integer", "minimum": 1}, "a kept generation's number", where="path"),
}


@dataclass(frozen=True)
class Operation:
    summary: str
    description: str = ""
    params: tuple[Param, ...] = ()
    body: Schema | None = None
    body_required: bool = False
    status: int = 200
    response: Schema = field(default_factory=lambda: dict(obj()))
    errors: tuple[int, ...] = (400, 401, 404, 429)
    tag: str = "memory"
    open: bool = False
    """Served without the bearer token (the probes, this document)."""


def documented(operation: Operation) -> Callable[[H], H]:
    """Attach `operation` to a route handler; `document` reads it back."""

    def mark(handler: H) -> H:
        setattr(handler, _ATTRIBUTE, operation)
        return handler

    return mark


def page(handler: H) -> H:
    """Mark a handler that serves a page's files, not the API: `document` leaves its routes out
    (and asks no `Operation` of it)."""
    setattr(handler, _PAGE_ATTRIBUTE, True)
    return handler


def is_page(handler: Callable[..., Any]) -> bool:
    return getattr(handler, _PAGE_ATTRIBUTE, False) is True


def documented_route(operation: Operation, handler: Handler) -> Handler:
    """`handler` under an operation of its own, for a handler serving several routes (PATCH and
    DELETE of one memory, a scope's and a tenant's steering): each route gets a thin copy."""

    async def route(request: web.Request) -> web.StreamResponse:
        return await handler(request)

    route.__name__ = getattr(handler, "__name__", "route")
    return documented(operation)(route)


class UndocumentedRoute(RuntimeError):
    pass


_ERRORS = {
    400: "a malformed scope, parameter or body (the message names it)",
    401: "a missing or wrong bearer token",
    403: "the token lacks the role this route needs",
    404: "an unknown scope, generation or memory",
    409: "the decision does not apply to the generation as it stands",
    429: "too many requests in flight; retry after `Retry-After` seconds",
    503: "the store stayed busy, or Kafka refused the event; retry",
}


def _component_schemas() -> dict[str, Schema]:
    # Imported here: the store's models pull in qdrant-client, which `documented` users need not.
    from dreaming.store.diary import DiaryEntry
    from dreaming.store.memories import GenerationInfo
    from schemas import MemoryRecord

    out: dict[str, Schema] = {"Error": obj({"error": STRING})}
    model: type[BaseModel]
    for model in (MemoryRecord, GenerationInfo, DiaryEntry):
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}", mode="serialization")
        out.update(schema.pop("$defs", {}))
        out[model.__name__] = schema
    return out


def _operation_json(op: Operation, path: str, operation_id: str) -> Schema:
    own = {p.name for p in op.params if p.where == "path"}
    params = []
    for name in _PATH_PARAM.findall(path):
        if name in own:
            continue
        if name not in PATH_PARAMS:
            raise UndocumentedRoute(f"path parameter {{{name}}} of {path} is not described: add it to the operation")
        params.append(PATH_PARAMS[name].to_json())
    params += [p.to_json() for p in op.params]
    error_content = {"application/json": {"schema": ref("Error")}}
    answer = {"application/json": {"schema": op.response}}
    responses: Schema = {str(op.status): {"description": op.summary, "content": answer}}
    for status in op.errors if not op.open else ():
        responses[str(status)] = {"description": _ERRORS[status], "content": error_content}
    out: Schema = {
        "operationId": operation_id,
        "summary": op.summary,
        "tags": [op.tag],
        "parameters": params,
        "responses": responses,
    }
    if op.description:
        out["description"] = op.description
    if op.body is not None:
        out["requestBody"] = {"required": op.body_required, "content": {"application/json": {"schema": op.body}}}
    if op.open:
        out["security"] = []
    return out


def _operation_id(method: str, path: str) -> str:
    words = [w for w in re.split(r"[^A-Za-z0-9]+", path.replace("{", "by_").replace("}", "")) if w]
    return "_".join([method.lower(), *words])


def routes_of(app: web.Application) -> list[tuple[str, str, Callable[..., Any]]]:
    """(method, path, handler) of every API route the app serves: HEAD left out (aiohttp adds one
    beside every GET), and so are the routes of `page` handlers. The path is the canonical one:
    `{name}` for every variable part, as OpenAPI writes it (a pattern such as
    `{action:approve|reject}` is the operation's to describe)."""
    out = []
    for route in app.router.routes():
        if route.method == "HEAD" or route.resource is None or is_page(route.handler):
            continue
        out.append((route.method, route.resource.canonical, route.handler))
    return out


def document(app: web.Application) -> Schema:
    """The OpenAPI 3.1 document of what `app` serves; raises UndocumentedRoute for a handler
    without an `Operation`."""
    paths: dict[str, Schema] = {}
    for method, path, handler in routes_of(app):
        op = getattr(handler, _ATTRIBUTE, None)
        if not isinstance(op, Operation):
            raise UndocumentedRoute(f"{method} {path} has no OpenAPI operation: decorate its handler with @documented")
        paths.setdefault(path, {})[method.lower()] = _operation_json(op, path, _operation_id(method, path))
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "dreamstream",
            "version": package_version(),
            "description": "The consolidation worker's HTTP API: an agent's curated memory, its context, "
            "writes and corrections, and the operator's decisions.",
        },
        "servers": [{"url": "/"}],
        "security": [{"bearer": []}],
        "paths": dict(sorted(paths.items())),
        "components": {
            "schemas": _component_schemas(),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


def package_version() -> str:
    try:
        return version("dreamstream")
    except PackageNotFoundError:
        return "0+unknown"
