"""Turn a model reply into a validated ActionPlan, or say exactly why it cannot be one.

An empty plan is a real answer ("nothing to change"), so nothing unusable may ever become one:
a refusal, an empty reply, broken JSON, a schema violation or an invented id each raise. Broken
output (`InvalidReply`) is worth one repair call with the problem fed back; a refusal
(`ModelRefused`) is not, because asking again only spends tokens on the same answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from dreaming.engine.base import EngineError
from schemas import ActionPlan, ArchiveAction, CreateAction, MergeAction, SupersedeAction, UpdateAction
from schemas.actions import MemoryAction
from schemas.validation import MAX_JSON_DEPTH, json_too_deep

_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?(.*?)\n?```$", re.DOTALL)
_MAX_ERRORS_REPORTED = 5


class ModelRefused(EngineError):
    """The model declined or returned nothing: the pass fails without a repair call."""


class InvalidReply(EngineError):
    """The reply is not a usable plan (bad JSON, wrong schema, invented ids): one repair call may fix it."""


@dataclass(frozen=True)
class ModelReply:
    """The parts of a chat completion that decide whether it holds a plan."""

    content: str | None
    finish_reason: str | None = None
    refusal: str | None = None


def parse_plan(reply: ModelReply, *, memory_ids: Collection[str], message_ids: Collection[str]) -> ActionPlan:
    """`memory_ids` are those the prompt showed; `message_ids` those the snapshot's transcript holds."""
    _raise_on_refusal(reply)
    plan = _validate(_json_object(reply))
    _check_ids(plan, frozenset(memory_ids), frozenset(message_ids))
    return plan


def _raise_on_refusal(reply: ModelReply) -> None:
    if reply.finish_reason == "content_filter":
        raise ModelRefused(
            "model refused: the provider's content filter stopped the reply (finish_reason content_filter)"
        )
    if reply.refusal:
        raise ModelRefused(f"model refused: {reply.refusal.strip()[:300]!r}")
    if not (reply.content or "").strip():
        raise ModelRefused(f"model returned an empty reply (finish_reason {reply.finish_reason})")


def _json_object(reply: ModelReply) -> dict[str, Any]:
    text = (reply.content or "").strip()
    if fenced := _FENCE.match(text):  # some models wrap JSON in a code fence despite being told not to
        text = fenced.group(1).strip()
    if json_too_deep(text.encode("utf-8", "surrogatepass")):  # json.loads would raise RecursionError
        raise InvalidReply(f"reply nests JSON deeper than {MAX_JSON_DEPTH} levels")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        data = _object_inside_prose(text)
        if data is None:
            cut_off = " (the reply was cut off at the token limit)" if reply.finish_reason == "length" else ""
            raise InvalidReply(
                f"reply is not valid JSON: {err.msg} at line {err.lineno} column {err.colno}{cut_off}"
            ) from err
    except ValueError as err:  # an integer of over 4,300 digits
        raise InvalidReply(f"reply is not valid JSON: {err}") from err
    if not isinstance(data, dict):
        raise InvalidReply(f"reply is JSON but a {type(data).__name__}, not an object with an 'actions' list")
    if "refusal" in data and "actions" not in data:
        raise ModelRefused(f"model refused: {str(data['refusal'])[:300]!r}")
    return data


def _object_inside_prose(text: str) -> dict[str, Any] | None:
    """The JSON object in "Here is the plan: {...}", which some models write despite the instructions."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(text[start : end + 1])
    except ValueError:  # not JSON, or an integer of over 4,300 digits
        return None
    return data if isinstance(data, dict) else None


def _validate(data: dict[str, Any]) -> ActionPlan:
    try:
        return ActionPlan.model_validate(data)
    except ValidationError as err:
        problems = [f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in err.errors()]
        more = f" (and {len(problems) - _MAX_ERRORS_REPORTED} more)" if len(problems) > _MAX_ERRORS_REPORTED else ""
        raise InvalidReply(
            f"reply does not match the plan schema: {'; '.join(problems[:_MAX_ERRORS_REPORTED])}{more}"
        ) from err


def cited_memory_ids(action: MemoryAction) -> tuple[str, ...]:
    if isinstance(action, (UpdateAction, ArchiveAction)):
        return (action.target,)
    if isinstance(action, SupersedeAction):
        return (action.target, action.replacement)
    if isinstance(action, MergeAction):
        return (action.survivor, *action.duplicates)
    return ()


def cited_message_ids(action: MemoryAction) -> tuple[str, ...]:
    return () if isinstance(action, MergeAction) else action.evidence_message_ids


def _check_ids(plan: ActionPlan, memory_ids: frozenset[str], message_ids: frozenset[str]) -> None:
    refs = [a.ref for a in plan.actions if isinstance(a, CreateAction)]
    problems: list[str] = []
    clashing = sorted(set(refs) & memory_ids)
    if clashing:
        problems.append(f"create refs reuse existing memory ids: {clashing}")
    known_memories = memory_ids | set(refs)
    invented_memories = _unique(i for a in plan.actions for i in cited_memory_ids(a) if i not in known_memories)
    if invented_memories:
        problems.append(f"cites memory ids not in the prompt's memory list: {invented_memories}")
    pruned = [a.target for a in plan.actions if isinstance(a, ArchiveAction) and a.prune]
    if pruned:  # pruning to the cap is the pass's own job; a model archives only on evidence
        problems.append(f"archive with prune=true is not the model's to decide: {pruned}")
    invented_messages = _unique(i for a in plan.actions for i in cited_message_ids(a) if i not in message_ids)
    if invented_messages:
        problems.append(f"cites message ids not in the transcript: {invented_messages}")
    if problems:
        raise InvalidReply("; ".join(problems))


def _unique(ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ids))
