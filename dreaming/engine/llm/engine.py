"""The LLM engine: a model proposes the plan through litellm; the pass still checks every action.

Any provider litellm knows (OpenAI-compatible servers, ollama, ...) works through `llm_model` /
`llm_api_base`. A pass reads every new message: they are cut into chunks that fit the model's
context (`chunks.py`), each sent with the memories it touches, one call per chunk (plus one repair
call when a reply is not a usable plan), and the chunks' plans are joined into one (`merge.py`).
At most `llm_max_calls_per_pass` calls: the messages of the chunks left over are reported as
unread, and the pass's watermark stops before them, so the next pass reads them.

A chunk that fails after others succeeded ends the pass there (its messages and the rest are
unread); a failure of the first chunk fails the pass, memory unchanged. The model only proposes:
its plan is validated here (schema, ids it was shown) and again by the pass (apply and gate), so
a model that obeys a prompt injection still cannot delete anything it has no evidence for.
"""

from __future__ import annotations

import logging

from dreaming.embedding import make_embedder
from dreaming.engine.base import Curated, EngineError, EngineResult, Search, Verified
from dreaming.engine.llm.chunks import Chunk, ChunkPlanner, TokenBudget
from dreaming.engine.llm.client import ModelClient, PromptTooLong, Spend
from dreaming.engine.llm.context import PromptContext, PromptLimits
from dreaming.engine.llm.merge import ChunkPlan, merge_plans, scoped_refs
from dreaming.engine.llm.parse import InvalidReply, parse_plan
from dreaming.engine.llm.prompt import ChatMessage, build_messages, repair_messages
from dreaming.engine.llm.schema import TOKENS_PER_ACTION, response_format
from dreaming.engine.offline.verifier import verify_claims
from dreaming.signals import Signals
from dreaming.snapshot import Snapshot
from schemas import ActionPlan
from schemas.settings import Settings

log = logging.getLogger(__name__)


