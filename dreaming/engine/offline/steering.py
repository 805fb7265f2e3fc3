"""Steering in the offline engine: what it can apply of an operator's words without a model.

The operator's text ("keep travel and dietary preferences exact; drop small talk") is read as
clauses, each starting with a verb that keeps (keep, remember, track, focus on, prioritise) or
drops (drop, ignore, skip, forget, don't keep) and naming topics ("travel", "dietary
preferences"). A memory this plan would create is *about* a topic when it shares a word with it
(stemmed, stopwords aside) or their sentence embeddings are close (`TOPIC_COSINE`, the topic
embedded as "something about <topic>").

- a new memory about a drop topic, and about no keep topic, is not created (unless another
  action of the plan builds on it, e.g. a correction superseding an old value);
- a new memory about a keep topic is created with at least `KEPT_CONFIDENCE`, so the prune
  step ranks it into the core tier first.

Stored memories and memory-adds are left as they are: steering chooses what a pass writes, it
is not evidence against what memory holds. Clauses it cannot read are named in the notes, like
everything it applied.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.embedding import canonical_tokens
from dreaming.embedding.protocol import EmbedArray
from schemas import ActionPlan, CreateAction, MergeAction, Steering, SupersedeAction
from schemas.actions import MemoryAction

TOPIC_COSINE = 0.27
"""all-MiniLM-L6-v2, "something about <topic>" against a one-sentence memory (sentences written for
the tests): on topic 0.27-0.45, unrelated 0.0-0.23."""
KEPT_CONFIDENCE = 0.95
_KEEP = r"(?:always\s+)?(?:keep|remember|track|retain|record|focus\s+on|prioriti[sz]e|care\s+about)"
_DROP = (
    r"(?:drop|ignore|skip|discard|forget|leave\s+out|"
    r"(?:do\s+not|don't|dont|never)\s+(?:keep|remember|track|record|store|save))"
)
_VERB = re.compile(rf"^\s*(?:(?P<keep>{_KEEP})|(?P<drop>{_DROP}))\b\s*(?P<rest>.*)$", re.IGNORECASE)
_LEAD = re.compile(
    r"^(?:(?:anything|everything|all|any|things|stuff|the|only|memories|facts)\s+)*(?:about|on|of|regarding)?\s*",
    re.IGNORECASE,
)
_TRAIL = re.compile(r"\s+(?:exact(?:ly)?|precisely|in\s+detail|verbatim|carefully|as\s+(?:said|stated))\s*$", re.I)
_TOPIC_SPLIT = re.compile(r"\s*(?:,|\band\b|\bor\b|&|/)\s*", re.IGNORECASE)
_CLAUSE_SPLIT = re.compile(r"[.;\n]+|,\s*(?=(?:and\s+)?(?:" + _KEEP + "|" + _DROP + r")\b)", re.IGNORECASE)


@dataclass(frozen=True)
class SteeringRules:
    keep: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()
    """Clauses that start with no verb the rules know."""

    @property
    def empty(self) -> bool:
        return not (self.keep or self.drop)


def read_steering(texts: Sequence[str]) -> SteeringRules:
    keep: list[str] = []
    drop: list[str] = []
    unread: list[str] = []
    for text in texts:
        for clause in _CLAUSE_SPLIT.split(text):
            clause = clause.strip().removeprefix("and ").strip()
            if not clause:
                continue
            found = _VERB.match(clause)
            if found is None:
                unread.append(clause)
                continue
            rest = _TRAIL.sub("", _LEAD.sub("", found["rest"].strip().rstrip("!"))).strip()
            topics = [t for t in (_LEAD.sub("", part).strip() for part in _TOPIC_SPLIT.split(rest)) if t]
            (keep if found["keep"] else drop).extend(topics)
    return SteeringRules(tuple(dict.fromkeys(keep)), tuple(dict.fromkeys(drop)), tuple(unread))


def steer_plan(plan: ActionPlan, steering: Sequence[Steering], embed: EmbedArray) -> tuple[ActionPlan, list[str]]:
    """The plan with the steering applied, and notes saying what was applied."""
    if not steering:
        return plan, []
    rules = read_steering([s.text for s in steering])
    notes = [f"steering: could not read {clause!r} (say keep ... or drop ...)" for clause in rules.unread]
    creates = [a for a in plan.actions if isinstance(a, CreateAction)]
    if rules.empty or not creates:
        if not rules.empty:
            notes.append(f"steering: keep {list(rules.keep)}, drop {list(rules.drop)}: no new memory to steer")
        return plan, notes
    topics = [*rules.keep, *rules.drop]
    similarity = embed([a.text for a in creates]) @ embed([f"something about {t}" for t in topics]).T
    referenced = _referenced_refs(plan.actions)
    dropped: dict[str, str] = {}
    kept: dict[str, str] = {}
    for row, action in zip(similarity, creates):
        words = canonical_tokens(action.text)
        about = [t for t, score in zip(topics, row) if score >= TOPIC_COSINE or words & canonical_tokens(t)]
        keep = [t for t in about if t in rules.keep]
        drop = [t for t in about if t in rules.drop]
        if keep:
            kept[action.ref] = keep[0]
        elif drop and action.ref not in referenced:
            dropped[action.ref] = drop[0]
    actions: list[MemoryAction] = []
    for step in plan.actions:
        if isinstance(step, CreateAction) and step.ref in dropped:
            notes.append(f"steering: not created, about {dropped[step.ref]!r}: {step.text[:80]!r}")
            continue
        if isinstance(step, CreateAction) and step.ref in kept and step.confidence < KEPT_CONFIDENCE:
            step = step.model_copy(update={"confidence": KEPT_CONFIDENCE})
            notes.append(f"steering: kept for the core tier, about {kept[step.ref]!r}: {step.text[:80]!r}")
        actions.append(step)
    if not dropped and not kept:
        notes.append(f"steering: keep {list(rules.keep)}, drop {list(rules.drop)}: no new memory was about them")
    return ActionPlan(actions=tuple(actions)), notes


def _referenced_refs(actions: Sequence[MemoryAction]) -> set[str]:
    """Create-refs another action names (a replacement, a merge survivor or duplicate)."""
    refs: set[str] = set()
    for action in actions:
        if isinstance(action, SupersedeAction):
            refs.update((action.target, action.replacement))
        elif isinstance(action, MergeAction):
            refs.update((action.survivor, *action.duplicates))
        elif not isinstance(action, CreateAction):
            refs.add(action.target)
    return refs
