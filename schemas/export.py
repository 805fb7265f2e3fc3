"""Export every contract as JSON Schema into `schemas/json/`. `python -m schemas.export` rewrites
them; `python -m schemas.export --check` exits 1 when the checked-in files drift from the models."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from schemas.actions import ActionPlan
from schemas.audit import AuditEvent
from schemas.cloudevents import schema_id_url
from schemas.dead_letter import DeadLetter
from schemas.events import Contract, ControlEvent, ConversationTurn, MemoryAdd
from schemas.jobs import DreamJob
from schemas.memory import MemoryRecord

JSON_DIR = Path(__file__).parent / "json"
OUTPUTS = frozenset({"dream_job", "audit_event", "memory_record", "dead_letter"})
"""What this project produces for others: their schemas leave unknown fields allowed, so a
subscriber validating with an older copy accepts an additive change (see schemas/audit.py).
Inputs stay closed: an unknown field from a producer is dead-lettered with its name."""
# Each contract as the adapter that renders it (the audit event is a discriminated union of
# contracts, no model of its own); typed as adapters of `Contract` so that pydantic >= 2.14,
# whose `TypeAdapter` takes a `TypeForm`, checks it as the older releases do.
CONTRACTS: dict[str, TypeAdapter[Contract]] = {
    "conversation_turn": TypeAdapter(ConversationTurn),
    "memory_add": TypeAdapter(MemoryAdd),
    "control_event": TypeAdapter(ControlEvent),
    "dream_job": TypeAdapter(DreamJob),
    "audit_event": TypeAdapter(AuditEvent),
    "memory_record": TypeAdapter(MemoryRecord),
    "dead_letter": TypeAdapter(DeadLetter),
    "action_plan": TypeAdapter(ActionPlan),
}


def rendered() -> dict[str, str]:
    out = {}
    for name, adapter in CONTRACTS.items():
        schema = adapter.json_schema(mode="validation")
        if name in OUTPUTS:
            schema = _open(schema)
        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": schema_id_url(name), **schema}
        out[f"{name}.schema.json"] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    return out


def _open(node: Any) -> Any:
    """The schema (any JSON node of it) without `additionalProperties: false` anywhere."""
    if isinstance(node, dict):
        return {k: _open(v) for k, v in node.items() if not (k == "additionalProperties" and v is False)}
    if isinstance(node, list):
        return [_open(v) for v in node]
    return node


def drift() -> list[str]:
    """Names of files that are missing or differ from what the models render."""
    return [
        name
        for name, text in rendered().items()
        if not (JSON_DIR / name).exists() or (JSON_DIR / name).read_text() != text
    ]


def main(argv: list[str]) -> int:
    if "--check" in argv:
        stale = drift()
        if stale:
            print(f"JSON Schemas out of date: {', '.join(stale)}; run `python -m schemas.export`", file=sys.stderr)
            return 1
        return 0
    JSON_DIR.mkdir(exist_ok=True)
    for name, text in rendered().items():
        (JSON_DIR / name).write_text(text)
    print(f"wrote {len(CONTRACTS)} schemas to {JSON_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