class LlmEngine:
    name = "llm"

    def __init__(self, settings: Settings, limits: PromptLimits | None = None) -> None:
        self._client = ModelClient(settings)
        self._limits = limits or PromptLimits()
        self._budget = TokenBudget(settings.llm_context_tokens, settings.llm_reply_tokens, settings.llm_chars_per_token)
        self._max_calls = settings.llm_max_calls_per_pass
        self._embed = make_embedder(settings).embed

    def verify(
        self, snapshot: Snapshot, candidate: Curated, search: Search, *, top_k: int, max_claims: int
    ) -> Verified:
        """The offline engine's verifier (the same rules, no model call): a verify judged by the
        model is future work."""
        return verify_claims(snapshot, candidate, search, top_k=top_k, max_claims=max_claims, embed=self._embed)

    def propose(self, snapshot: Snapshot, signals: Signals) -> EngineResult:
        if not signals.has_signal:
            return EngineResult(
                plan=ActionPlan(), notes=("no signal in new messages or memory-adds: the model was not called",)
            )
        spend = Spend()
        try:
            plan, unread, notes = self._read_all(snapshot, signals, spend)
        except EngineError as err:
            # The pass records only the reason; the spend of a failed pass is worth a log line.
            log.warning(
                "llm pass on %s failed after %d model calls (%d prompt + %d completion tokens, $%.6f, %.1f s): %s",
                snapshot.scope,
                spend.calls,
                spend.prompt_tokens,
                spend.completion_tokens,
                spend.cost_usd,
                spend.seconds,
                err,
            )
            err.spent = _spent(ActionPlan(), signals, spend)
            raise
        notes.append(
            f"model: {spend.calls} calls, {spend.prompt_tokens} prompt + {spend.completion_tokens} completion "
            f"tokens, {spend.seconds:.1f} s ({self._client.model}, "
            f"{'structured output' if self._client.structured else 'JSON mode'})"
        )
        return _spent(plan, signals, spend, unread_message_ids=unread, notes=tuple(notes))

    def _read_all(
        self, snapshot: Snapshot, signals: Signals, spend: Spend
    ) -> tuple[ActionPlan, frozenset[str], list[str]]:
        """Every chunk in turn, within the call budget; the joined plan, the unread new message ids
        and the notes for the diary."""
        empty = build_messages(snapshot, _EMPTY, 0, structured=self._client.structured)
        fixed = self._budget.tokens("".join(m["content"] for m in empty))
        planner = ChunkPlanner(snapshot, signals.motives, self._limits, self._budget, self._embed, fixed)
        parts: list[ChunkPlan] = []
        notes: list[str] = []
        unread: frozenset[str] = frozenset()
        while (chunk := planner.next()) is not None:
            if spend.calls >= self._max_calls:
                unread = planner.unread_from(chunk.start)
                notes.append(
                    f"llm_max_calls_per_pass ({self._max_calls}) reached: {len(unread)} of {planner.new_messages} new "
                    "messages are left for the next pass"
                )
                break
            notes.append(_describe(chunk))
            try:
                plan = self._chunk_plan(snapshot, chunk, spend, notes)
            except PromptTooLong as err:
                if planner.retry_smaller(chunk):
                    notes.append(f"part {chunk.context.part}: {err}; read again in smaller parts")
                    continue
                raise EngineError(f"{err} (a single message with the memories it touches)") from err
            except EngineError as err:
                if not parts:
                    raise
                unread = planner.unread_from(chunk.start)
                notes.append(
                    f"part {chunk.context.part} failed ({err}): it and the {len(unread)} new messages from it on are "
                    "left for the next pass"
                )
                break
            scoped = scoped_refs(plan, chunk.context.part, chunk.context.memory_ids)
            newest = max((t.ts for t in chunk.context.messages), default=snapshot.job.requested_at)
            parts.append(ChunkPlan(chunk.context.part, scoped, newest))
            planner.created(scoped.actions, snapshot)
        merged, merge_notes = merge_plans(parts, snapshot) if parts else (ActionPlan(), [])
        notes.extend(merge_notes)
        if len(parts) > 1:
            notes.append(f"merge: {len(parts)} parts joined into one plan of {len(merged.actions)} actions")
        return merged, unread, notes

    def _chunk_plan(self, snapshot: Snapshot, chunk: Chunk, spend: Spend, notes: list[str]) -> ActionPlan:
        """One call; one repair call only when the first reply is not a usable plan (and the call
        budget allows it)."""
        context = chunk.context

        def messages(structured: bool) -> list[ChatMessage]:
            return build_messages(snapshot, context, self._limits.max_text_chars, chunk.motives, structured=structured)

        shown_messages = frozenset(t.message_id for t in context.messages)
        known_messages = frozenset(t.message_id for t in snapshot.transcript)
        schema = response_format(context.memory_ids, shown_messages, self._budget.reply_tokens)
        reply = self._client.complete(messages, schema, spend)
        try:
            return parse_plan(reply, memory_ids=context.memory_ids, message_ids=known_messages)
        except InvalidReply as first_problem:
            if spend.calls >= self._max_calls:
                raise InvalidReply(f"{first_problem} (no call left in the pass's budget to repair it)") from None
            notes.append(
                f"part {context.part}: first reply unusable ({first_problem}); asked the model once to repair it"
            )
            bad, problem = reply.content or "", str(first_problem)
            if reply.finish_reason == "length":  # cut off: ask for room for one action, which the grammar can close
                schema = response_format(
                    context.memory_ids, shown_messages, min(TOKENS_PER_ACTION, self._budget.reply_tokens)
                )
            reply = self._client.complete(
                lambda structured: repair_messages(messages(structured), bad, problem), schema, spend
            )
        try:
            return parse_plan(reply, memory_ids=context.memory_ids, message_ids=known_messages)
        except InvalidReply as second_problem:
            raise InvalidReply(f"{second_problem} (still unusable after one repair call)") from second_problem


_EMPTY = PromptContext(
    messages=(), new_message_ids=frozenset(), memories=(), pending_add_ids=frozenset(), memories_stored=0
)


def _describe(chunk: Chunk) -> str:
    context = chunk.context
    stored = len(context.memories) - len(context.pending_add_ids) - len(context.created_ids)
    note = (
        f"prompt part {context.part}: {len(context.new_message_ids)} new messages "
        f"(+{len(context.messages) - len(context.new_message_ids)} context), {len(context.pending_add_ids)} pending "
        f"memory-adds, {stored} of {context.memories_stored} stored memories, {len(context.created_ids)} created in "
        f"earlier parts; about {chunk.estimated_tokens} tokens of data"
    )
    if context.touched_left_out:
        note += f"; {context.touched_left_out} more touched memories did not fit beside this one message"
    return note


def _spent(
    plan: ActionPlan,
    signals: Signals,
    spend: Spend,
    unread_message_ids: frozenset[str] = frozenset(),
    notes: tuple[str, ...] = (),
) -> EngineResult:
    """A pass's result with what its model calls cost (a failed pass carries the spend too)."""
    return EngineResult(
        plan=plan,
        motives=signals.motives,
        model_calls=spend.calls,
        prompt_tokens=spend.prompt_tokens,
        completion_tokens=spend.completion_tokens,
        cost_usd=spend.cost_usd,
        model_seconds=spend.seconds,
        unread_message_ids=unread_message_ids,
        notes=notes,
    )
