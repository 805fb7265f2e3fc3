"""Which memories a correction or a newer statement overrules, and what replaces them.

Every contradiction is about one subject and one attribute, judged by meaning (`slots`), never
because a word is shared; it is resolved in favour of the newest evidence, whichever pass wrote
the older memory:

- a stated change ("No, it's aisle, not window", "DuckDB instead of PostgreSQL"): the live
  memories of the same person that hold the old value as a whole phrase, older than the change,
  whose sentence holding it is what the change is about (`SlotReader.corrects`). A bare
  correction ("No, aisle, not window.") is replaced by the memory with the value swapped, citing
  the memory's own evidence and the correction (together they say it); a correction that says the
  new fact in full ("I prefer aisle seats now, not window") is replaced by the memory made from it.
- a newer statement of the same attribute with another value: a number, time or day
  (`SlotReader.update`: "the budget is $40" -> "raised the budget to $55"), or "<subject> is
  <value>" with the same subject and a value of the same kind ("the on-call lead is Priya" ->
  "... is Tomas"; not "the car is silver" -> "the car is really fast").

Protected memories are never targets; they are reported so the pass can note them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from dreaming.embedding import canonical_tokens
from dreaming.engine.offline.assistant_notes import in_their_words, is_outline, is_reported_speech, what_was_said
from dreaming.engine.offline.duplicates import values_conflict
from dreaming.engine.offline.slot_frames import content_words, frame_words, frames, sentences
from dreaming.engine.offline.slot_rivalry import rival_frames
from dreaming.engine.offline.slots import SlotReader, Update
from dreaming.engine.offline.working_set import WorkingMemory, WorkingSet, frequent_tokens
from language.changes import Value, mask_values
from language.chatter import NOT_CONTENT
from language.dates import stamp_day, stamped, without_stamp
from language.person import PERSONAL_WORD
from language.stated_changes import OPINION_WORDS, ValueChange, parse_change, planned_change
from language.text_caches import text_cache
from language.tokens import has_digit
from language.values import holds_phrase

_COPULA = re.compile(r"\s(?:is|are|was|were)\s", re.IGNORECASE)
_MIN_SUBJECT_TOKENS = 2
_POSSESSED = re.compile(r"(?:\w(?:'s|\u2019s|s')|\b(?:my|our|his|her|their|your))\s+\w", re.IGNORECASE)
_AIMS = re.compile(
    r"\b(?:goals?|dreams?|hopes?|aims?|wish(?:es)?|passions?|missions?|ambitions?|aspirations?|priorit(?:y|ies))\s*$",
    re.IGNORECASE,
)
"""What a person strives for: several at once, so a later "my goal is to …" retires no earlier one."""
_VERSION = r"(?:\s+v?\d[\w.]*)?"
VALUE_KIND_COSINE = 0.45
"""Two values of "<subject> is <value>" are rival values of one attribute when both are names or
numbers, or their embeddings are this close ("green" / "red" 0.70; "silver" / "really fast" 0.18)."""


@dataclass
class Targets:
    overruled: list[WorkingMemory] = field(default_factory=list)
    protected: list[WorkingMemory] = field(default_factory=list)


def apply_change(text: str, change: ValueChange) -> str | None:
    """`text` with the change's old value replaced by its new one, or None if it holds no old value."""
    if change.old is None:
        return None
    if change.elided_head is not None:
        modifier, head = change.elided_head
        if re.search(rf"(?<![\w-]){re.escape(change.old)}\s+{re.escape(head)}(?![\w-])", text, re.IGNORECASE):
            return substitute_value(text, change.old, modifier)  # "red wine" + "white wine instead of red"
    return substitute_value(text, change.old, change.new)


def substitute_value(text: str, old: str, new: str) -> str | None:
    """`text` with `old` replaced by `new`; None when `old` is not a whole phrase of `text`.

    A version right after the old value goes with it ("PostgreSQL 16" -> "DuckDB"), and words the
    new value shares with what follows are not repeated ("window seats" + "aisle seats").
    """
    version = "" if has_digit(new) else _VERSION
    match = re.search(rf"(?<![\w-]){re.escape(old)}{version}(?![\w-])", text, re.IGNORECASE)
    if match is None:
        return None
    new_words = new.split()
    following = text[match.end() :].split()
    for overlap in range(len(new_words) - 1, 0, -1):
        if [w.lower() for w in new_words[-overlap:]] == [w.strip(".,;:!?").lower() for w in following[:overlap]]:
            new_words = new_words[:-overlap]
            break
    replacement = " ".join(new_words)
    if match.start() == 0:
        replacement = replacement[:1].upper() + replacement[1:]
    return text[: match.start()] + replacement + text[match.end() :]


