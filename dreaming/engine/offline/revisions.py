"""The correction and update step of the transcript walk: what a new message overrules, and what
replaces it (the rules are `corrections`; this applies them to the plan being built).

- A stated change ("aisle, not window") supersedes the live memories it is about, whichever pass
  wrote them. A bare one is replaced by the memory with the value swapped, citing the correction
  and, when the swapped text keeps words the correction does not say, that memory's evidence
  too; one that says the new fact in full waits for the memory the walk makes from the message
  (`settle`), which then replaces it, citing only the message.
- A statement with a newer value ("raised the budget to $55") supersedes the memories giving the
  same attribute an older one (`supersede_rivals`); a memory that says more than that is replaced
  by itself with the stale sentence swapped for the new one, citing both messages.

Only messages no earlier pass read are applied here: a message an earlier pass read was applied
then, and a memory-add that arrives later is checked against it by the verify phase, which uses
the same rules (`contradiction.judge`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from dreaming.embedding import canonical_tokens
from dreaming.engine.offline.assistant_notes import in_their_words
from dreaming.engine.offline.corrections import (
    Overruled,
    apply_change,
    explicit_targets,
    is_bare,
    owner_of,
    restamped,
    sentence_replaced,
    statement_rivals,
    updated_text,
)
from dreaming.engine.offline.duplicates import find_duplicate
from dreaming.engine.offline.plan_builder import MAX_TEXT_CHARS, PlanBuilder
from dreaming.engine.offline.slot_frames import names_in, sentences
from dreaming.engine.offline.slots import SlotReader
from dreaming.engine.offline.working_set import WorkingMemory, WorkingSet
from language.antecedents import resolved
from language.changes import normal_values, values_in
from language.clauses import Clause
from language.dates import stamp_day, without_stamp
from language.stated_changes import ValueChange
from language.unsettled import Unsettled, unsettled_occasions
from schemas import ConversationTurn

CORRECTION_CONFIDENCE = 0.9
PREVIOUSLY_MAX_WORDS = 40
"""An older sentence longer than this is not repeated beside the new value: it costs a reader more
words than it helps them find."""

_PREVIOUSLY = re.compile(r" \(previously, [^)]*\)")
MAX_PREVIOUSLY = 3
"""At most this many older statements are repeated beside a new value."""

Created = Callable[[str, frozenset[str]], None]
"""Told of every memory this step creates: (message id, its tokens)."""


@dataclass(frozen=True)
class _Pending:
    target: WorkingMemory
    change: ValueChange
    rationale: str
    said: frozenset[str]
    """The correction clause's words: the memory made from it holds most of them."""


class _Timed(NamedTuple):
    """A memory giving an occasion a time: the day and clock values it gives, and which of the
    two its new one would be ("date" or "time")."""

    memory: WorkingMemory
    times: frozenset[str]
    noun: str


