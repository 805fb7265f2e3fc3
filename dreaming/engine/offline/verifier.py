"""The offline engine's verify: check the existing claims against the transcripts, and change one
only on evidence (the verify phase calls it through `Engine.verify`).

For each existing, still active and unprotected claim the consolidation left as it was, look up
the transcript messages related to it (the scope-filtered transcript search, top-k, plus the
messages it cites) and let the rules (`dreaming.engine.offline.contradiction.judge`) decide, the
newest message first:

- **contradicted**: a newer user message states another value ("aisle, not window", "... is red"
  after "... is green"). The claim is superseded by a memory saying what the message says (an
  existing one if memory already says it), citing the contradicting message; when no replacement
  can be named (it would be a protected memory), it is archived with that evidence.
- **supported**: a newer message says the same again. Nothing changes.
- **silent**: no message mentions it. Nothing changes: transcripts get pruned, and silence is not
  evidence.

For the offline engine (`walked`), what messages state is judged here only against the pending
memory-adds; against any other claim only the changes messages state are. Its walk
(`transcript_pass`) met each message's statements with every memory live when it read them, those
of earlier passes included, and a second reading clause by clause, in a later pass, made what
memory holds depend on where the pass boundaries fell (a count said in passing in one long message
retired a memory that one pass keeps). A memory-add is new to memory: older messages never met
it. The LLM engine has no such walk: every claim is judged by every message.

Which claims are checked: every pending memory-add (new to memory), and every stored claim that
shares a specific word with a new user message (not the user's name, not a word most of the
scope's memories hold, see `corrections.generic_tokens`: such words tie a message to no claim in
the rules either); on a scope's first pass that is every claim. A stored
claim that no new message touches was checked against every older message by the pass that
first read them, so over its passes every claim meets every message newer than it. At most
`max_claims` are searched per pass (pending adds first, then the most touched); the rest are
named in the notes. Evidence must lie in the snapshot's window (apply and gate check it), so a
search hit outside the window is not used.
"""

from __future__ import annotations

from collections.abc import Sequence

from dreaming.embedding import LocalEmbedder, canonical_tokens
from dreaming.engine.base import SILENT, Curated, Finding, Search, Verdict, Verified
from dreaming.engine.offline.cased_turns import read_turns
from dreaming.engine.offline.contradiction import Claim, judge
from dreaming.engine.offline.corrections import generic_tokens
from dreaming.engine.offline.duplicates import is_duplicate
from dreaming.engine.offline.slots import Embed, SlotReader
from dreaming.engine.offline.turn_readings import TurnReadings
from dreaming.engine.offline.working_set import common_tokens_of, newest_evidence_ts
from dreaming.snapshot import Snapshot
from language.person import detect_user_name
from language.speakers import participants
from schemas import ArchiveAction, ConversationTurn, CreateAction, MemoryRecord, SupersedeAction
from schemas.actions import MemoryAction

VERIFIED_CONFIDENCE = 0.9