def restamped(text: str, said_at: datetime) -> str:
    """A changed memory says when its newest evidence was said (only if it carried a stamp)."""
    return stamped(without_stamp(text), said_at) if stamp_day(text) is not None else text


GENERIC_SHARE = 0.5
MIN_MEMORIES_FOR_GENERIC = 4


def generic_tokens(token_sets: Iterable[frozenset[str]]) -> frozenset[str]:
    """Tokens in more than half of a scope's memories (given at least four): in a scope where
    every memory is about "Project <name>", the word "project" ties a correction to none of them."""
    return frequent_tokens(token_sets, GENERIC_SHARE, MIN_MEMORIES_FOR_GENERIC)


def is_bare(clause: str, change: ValueChange) -> bool:
    """A correction that names the values and little else ("No, aisle, not window.", "Thursdays
    now, not Mondays"): what it corrects is only said by the memory it replaces. One that says the
    new fact in full ("I prefer aisle seats now, not window") is a statement of its own."""
    masked = mask_values(clause, tuple(v for v in (change.old, change.new) if v))
    words = content_words(masked)
    return words == 0 or (words == 1 and not PERSONAL_WORD.search(masked))


def owned_by(text: str, subject: str | None, people: Sequence[str]) -> bool:
    """The memory is about `subject`: the first person of the chat it names is them (a memory
    naming nobody is the scope's user's own)."""
    if subject is None:
        return True
    body = without_stamp(text)
    named = [(at, name) for name in {subject, *people} if (at := _first(body, name)) is not None]
    return not named or min(named)[1] == subject


def owner_of(text: str, people: Sequence[str]) -> str | None:
    """The person of the chat a memory is about: the first one it names (None when it names none)."""
    body = without_stamp(text)
    named = [(at, name) for name in people if (at := _first(body, name)) is not None]
    return min(named)[1] if named else None


def _first(text: str, name: str) -> int | None:
    match = re.search(rf"\b{re.escape(name)}\b", text)
    return match.start() if match else None


def overrules_change(
    text: str,
    evidence_ts: datetime,
    change: ValueChange,
    context: Sequence[str],
    said_at: datetime,
    slots: SlotReader,
    subject: str | None = None,
    people: Sequence[str] = (),
) -> bool:
    """The contradiction test for a stated change: the claim `text` holds the old value as a whole
    phrase, is older than the change (newest evidence wins), does not already say the new value,
    is the same person's, and the sentence holding the old value is what the change is about
    (`context`: the correction clause first, then the message and the turn it answers). A change
    only planned ("trying to switch from A to B") overrules nothing yet."""
    if change.old is None or evidence_ts >= said_at or not names_something(change.old):
        return False
    if context and planned_change(context[0]):
        return False
    body = without_stamp(text)
    if not holds_phrase(body, change.old) or records_change(body, change):
        return False
    if context and is_bare(context[0], change):
        swapped = apply_change(body, change)
        if swapped is None or canonical_tokens(swapped) <= canonical_tokens(body):
            return False  # it already says the new value too (a full correction's "new" may be any word near it)
    # A record of words ("the assistant said: window seat 14A on the Berlin flight") that states the
    # old value is stale whatever else it names; it is archived, never rewritten (`revisions`).
    if is_reported_speech(text):
        said = what_was_said(without_stamp(text))
        return owned_by(body, subject, people) and slots.corrects(change, said, context, subject, reported=True)
    return owned_by(body, subject, people) and slots.corrects(change, body, context, subject)


def records_change(text: str, change: ValueChange) -> bool:
    """`text` already says this very change ("chose Porto instead of Lisbon"): a later message that
    says it again ("… my plan to rent in Porto instead of Lisbon") restates it and corrects nothing."""
    old, new = canonical_tokens(change.old or ""), canonical_tokens(change.new)
    if not old or not new:
        return False
    for sentence in sentences(text):
        said = parse_change(sentence)
        # Each side read as a phrase may take a neighbouring word ("Porto due" / "rental flat"):
        # the memory's change holds the old value and shares a word of the new one.
        if said is not None and said.old is not None and old <= canonical_tokens(said.old):
            if new & canonical_tokens(said.new):
                return True
        # "… reads print by day and will switch to audiobooks at night": the memory names the old
        # value and already says the switch to the new one.
        if (
            said is not None
            and said.old is None
            and new & canonical_tokens(said.new)
            and holds_phrase(sentence, change.old or "")
        ):
            return True
    return False