class Revisions:
    def __init__(
        self,
        builder: PlanBuilder,
        working: WorkingSet,
        slots: SlotReader,
        notes: list[str],
        consumed: frozenset[str],
        window: frozenset[str],
        created: Created = lambda message_id, tokens: None,
    ) -> None:
        self.builder = builder
        self.working = working
        self.slots = slots
        self.notes = notes
        self.consumed = consumed
        self.window = window
        """Ids of the messages in the transcript window: evidence must be among them."""
        self.created = created
        self.people: tuple[str, ...] = ()
        """The named speakers of a multi-person chat: a memory is only its first-named person's."""
        self.name_tokens: frozenset[str] = frozenset()
        """The user's name: a replacement naming them says nothing its evidence must support."""
        self._pending: dict[str, list[_Pending]] = {}

    # --- stated changes
    def correct(self, turn: ConversationTurn, clause: Clause, subject: str | None, context: Sequence[str]) -> bool:
        """Apply the change `clause` states; True when the clause needs no memory of its own (a
        bare correction, applied). `context`: the message as said, then the turn it answers."""
        change = clause.change
        if change is None or change.old is None or turn.message_id in self.consumed:
            return False
        targets = explicit_targets(
            change, self.working, (clause.body, *context), turn.ts, self.slots, subject, self.people
        )
        for memory in targets.protected:
            self.notes.append(
                f"message {turn.message_id} contradicts protected memory {memory.key}; "
                "left untouched for a person to review"
            )
        rationale = f"{subject or 'the user'} corrected {change.old!r} in {turn.message_id}: \u201c{clause.body}\u201d"
        overruled = [t for t in targets.overruled if not self.builder.touched(t.key)]
        for target in [t for t in overruled if in_their_words(t.text)]:
            self._retire_reported_speech(target, turn, rationale)
        overruled = [t for t in overruled if not in_their_words(t.text)]
        if not overruled:
            return False
        if not is_bare(clause.body, change):
            said = canonical_tokens(clause.body)
            self._pending.setdefault(turn.message_id, []).extend(
                _Pending(t, change, rationale, said) for t in overruled
            )
            return False
        return self._swap(turn, [_Pending(t, change, rationale, frozenset()) for t in overruled])

    def _retire_reported_speech(self, target: WorkingMemory, turn: ConversationTurn, rationale: str) -> None:
        """What the assistant said (or the user asked) with the value now corrected is stale, but
        it is a record of words: archived (history keeps it), never rewritten into words nobody
        said (`assistant_notes.is_reported_speech`)."""
        self.builder.archive(target.key, (turn.message_id,), f"{rationale}; it stated the old value")
        self.working.retire(target.key)

    def settle(self, turn: ConversationTurn, made: Sequence[tuple[str, str]]) -> None:
        """Supersede what a full correction in `turn` overruled by the memory made from it
        (`made`: (ref, text) of the memories the walk made from the message; the one holding most
        of the correction's words); with none, by the memory with the value swapped."""
        pending = self._pending.pop(turn.message_id, [])
        rest: list[_Pending] = []
        texts = dict(made)
        for item in pending:
            holder = _made_from(item.said, made)
            if holder is None or not self.working.is_live(holder):
                rest.append(item)
            elif not self.builder.touched(item.target.key):
                edited = sentence_replaced(item.target.text, item.change, texts[holder], turn.ts)
                if edited is None:
                    self.builder.supersede(item.target.key, holder, (turn.message_id,), item.rationale)
                    self.working.retire(item.target.key)
                    stale = _stale_sentence(item.target.text, item.change)
                    if _says_more(stale, texts[holder], item.change):
                        # "the reading moved from June 9 to June 16" keeps "with Priya at the
                        # arts hall" that the older memory said beside the stale day.
                        self._say_what_it_was(holder, item.target, stale)
                else:  # the rest of what the memory says stays, with the corrected sentence in its place
                    self.replace(item.target, edited, turn, item.rationale, keep_evidence=True)
        if rest:
            self._swap(turn, rest)

    def _swap(self, turn: ConversationTurn, items: Sequence[_Pending]) -> bool:
        applied = False
        for item in items:
            text = apply_change(item.target.text, item.change)
            if text is None or self.builder.touched(item.target.key):
                continue
            said = canonical_tokens(turn.content)
            keep = bool(canonical_tokens(without_stamp(text)) - said - self.name_tokens)
            self.replace(item.target, restamped(text, turn.ts), turn, item.rationale, keep_evidence=keep)
            applied = True
        return applied

    # --- newer values
    def rivals(
        self, turn: ConversationTurn, text: str, subject: str | None, ignore: frozenset[str]
    ) -> list[Overruled] | None:
        """The live memories the statement `text` gives a newer value; None when the statement
        must not be recorded (a rival is newer, or protected)."""
        if turn.message_id in self.consumed:
            return []
        found = statement_rivals(text, self.working, self.slots, subject, self.people, ignore)
        for reading in [] if found else resolved(without_stamp(text), turn.content):
            # "…, and it was raised to $450": what "it" stands for is said before it, and a
            # memory it gives a newer value names that thing too (most of its words)
            named = canonical_tokens(reading.phrase)
            found = [
                rival
                for rival in statement_rivals(reading.text, self.working, self.slots, subject, self.people, ignore)
                if 3 * len(named & rival.memory.tokens) >= 2 * len(named)
            ]
            if found:
                break
        if any(r.memory.evidence_ts >= turn.ts for r in found):
            self.notes.append(
                f"statement in {turn.message_id} is older than a memory that gives it another value; kept the newer one"
            )
            return None
        if any(r.memory.protected for r in found):
            self.notes.append(f"statement in {turn.message_id} contradicts a protected memory; not recorded")
            return None
        return found

    def supersede_rivals(
        self, turn: ConversationTurn, ref: str, rivals: Sequence[Overruled], subject: str | None = None
    ) -> None:
        """`ref` (made from `turn`, by `subject`) gives each rival's attribute a newer value."""
        rationale = f"newer value stated in {turn.message_id}"
        replaced: list[tuple[WorkingMemory, str]] = []
        for rival in rivals:
            memory = rival.memory
            if memory.key == ref or self.builder.touched(memory.key) or not self.working.is_live(memory.key):
                continue
            if in_their_words(memory.text):
                self._retire_reported_speech(memory, turn, rationale)
                continue
            edited = updated_text(memory.text, rival.update, turn.ts) if rival.update else None
            if edited is None:
                self.builder.supersede(memory.key, ref, (turn.message_id,), rationale)
                self.working.retire(memory.key)
                if rival.update is not None:
                    replaced.append((memory, rival.update.old_sentence))
            else:
                self.replace(memory, edited, turn, rationale, keep_evidence=True)
        # The oldest first, whichever order the search found them in: the text is the same at
        # any pass boundaries.
        replaced.sort(key=lambda item: (item[0].evidence_ts, item[0].evidence_ids, item[0].text))
        if replaced:
            self._say_what_it_was(ref, *replaced[0])
        for memory, old_sentence in replaced[1:MAX_PREVIOUSLY]:
            # Another memory the statement replaced keeps its other facts beside the new value too
            # (a past purchase, another amount: a value besides the stale one that the new statement
            # does not give), or they would be lost with the stale value.
            current = self.working.get(ref)
            if current is not None and _other_values(old_sentence, _PREVIOUSLY.sub("", current.text)):
                self._say_what_it_was(ref, memory, old_sentence)

    def _say_what_it_was(self, ref: str, old: WorkingMemory, old_sentence: str) -> None:
        """The memory `ref` (made in this plan) that superseded `old` also says the value it
        replaced, with its day ("… (previously, 2025-03-02: the gym fee is $48 a month)"), citing
        both messages: a reader asking about the attribute finds it by the older statement's words
        too (a new value is often said in a short aside that names little), and sees which value
        is current. Only when the older memory's evidence is in the window (the gate checks every
        cited id), and when the older sentence is short enough to be worth its words or gives
        values the new memory does not (other facts, which would otherwise be lost with it: the
        new value is never swapped into the old sentence, `corrections.updated_text`)."""
        current = self.working.get(ref)
        if current is None or not current.created_in_plan:
            return
        if len(old_sentence.split()) > PREVIOUSLY_MAX_WORDS and not _other_values(
            old_sentence, _PREVIOUSLY.sub("", current.text)
        ):
            return
        cited = tuple(i for i in old.evidence_ids if i in self.window)
        if not cited or len(cited) != len(old.evidence_ids):
            return
        day = stamp_day(old.text)
        said = f"{day.isoformat()}: " if day is not None else ""
        text = f"{current.text.rstrip()} (previously, {said}{_lowered(old_sentence.rstrip('.'))})"
        if len(text) > MAX_TEXT_CHARS:
            return  # cut short it would end mid-word, say neither value whole and fail its check
        evidence = (*dict.fromkeys((*current.evidence_ids, *cited)),)
        self.builder.extend(ref, text, evidence)
        self.working.add(
            WorkingMemory(
                key=ref,
                text=text,
                tokens=current.tokens,
                evidence_ids=evidence,
                evidence_ts=current.evidence_ts,
                created_in_plan=True,
            )
        )

    # --- times left unsaid
    def unsettle(self, turn: ConversationTurn, message: str, subject: str | None) -> None:
        """An occasion `message` says was moved or called off without its new time
        (`language.unsettled`): each live, older memory of the speaker's that gives it a day or a
        time is replaced by itself with what happened said after it ("… on March 20 (since
        rescheduled, as said on 2024-03-15; the new time not given)"), citing the message too. A
        later message with the new time updates that memory like any other. When the memories
        naming the occasion give it different times, which one moved is unknown: none changes."""
        if turn.message_id in self.consumed:
            return
        for occasion in unsettled_occasions(message):
            timed = self._timed(occasion, turn, subject)
            if len({found.times for found in timed}) > 1:
                self.notes.append(
                    f"message {turn.message_id} says {occasion.phrase!r} was {occasion.how}, "
                    "but memories give it different times; left as they are"
                )
                continue
            for memory, _, noun in timed:
                if memory.protected:
                    self.notes.append(
                        f"message {turn.message_id} says {occasion.phrase!r} was {occasion.how}; "
                        f"protected memory {memory.key} left untouched for a person to review"
                    )
                    continue
                day = turn.ts.date().isoformat()
                what = "" if occasion.how == "cancelled" else f"; the new {noun} not given"
                text = f"{memory.text.rstrip().rstrip('.')} (since {occasion.how}, as said on {day}{what})."
                if len(text) <= MAX_TEXT_CHARS:
                    who = subject or "the user"
                    rationale = f"{who} said in {turn.message_id} that {occasion.phrase} was {occasion.how}"
                    self.replace(memory, text, turn, rationale, keep_evidence=True)

    def _timed(self, occasion: Unsettled, turn: ConversationTurn, subject: str | None) -> list[_Timed]:
        """The live, older memories (not records of someone's words) that name the occasion — its
        head noun and most of its other words — and give it a day or a time in the sentence naming
        it."""
        head = canonical_tokens(occasion.head)
        named = canonical_tokens(occasion.phrase) - self.name_tokens
        if len(head) != 1 or not named:
            return []
        found = []
        for memory in self.working.containing_all(head):
            if (
                memory.evidence_ts >= turn.ts
                or self.builder.touched(memory.key)
                or in_their_words(memory.text)
                or 3 * len(named & memory.tokens) < 2 * len(named)
                or (self.people and owner_of(memory.text, self.people) not in (None, subject))
                or f"(since {occasion.how}," in memory.text
            ):
                continue
            values = [
                value
                for sentence in sentences(without_stamp(memory.text))
                if head <= canonical_tokens(sentence)
                for value in values_in(sentence)
                if value.kind in ("day", "clock")
            ]
            if values:
                noun = "date" if any(v.kind == "day" for v in values) else "time"
                found.append(_Timed(memory, frozenset(v.normal for v in values), noun))
        return found

    # --- replacing
    def replace(
        self, target: WorkingMemory, text: str, turn: ConversationTurn, rationale: str, *, keep_evidence: bool
    ) -> None:
        """Supersede `target` by a memory saying `text`: an existing one if memory already says it,
        else one created here, citing `turn` (and the target's own evidence in the window when its
        words stay: `keep_evidence`). A protected memory cannot be named as a replacement (it is
        never part of an action), so then the target is archived with the same evidence."""
        tokens = canonical_tokens(without_stamp(text))
        existing = find_duplicate(tokens, self.working)
        if existing is not None and existing.key == target.key:
            return  # the "new" wording is what the memory already says: nothing to replace
        if existing is not None and existing.protected:
            self.builder.archive(
                target.key,
                (turn.message_id,),
                f"{rationale}; protected memory {existing.key} already holds the new value",
            )
        else:
            if existing is not None:
                replacement = existing.key
            else:
                kept = tuple(i for i in target.evidence_ids if i in self.window) if keep_evidence else ()
                evidence = (*dict.fromkeys((*kept, turn.message_id)),)
                replacement = self.builder.create(text, evidence, rationale, CORRECTION_CONFIDENCE)
                self.working.add(
                    WorkingMemory(
                        key=replacement,
                        text=text,
                        tokens=tokens,
                        evidence_ids=evidence,
                        evidence_ts=turn.ts,
                        created_in_plan=True,
                    )
                )
                self.created(turn.message_id, tokens)
            self.builder.supersede(target.key, replacement, (turn.message_id,), rationale)
        self.working.retire(target.key)


