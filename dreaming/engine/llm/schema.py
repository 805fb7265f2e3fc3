"""The JSON Schema a chunk's reply must match, sent as `response_format` (structured output).

It is the `ActionPlan` schema narrowed to one chunk: ids may only be those the chunk's prompt
shows (memory ids as enums, message ids as enums), so a provider that enforces the schema, or a
local model whose grammar is made from it, cannot invent one. Every field an action needs is
required and nothing else is offered (no `prune`, no `confidence`): a plan valid here is a valid
`ActionPlan`. Texts are bounded, and so is the number of actions, by what the reply budget can
hold (`TOKENS_PER_ACTION` each), so the grammar of a local model closes the plan before the token
limit cuts it off.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

MAX_ACTIONS = 40
TOKENS_PER_ACTION = 300
"""The most one action can take: 300 + 160 + 40 characters of text, four ids and the keys,
pretty-printed, at 2.5 characters a token."""
MAX_RATIONALE_CHARS = 160
MAX_TEXT_CHARS = 300
MAX_REF_CHARS = 40
_MEMORY = {"$ref": "#/$defs/memory_id"}
_MESSAGE = {"$ref": "#/$defs/message_id"}


def _string(max_length: int) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": max_length}


def _action(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    properties = {"kind": {"const": kind}, **fields, "rationale": _string(MAX_RATIONALE_CHARS)}
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def max_actions(reply_tokens: int) -> int:
    return max(1, min(MAX_ACTIONS, reply_tokens // TOKENS_PER_ACTION))


def plan_schema(memory_ids: Collection[str], message_ids: Collection[str], reply_tokens: int) -> dict[str, Any]:
    """The reply schema for a prompt showing these memories and transcript messages."""
    evidence = {"type": "array", "items": _MESSAGE, "minItems": 1, "maxItems": 4}
    text = _string(MAX_TEXT_CHARS)
    variants: list[dict[str, Any]] = []
    defs: dict[str, Any] = {}
    if message_ids:
        defs["message_id"] = {"enum": sorted(message_ids)}
        variants.append(
            _action("create", {"ref": _string(MAX_REF_CHARS), "text": text, "evidence_message_ids": evidence})
        )
    if memory_ids:
        defs["memory_id"] = {"enum": sorted(memory_ids)}
        variants.append(
            _action("merge", {"survivor": _MEMORY, "duplicates": {"type": "array", "items": _MEMORY, "minItems": 1}})
        )
    if memory_ids and message_ids:
        variants += [
            _action("update", {"target": _MEMORY, "text": text, "evidence_message_ids": evidence}),
            # the replacement may be a shown memory or the ref of a create in the same plan
            _action("supersede", {"target": _MEMORY, "replacement": _string(256), "evidence_message_ids": evidence}),
            _action("archive", {"target": _MEMORY, "evidence_message_ids": evidence}),
        ]
    actions: dict[str, Any] = {"type": "array", "maxItems": max_actions(reply_tokens) if variants else 0}
    if variants:
        actions["items"] = {"oneOf": variants}
    return {
        "type": "object",
        "properties": {"actions": actions},
        "required": ["actions"],
        "additionalProperties": False,
        "$defs": defs,
    }


def response_format(memory_ids: Collection[str], message_ids: Collection[str], reply_tokens: int) -> dict[str, Any]:
    schema = plan_schema(memory_ids, message_ids, reply_tokens)
    return {"type": "json_schema", "json_schema": {"name": "ActionPlan", "schema": schema, "strict": False}}