def names_something(phrase: str) -> bool:
    """A value a correction can change holds a content word: "not sure", "not easy", "the good
    instead of the bad" are turns of phrase, not a value given earlier."""
    words = re.findall(r"[a-z0-9][a-z0-9'-]*", phrase.lower())
    return any(word not in NOT_CONTENT and word not in OPINION_WORDS for word in words)


def explicit_targets(
    change: ValueChange,
    working: WorkingSet,
    context: Sequence[str],
    said_at: datetime,
    slots: SlotReader,
    subject: str | None = None,
    people: Sequence[str] = (),
) -> Targets:
    """Live memories a stated change overrules (only when the old value is known)."""
    targets = Targets()
    old_tokens = canonical_tokens(change.old) if change.old is not None else frozenset()
    for memory in working.containing_all(old_tokens):
        if overrules_change(memory.text, memory.evidence_ts, change, context, said_at, slots, subject, people):
            (targets.protected if memory.protected else targets.overruled).append(memory)
    return targets


def sentence_replaced(old: str, change: ValueChange, said: str, said_at: datetime) -> str | None:
    """The memory `old` with the sentence holding the change's old value replaced by what the
    correction said (`said`, a memory text), when it says more than that sentence; else None."""
    parts = sentences(old)
    stale = [p for p in parts if change.old is not None and holds_phrase(p, change.old)]
    if len(parts) < 2 or not stale:
        return None
    edited = " ".join(without_stamp(said) if p == stale[0] else p for p in parts if p not in stale[1:])
    return stamped(edited, said_at) if stamp_day(old) is not None else edited


# --- newer statements of one attribute -------------------------------------------------------------


@text_cache(maxsize=65536)
def attribute_of(text: str, ignore: frozenset[str] = frozenset()) -> tuple[frozenset[str], str] | None:
    """(subject tokens, value phrase) of "<someone's attribute> is <value>" in the first sentence,
    or None for any other shape: "<a thing> is <a description>" ("the dog park is a great place")
    names no one's attribute, and two descriptions of one thing are both true."""
    first = sentences(text)[:1]
    parts = _COPULA.split(first[0], maxsplit=1) if first else []
    if len(parts) != 2 or not _POSSESSED.search(parts[0]):
        return None
    subject, value = canonical_tokens(parts[0]) - ignore, parts[1].strip().rstrip(".!")
    if len(subject) < _MIN_SUBJECT_TOKENS or not canonical_tokens(value) - ignore:
        return None
    if _AIMS.search(parts[0]) and value.lower().startswith("to "):
        return None  # "Ivo's goal is to …": one of the aims a person holds at once, not a slot
    return subject, value


def rival_values(text: str, other: str, slots: SlotReader, ignore: frozenset[str] = frozenset()) -> bool:
    """Both say "<subject> is <value>" of the same subject, with different values of one kind."""
    mine, theirs = attribute_of(text, ignore), attribute_of(other, ignore)
    if mine is None or theirs is None or mine[0] != theirs[0]:
        return False
    if not values_conflict(canonical_tokens(mine[1]) - ignore, canonical_tokens(theirs[1]) - ignore):
        return False
    return _alike(mine[1], theirs[1]) or slots.cosine(mine[1], theirs[1]) >= VALUE_KIND_COSINE


def _alike(a: str, b: str) -> bool:
    """Both values are names, or both numbers."""
    return (a[:1].isupper() and b[:1].isupper()) or (a[:1].isdigit() and b[:1].isdigit())


@dataclass(frozen=True)
class Overruled:
    memory: WorkingMemory
    update: Update | None
    """How a number, time or day changed (None for a "<subject> is <value>" rival)."""


def statement_overrules(
    text: str,
    older: str,
    slots: SlotReader,
    subject: str | None = None,
    people: Sequence[str] = (),
    ignore: frozenset[str] = frozenset(),
    common: frozenset[str] = frozenset(),
) -> Update | bool:
    """The contradiction test for a newer statement: the `older` memory gives one attribute of the
    same subject another value. An `Update` when a number, time or day changed, True for a
    "<subject> is <value>" rival, False when they do not contradict."""
    if not owned_by(older, subject, people):
        return False
    update = slots.update(without_stamp(text), without_stamp(older), subject, common)
    if update is not None:
        return update
    return rival_values(text, older, slots, ignore)