def _made_from(said: frozenset[str], made: Sequence[tuple[str, str]]) -> str | None:
    """The memory made from a clause: it holds at least half of the clause's words, the most of any."""
    best, best_share = None, 0.5
    for ref, text in made:
        share = len(said & canonical_tokens(without_stamp(text))) / max(len(said), 1)
        if share >= best_share and (best is None or share > best_share):
            best, best_share = ref, share
    return best


def _stale_sentence(text: str, change: ValueChange) -> str:
    """The sentence of `text` that holds the change's old value (the whole text when none does)."""
    body = without_stamp(text)
    old = change.old or ""
    held = [p for p in sentences(body) if old and re.search(rf"\b{re.escape(old)}\b", p, re.IGNORECASE)]
    return held[0] if held else body


def _says_more(old_sentence: str, new_text: str, change: ValueChange) -> bool:
    """The older sentence gives a value or a name besides the corrected one (and its version:
    "PostgreSQL 16") that the correction's memory does not: retired without it, that fact would
    be lost."""
    new_body = without_stamp(new_text)
    rest = re.sub(rf"\b{re.escape(change.old or '')}(?:\s+v?\d[\w.]*)?", " ", old_sentence, flags=re.IGNORECASE)
    return bool(normal_values(rest) - normal_values(new_body) or names_in(rest) - names_in(new_body))


def _other_values(old_sentence: str, new_text: str) -> bool:
    """The older sentence gives more than one value the newer text does not say (the stale one and another)."""
    return len(normal_values(old_sentence) - normal_values(without_stamp(new_text))) >= 2


def _lowered(sentence: str) -> str:
    """A sentence as the tail of another: its first letter lowered unless it opens a name."""
    first = sentence.split(" ", 1)[0]
    if first in ("The", "A", "An", "It", "This", "That", "There"):
        return sentence[:1].lower() + sentence[1:]
    return sentence
