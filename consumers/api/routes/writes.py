"""Agents write and correct memory: add a memory, correct or retire one.

Nothing here writes the store. A new memory is a memory-add on the memory-adds topic, and a
correction is a `correct` control event, both sent with the API's producer identity after the
validator both workers use has accepted them, so they take the path every input takes: the
stream worker counts them (a correction asks for a pass, like a trigger), the consolidation
worker indexes them (a memory-add is searchable, `consolidated: false`, once its index step has
read it), and the next pass applies them as a new generation, audited and reversible by rollback.

- `POST {scope}/memories`, body `{"text", "metadata"?, "source_message_ids"?, "memory_id"?}`:
  202 `{"scope", "memory_id", "status": "accepted"}` (409 when `memory_id` names a memory readers see);
- `PATCH {scope}/memories/{memory_id}`, body `{"text", "by", "reason"}`, and
  `DELETE {scope}/memories/{memory_id}`, body `{"by", "reason"}`: 202 `{"scope", "memory_id", "correction_id"}`.

A correction names a memory readers see now (active, or a memory-add not yet curated): any other
id is a 404. A protected memory needs the operator role (403 otherwise).
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from typing import TypeVar

from aiohttp import web
from pydantic import ValidationError

from consumers.api.context import ApiContext
from consumers.api.middleware import is_operator, require_operator
from consumers.api.params import BadRequest, json_fields, query_params, scope_of, text_field
from consumers.api.routes import SCOPE_PATH
from schemas import ControlEvent, MemoryAdd, MemoryCorrection
from schemas.errors import describe_validation_error

M = TypeVar("M", MemoryAdd, MemoryCorrection, ControlEvent)


def new_memory_id() -> str:
    return f"add-{uuid.uuid4().hex[:20]}"


def new_correction_id() -> str:
    return f"cor-{uuid.uuid4().hex[:20]}"


def routes(ctx: ApiContext) -> list[web.RouteDef]:
    async def add_memory(request: web.Request) -> web.Response:
        scope = scope_of(request)
        query_params(request)
        body = await json_fields(request, ("text",), ("metadata", "source_message_ids", "memory_id"))
        writes = ctx.write()
        given_id = body.get("memory_id")
        if given_id is not None and isinstance(given_id, str) and given_id:
            if await ctx.blocking(lambda: writes.memory(scope, given_id)) is not None:
                raise web.HTTPConflict(reason=f"memory {given_id!r} exists in {scope}: correct it with PATCH")
        fields = {
            "scope": scope,
            "memory_id": new_memory_id() if given_id is None else given_id,
            "text": body["text"],
            "ts": datetime.now(UTC),
            "source_message_ids": body.get("source_message_ids") or (),
            "metadata": body.get("metadata"),
        }
        add = _contract(MemoryAdd, fields)
        await asyncio.to_thread(writes.outbox.publish, "memory-adds", [add])
        return web.json_response({"scope": scope, "memory_id": add.memory_id, "status": "accepted"}, status=202)

    async def correct(request: web.Request) -> web.Response:
        scope, memory_id = scope_of(request), request.match_info["memory_id"]
        query_params(request)
        retire = request.method == "DELETE"
        body = await json_fields(request, ("by", "reason") if retire else ("text", "by", "reason"))
        by, reason = text_field(body, "by"), text_field(body, "reason")
        text = None if retire else text_field(body, "text")
        writes = ctx.write()
        current = await ctx.blocking(lambda: writes.memory(scope, memory_id))
        if current is None:
            raise LookupError(f"scope {scope!r} has no memory {memory_id!r} that readers see now")
        if current.protected:
            require_operator(request, f"correcting protected memory {memory_id!r}")
        correction = _contract(
            MemoryCorrection,
            {
                "memory_id": memory_id,
                "op": "retire" if retire else "update",
                "text": text,
                "by": by,
                "role": "operator" if is_operator(request) else "agent",
            },
        )
        event = _contract(
            ControlEvent,
            {
                "scope": scope,
                "action": "correct",
                "request_id": new_correction_id(),
                "reason": reason,
                "correction": correction,
            },
        )
        await asyncio.to_thread(writes.outbox.publish, "control", [event])
        return web.json_response(
            {"scope": scope, "memory_id": memory_id, "correction_id": event.request_id}, status=202
        )

    return [
        web.post(f"{SCOPE_PATH}/memories", add_memory),
        web.patch(f"{SCOPE_PATH}/memories/{{memory_id}}", correct),
        web.delete(f"{SCOPE_PATH}/memories/{{memory_id}}", correct),
    ]


def _contract(model: type[M], fields: dict[str, object]) -> M:
    """The event built from a request: a refusal is a 400 naming the field, as the validator words it."""
    try:
        return model.model_validate(fields)
    except ValidationError as err:
        raise BadRequest(describe_validation_error(err)) from None