def statement_rivals(
    text: str,
    working: WorkingSet,
    slots: SlotReader,
    subject: str | None = None,
    people: Sequence[str] = (),
    ignore: frozenset[str] = frozenset(),
) -> list[Overruled]:
    """Live memories `text` gives a newer value. An index look-up only narrows the search (a
    memory sharing a word of a value's clause; for "<subject> is <value>", one holding the whole
    subject), meaning decides. A reply's outline is no rival: it lists what the reply covered,
    and holding many titles it would be a candidate of almost every statement."""
    body = without_stamp(text)
    candidates: dict[str, WorkingMemory] = {}
    new_frames = frames(body, subject)
    common = working.common_tokens()
    if new_frames:
        words = frozenset().union(*(frame_words(f) for f in new_frames)) - ignore
        wanted: list[str] = []
        for memory in working.sharing_any(words, len(words)):
            if is_outline(memory.text):
                continue
            pairs = rival_frames(body, without_stamp(memory.text), subject, common)
            if pairs:
                candidates.setdefault(memory.key, memory)
                wanted.extend(t for f, s in pairs for t in (f.masked, s.masked))
        slots.prefetch(wanted)  # one batch for the model, not one call per candidate
    attribute = attribute_of(body, ignore)
    if attribute is not None:
        for memory in working.containing_all(attribute[0]):
            if not is_outline(memory.text):
                candidates.setdefault(memory.key, memory)
    found = []
    for memory in candidates.values():
        verdict = statement_overrules(body, memory.text, slots, subject, people, ignore, common)
        if verdict:
            found.append(Overruled(memory, verdict if isinstance(verdict, Update) else None))
    return one_thing(found)


def one_thing(found: Sequence[Overruled]) -> list[Overruled]:
    """The rivals a newer value replaces: one thing's values, not every thing the holder's noun can
    name. A rival tied to the new value by a bare noun alone ("the deadline was extended to May 20",
    `Update.bare`) is another thing's when some rival says which thing by more (a shared qualifier,
    name or modifier): someone keeping a will's deadline, a course's and an application's has three.
    With no such rival the noun means the thing last spoken of, and only the newest bare rival is
    replaced. A record of words stating a replaced rival's old value goes with it ("asked for
    sneakers within the $200 budget" beside "a $200 budget for sneakers"): a reply seldom says again
    which thing it is about. A statement does not: two projects are 40 % done as often as one is
    said to be twice."""
    bare = [r for r in found if r.update is not None and r.update.bare]
    if not bare:
        return list(found)
    kept = [r for r in found if r.update is None or not r.update.bare] or [max(bare, key=_told_at)]
    replaced = frozenset(v for r in kept if r.update is not None for v in _normal_values(r.update.old_values))
    return [
        r
        for r in found
        if r in kept
        or (r.update is not None and in_their_words(r.memory.text) and replaced & _normal_values(r.update.old_values))
    ]


def _normal_values(said: Iterable[str]) -> frozenset[str]:
    """The values as compared, a day without its year ("April 1" = "April 1, 2024")."""
    values = (Value(text, 0, 0) for text in said)
    return frozenset(_YEAR_AFTER_DAY.sub("", v.normal) if v.kind == "day" else v.normal for v in values)


_YEAR_AFTER_DAY = re.compile(r"(?<=\d)(?:19|20)\d{2}$")


def _told_at(rival: Overruled) -> tuple[datetime, str]:
    return rival.memory.evidence_ts, rival.memory.key


def updated_text(old: str, update: Update, said_at: datetime) -> str | None:
    """The older memory with its stale sentence replaced by the new statement's own, when it says
    other sentences besides (they stay, each as someone said it); None when the stale sentence is
    all it says: the new statement's memory then replaces it, the old sentence kept as history
    (`revisions`). A new value is never swapped into the older sentence: that writes a statement
    nobody made, and wrong when the two values are of two things ("the gym fee is $48" swapped into
    "the parking fee is $40 and the gym fee ...")."""
    parts = sentences(old)
    if update.old_sentence not in parts or len(parts) < 2:
        return None
    edited = " ".join(update.new_sentence if p == update.old_sentence else p for p in parts)
    return stamped(edited, said_at) if stamp_day(old) is not None else edited
