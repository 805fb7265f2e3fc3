"""Is a newer statement about the same subject and attribute as an older one? Judged by meaning,
never because the two share a word.

A *frame* is one clause of a statement with its values masked and its subject's name taken out:
"The user's snack budget for the party is $40" is the frame "snack budget for the party is #".
Two frames are one *slot* when their sentence embeddings are close: "snack budget for the party is
#" / "raised the party snack budget to #" (0.9 with all-MiniLM-L6-v2) are one attribute, "snack
budget … is #" / "grocery budget is # a month" (0.5) two, and "ran # km" / "bought # books" (0.1)
nothing alike. An *update* is a slot whose newer statement no longer gives a value the older one
gave, unless both narrate past events ("ran 5 km on Saturday", "ran 8 km this morning": two runs,
both true) or only a day differs without the newer one saying the value changed (two dates are
usually two events, not a correction).

A stated correction ("aisle, not window") names the old value; the memory holding it is corrected
only when the sentence holding it is about what the correction is about (`corrects`): the memory
sentence with the old value masked is compared with the correction's own words, and with the
sentences around it that say the old or the new value (the assistant turn it answers, the rest of
its message). "I try to focus on the good instead of the bad" corrects nothing about "a good
relationship with my brother".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from dreaming.embedding import canonical_tokens
from dreaming.engine.offline.slot_frames import content_words, frames, holder, names_in, sentences, without_subject
from dreaming.engine.offline.slot_rivalry import ANCHORED, DERIVED, HELD, MOVED, other_names, rival_frames, rivalry_of
from language.changes import mask_values, normal_values, says_changed, values_in
from language.chatter import NOT_CONTENT
from language.stated_changes import ValueChange
from language.values import holds_phrase

SLOT_COSINE = 0.9
"""Two frames are one attribute at this cosine when the newer one does not say the value changed
(calibrated on sentences written for `tests/unit/dreaming/engine/offline/test_slots.py`: one attribute 0.74-0.98, two
attributes up to 0.74)."""
CHANGED_SLOT_COSINE = 0.7
"""...and at this cosine when it does ("raised to #", "is now #", "was moved to #")."""
ANCHORED_SLOT_COSINE = 0.5
"""...and at this cosine when the newer value itself is said to be the new one ("adjusted the
climbing gym fee to #", "the new # exam date") and is the same kind of quantity as the old one
beside some of the same words ("gym fee", "exam date"): the rest of each clause is often framing
(a feeling, a request) far apart in meaning (on sentences written for
`tests/unit/dreaming/engine/offline/test_slots.py`: one attribute so framed 0.64-0.85; look-alikes
of one kind 0.46-0.68, told apart by the shared qualifying words of
`slot_rivalry.ANCHORED_SHARED_WORDS`, not by this cosine)."""
HELD_SLOT_COSINE = 0.3
"""...and at this cosine when both values belong to one noun phrase qualified alike ("3 job offers" /
"the 5 job offers I got", `language.value_holders`): what the clauses say around the value (a worry,
a request, a question) then matters little; the cosine only keeps two unrelated sentences apart
(on sentences written for `tests/unit/dreaming/engine/offline/test_slots.py`)."""
DERIVED_SLOT_COSINE = -1.0
"""...and at any cosine when the two values count the same people under two nouns ("mentoring 5
women" / "the number of mentees grew to 7", `slot_rivalry.DERIVED`): the words say it is one count,
and the clauses around the values need not say anything alike."""
CORRECTION_COSINE = 0.5
"""A memory sentence (old value masked) is what a stated correction is about at this cosine with
the correction's words or a sentence around it (values masked): "plays in the # team" / "I play
in the Falcons # now, not the #" 0.55, "works the # at the depot" / "I work the day shift at the
depot now, not the #" 0.78; an idiom about something else 0.29-0.43."""
REPORTED_COSINE = 0.4
"""...and a record of words that states the old value ("the assistant said: window seat 14A",
"Ava asked to book a window seat") at this one: it is archived, never rewritten, and would
otherwise go on stating the stale value ("book a # seat on the Berlin flight" / "your # seat to
Lisbon is confirmed" 0.42)."""

Embed = Callable[[Sequence[str]], "np.ndarray | Sequence[Sequence[float]]"]


@dataclass(frozen=True)
class Update:
    """`new` gives the attribute `old` gave in `old_sentence` another value."""

    old_sentence: str
    new_sentence: str
    cosine: float
    old_values: tuple[str, ...] = ()
    """The values of the old clause as written ("$1,300"), and of the new one."""
    new_values: tuple[str, ...] = ()
    old_forms: tuple[str, ...] = ()
    """What kind of quantity each of them is (`value_form`)."""
    new_forms: tuple[str, ...] = ()
    bare: bool = False
    """Only the holder's bare noun ties the two values together (`slot_rivalry.Rivalry.bare`)."""


class SlotReader:
    """Frames and their embeddings, cached by text (one reader per pass)."""

    def __init__(self, embed: Embed) -> None:
        self._embed = embed
        self._vectors: dict[str, np.ndarray] = {}

    def vectors(self, texts: Iterable[str]) -> list[np.ndarray]:
        wanted = list(texts)
        missing = list(dict.fromkeys(t for t in wanted if t not in self._vectors))
        if missing:
            for text, row in zip(missing, self._embed(missing)):
                self._vectors[text] = np.asarray(row, dtype=np.float32)
        return [self._vectors[t] for t in wanted]

    def cosine(self, a: str, b: str) -> float:
        va, vb = self.vectors([a, b])
        return float(va @ vb)

    def prefetch(self, texts: Iterable[str]) -> None:
        """Embed what a search will compare in one batch."""
        self.vectors(dict.fromkeys(texts))

    def update(
        self, new: str, old: str, subject: str | None = None, common: frozenset[str] = frozenset()
    ) -> Update | None:
        """How the statement `new` gives an attribute of `old` another value, or None. `common`:
        words too frequent in the scope to tell one attribute from another."""
        pairs = rival_frames(new, old, subject, common)
        if not pairs:
            return None
        self.prefetch(t for f, s in pairs for t in (f.masked, s.masked))
        best: Update | None = None
        bare = True
        stated_now = normal_values(new)
        for fresh, stale in pairs:
            cosine = self.cosine(fresh.masked, stale.masked)
            found = rivalry_of(fresh, stale, stated_now, common)
            strength = found.strength if found is not None else None
            if strength == DERIVED:
                needed = DERIVED_SLOT_COSINE
            elif strength == ANCHORED:
                needed = ANCHORED_SLOT_COSINE
            elif strength == HELD:
                needed = HELD_SLOT_COSINE
            else:
                needed = CHANGED_SLOT_COSINE if strength == MOVED else SLOT_COSINE
            if cosine < needed:
                continue
            bare = bare and found is not None and found.bare  # any pair that says which thing: not bare
            if best is None or cosine > best.cosine:
                best = Update(
                    stale.sentence,
                    fresh.sentence,
                    cosine,
                    stale.said_values,
                    fresh.said_values,
                    stale.forms,
                    fresh.forms,
                )
        return None if best is None else replace(best, bare=bare)

    def corrects(
        self,
        change: ValueChange,
        memory: str,
        context: Sequence[str],
        subject: str | None = None,
        reported: bool = False,
    ) -> bool:
        """A stated change (old value known) is about the sentence of `memory` that holds the old
        value: the sentence, old value masked, is close in meaning to one of `context` (the
        correction clause, then the sentences around it) that says the old or the new value, its
        values masked, and about the same person and the same named things. A `reported` one (a
        record of words) is judged by the words said, whatever else they name."""
        if change.old is None:
            return False
        holding = [f for f in frames(memory, subject, (change.old,), 1) if holds_phrase(f.sentence, change.old)]
        around: list[str] = []
        for text in context:
            for sentence in sentences(text):
                if not _mentions(sentence, (change.old, change.new)):
                    continue
                # The new value as read may be a neighbouring word ("hockey on Saturdays, not
                # football" reads "Saturdays"): compare with it masked and kept.
                for masked_values in ((change.old, change.new), (change.old,)):
                    masked = without_subject(mask_values(sentence, masked_values), subject)
                    if content_words(masked) >= 1:
                        around.append(masked)
        old = change.old.lower().removesuffix("s")
        compounds = [p for text in context for p in compounds_of(change.old, text)]
        if holding and around:  # one model call for the comparisons below, not one per pair
            self.prefetch([*(f.masked for f in holding), *around])
        return any(
            f.holder == holder(c)
            and f.holder != old  # "instead of my brother": who did it changed, not what they do
            and not (not reported and other_names(f.names, names_in(c), f.sentence, c))
            and (
                any(holds_phrase(f.sentence, p) for p in compounds)
                or self.cosine(f.masked, c) >= (REPORTED_COSINE if reported else CORRECTION_COSINE)
            )
            for f in holding
            for c in dict.fromkeys(around)
        )


def compounds_of(value: str, text: str) -> list[str]:
    """The old value with the content word it is a kind of, as `text` says them: "aisle seat, not a
    window seat" -> "window seat". A memory sentence saying the same compound is about the same
    thing whatever the embedder makes of the rest ("books a window seat on long flights"); a bare
    value ("the good instead of the bad") has none."""
    found = []
    for match in re.finditer(rf"(?<![\w-]){re.escape(value)}(?![\w-])", text, re.IGNORECASE):
        following = re.match(r" ([A-Za-z][A-Za-z'-]*)", text[match.end() :])  # the very next word
        word = following.group(1) if following else ""
        if word and canonical_tokens(word) and word.lower() not in NOT_CONTENT and not says_changed(word):
            found.append(f"{match.group(0)} {word}")
    return found


def _mentions(sentence: str, phrases: tuple[str, ...]) -> bool:
    return any(p and holds_phrase(sentence, p) for p in phrases) or bool(values_in(sentence))