class _Verifier:
    def __init__(
        self, snapshot: Snapshot, candidate: Curated, search: Search, top_k: int, embed: Embed, walked: bool
    ) -> None:
        self.snapshot = snapshot
        self.candidate = candidate
        self.search = search
        self.top_k = top_k
        own = read_turns(snapshot)
        self.turns = {t.message_id: t for t in own}
        self.message_ts = {t.message_id: t.ts for t in own}
        self.readable = {t.message_id for t in own if t.message_id not in snapshot.injected_message_ids}
        self.walked = walked
        self.user_name = detect_user_name(t.content for t in own if t.role == "user" and t.message_id in self.readable)
        self.readings = TurnReadings(_answered_turns(own), self.user_name)
        """Each message read once for all the claims it is judged against."""
        self.newest_user_ts = max((t.ts for t in own if t.role == "user"), default=None)
        self.generic = generic_tokens(canonical_tokens(m.text) for m in candidate.active)
        self.people = participants(t.content for t in own if t.role == "user" and t.message_id in self.readable)
        self.slots = SlotReader(embed)
        self.common = common_tokens_of(candidate.active)
        self.actions: list[MemoryAction] = []
        self.notes: list[str] = []
        self._replacements: dict[str, str] = {}

    def claims(self, max_claims: int) -> list[MemoryRecord]:
        """The claims worth a search this pass, most urgent first (see the module docstring)."""
        existing = [
            m
            for m in self.snapshot.memories
            if m.is_active and not m.protected and self.candidate.records.get(m.memory_id) == m
        ]
        ignore = canonical_tokens(self.user_name) if self.user_name else frozenset()
        new_words = (
            frozenset().union(
                *(
                    canonical_tokens(t.content)
                    for i, t in self.turns.items()
                    if i in self.snapshot.new_message_ids and t.role == "user" and i in self.readable
                )
            )
            - ignore
            - self.generic
        )
        first_pass = self.snapshot.generation == 0
        ranked: list[tuple[int, int, MemoryRecord]] = []
        for memory in existing:
            evidence_ts = newest_evidence_ts(memory, self.message_ts)
            if self.newest_user_ts is None or evidence_ts >= self.newest_user_ts:
                continue  # no user message is newer than the claim: nothing can contradict it
            pending = memory.memory_id in self.snapshot.pending_add_ids
            shared = len(canonical_tokens(memory.text) & new_words)
            if pending or shared or first_pass:
                ranked.append((0 if pending else 1, -shared, memory))
        ranked.sort(key=lambda row: (row[0], row[1]))
        if len(ranked) > max_claims:
            left = [m.memory_id for _, _, m in ranked[max_claims:]]
            self.notes.append(
                f"verify: {len(left)} claims over the cap of {max_claims} wait for a later pass: "
                f"{', '.join(left[:10])}{' ...' if len(left) > 10 else ''}"
            )
        return [m for _, _, m in ranked[:max_claims]]

    def related(self, memory: MemoryRecord) -> list[ConversationTurn]:
        """Messages to judge the claim by, newest first: search hits and cited messages in the window."""
        ids = dict.fromkeys(
            t.message_id
            for t, _ in self.search(self.snapshot.scope, memory.text, self.top_k)
            if t.scope == self.snapshot.scope
        )
        ids.update(dict.fromkeys(memory.evidence_message_ids))
        found = [self.turns[i] for i in ids if i in self.turns and i in self.readable]
        return sorted(found, key=lambda t: (t.ts, t.message_id), reverse=True)

    def verify(self, memory: MemoryRecord) -> Finding:
        claim = Claim(memory.text, newest_evidence_ts(memory, self.message_ts))
        statements = not self.walked or memory.memory_id in self.snapshot.pending_add_ids
        for turn in self.related(memory):
            if turn.ts <= claim.evidence_ts:
                break  # newest first: the rest are older than the claim's evidence
            finding = judge(claim, self.readings.of(turn), self.slots, self.people, self.common, statements)
            if finding.judgement != "silent":
                return finding
        return SILENT

    def act(self, memory: MemoryRecord, finding: Finding) -> None:
        evidence = (finding.message_id,)
        kept = tuple(i for i in memory.evidence_message_ids if i in self.turns) if finding.keeps_claim else ()
        rationale = f"verify: the user said otherwise in {finding.message_id}: \u201c{finding.quote}\u201d"
        holder = self._holder_of(finding.replacement, finding.message_id) if finding.replacement else None
        if finding.replacement is None or (holder is not None and holder.protected):
            self.actions.append(
                ArchiveAction(target=memory.memory_id, evidence_message_ids=evidence, rationale=rationale)
            )
            return
        if holder is not None:
            replacement = holder.memory_id
        elif finding.replacement in self._replacements:
            replacement = self._replacements[finding.replacement]
        else:
            replacement = f"verify-{len(self._replacements) + 1}"
            self._replacements[finding.replacement] = replacement
            self.actions.append(
                CreateAction(
                    ref=replacement,
                    text=finding.replacement,
                    evidence_message_ids=(*dict.fromkeys((*kept, *evidence)),),
                    rationale=rationale,
                    confidence=VERIFIED_CONFIDENCE,
                )
            )
        self.actions.append(
            SupersedeAction(
                target=memory.memory_id, replacement=replacement, evidence_message_ids=evidence, rationale=rationale
            )
        )

    def _holder_of(self, text: str, message_id: str = "") -> MemoryRecord | None:
        """An active memory of the candidate that already says `text`: a duplicate of it, or the
        memory the plan made from the contradicting message that holds all of its words."""
        tokens = canonical_tokens(text)
        return next(
            (
                m
                for m in self.candidate.active
                if is_duplicate(tokens, canonical_tokens(m.text))
                or (message_id in m.evidence_message_ids and tokens <= canonical_tokens(m.text))
            ),
            None,
        )


def _answered_turns(turns: Sequence[ConversationTurn]) -> dict[str, ConversationTurn]:
    """message id -> the assistant turn just before it in its session (what a reply like "no, aisle" answers)."""
    last: dict[str, ConversationTurn] = {}
    answered: dict[str, ConversationTurn] = {}
    for turn in turns:
        if turn.role == "assistant":
            last[turn.session_id] = turn
        elif turn.session_id in last:
            answered[turn.message_id] = last[turn.session_id]
    return answered


def verify_claims(
    snapshot: Snapshot,
    candidate: Curated,
    search: Search,
    *,
    top_k: int = 8,
    max_claims: int = 100,
    embed: Embed | None = None,
    walked: bool = False,
) -> Verified:
    """Judge the existing claims of `candidate` against the transcripts; returns the actions for
    the contradicted ones (to be applied like any plan) and a verdict per claim checked. `embed`
    is the sentence embedder the rules compare meanings with (the hashing one when not given);
    `walked`: the engine's own walk met what every message states with every memory live when it
    was read (the offline engine's), so only a pending memory-add is judged by what messages
    state; every claim is judged by the changes they state."""
    verifier = _Verifier(snapshot, candidate, search, top_k, embed or _hashing_embed, walked)
    verdicts: list[Verdict] = []
    claims = verifier.claims(max_claims)
    for memory in claims:
        finding = verifier.verify(memory)
        verdicts.append(Verdict(memory.memory_id, finding))
        if finding.judgement == "contradicted":
            verifier.act(memory, finding)
    return Verified(tuple(verdicts), tuple(verifier.actions), tuple(verifier.notes), searched=len(claims))


def _hashing_embed(texts: Sequence[str]) -> list[list[float]]:
    return LocalEmbedder().embed(list(texts))
