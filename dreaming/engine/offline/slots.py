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
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dreaming.embedding import canonical_tokens
from language.changes import (
    MASK,
    Numbered,
    Value,
    ValueChange,
    adds_to,
    changed_at,
    identifiers,
    intended,
    mask_values,
    modifiers_clash,
    narrates_past_event,
    normal_values,
    period_of,
    says_changed,
    titles_in,
    values_in,
)
from language.chatter import NOT_CONTENT
from language.dates import without_stamp
from language.sentences import split_sentences
from language.tokens import STOPWORDS, stem

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
of one kind 0.46-0.68, told apart by the shared qualifying words below, not by this cosine)."""
ANCHORED_SHARED_WORDS = 2
"""...and only when the two values share this many anchor words that say which quantity it is
("climbing gym fee" / "climbing gym fee"; "gym fee" / "parking fee" share one)."""
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
MIN_FRAME_WORDS = 1
"""A frame needs this many content words (values and the subject aside) to say what it is about."""

_CLAUSE = re.compile(
    r"\s*(?:[,;:\u2013\u2014]\s+(?:and|but|so|which|while|because|though|although|whereas)?\s*"
    r"|\s+(?:but|because|although|though|whereas|while|so that)\s+"
    r"|\s+and\s+(?=(?:the|a|an|my|our|his|her|their|its|i|we|it|this|that|they|he|she)\b))",
    re.IGNORECASE,
)
_ADJUNCT = re.compile(r"\s+(?:after|because|since|due to|thanks to|when|while|so that|once|until)\b.*$", re.IGNORECASE)
_SUBJECT_WORDS = re.compile(r"\b(?:the user's|the user|user's)\s*", re.IGNORECASE)
_MARKERS = frozenset("no not actually correction instead rather sorry mean meant".split())
_SUBJECT_TOKENS = canonical_tokens("the user's")
_WORDS = re.compile(r"[a-z]{2,}")
_SHARP = "\u266f"

Embed = Callable[[Sequence[str]], "np.ndarray | Sequence[Sequence[float]]"]


@dataclass(frozen=True)
class Frame:
    sentence: str
    """The sentence the frame is a clause of, as the memory or statement says it."""
    masked: str
    """The clause with its values masked and its subject's name left out."""
    values: frozenset[str]
    said_values: tuple[str, ...]
    """The values as written, in order."""
    forms: tuple[str, ...]
    """What kind of quantity each value is ("money", "percent", "day", "unit:sourc"), in order."""
    additive: bool
    """It gives a value beside an earlier one ("also", "another"): it replaces none."""
    intents: tuple[bool, ...]
    """Whether each value is wanted or planned rather than stated as is (`language.changes.intended`)."""
    anchors: tuple[frozenset[str], ...]
    """The content words next to each value ("grocery budget was increased to #": grocery,
    budget): a value of the same attribute sits beside some of the same words."""
    changed: bool
    event: bool
    holder: str = ""
    """Whose attribute it is when not the speaker's own: "sister" in "my sister moved to #"."""
    names: frozenset[str] = frozenset()
    """The named things the clause is about ("Project Orca", "Zoom"): another name is another subject."""
    moved: tuple[bool, ...] = ()
    """Whether each value is itself said to be the new one (`language.changes.changed_at`)."""


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


def sentences(text: str) -> list[str]:
    body = without_stamp(text).strip()
    return [s.strip() for s in split_sentences(body, next_start="capital_or_opening", newlines=True) if s.strip()]


def clauses(sentence: str) -> list[str]:
    """The clauses of a sentence, as frames cut it (", which …", ", and the …", " because …")."""
    return [p for p in _CLAUSE.split(sentence) if p and p.strip()]


def _without_subject(text: str, subject: str | None) -> str:
    text = _SUBJECT_WORDS.sub("", text)
    if subject:
        text = re.sub(rf"\b{re.escape(subject)}(?:'s|\u2019s)?\b:?\s*", "", text)
    return re.sub(r"\s+", " ", text).strip(" ,.;:")


def content_words(masked: str) -> int:
    words = {w for w in _WORDS.findall(masked.lower()) if w not in STOPWORDS}
    return len(words - _MARKERS)


@lru_cache(maxsize=65536)
def frames(
    text: str, subject: str | None = None, phrases: tuple[str, ...] = (), min_words: int = MIN_FRAME_WORDS
) -> tuple[Frame, ...]:
    """The clauses of `text` that give a value (or hold one of `phrases`), as frames: each clause
    on its own, and with the clause before it, which often says what the value is of ("which rose
    to #")."""
    found: list[Frame] = []
    for original in sentences(text):
        sentence = original.replace(MASK, _SHARP)  # a "#" of its own ("C#", a code comment) is not a mask
        found_values = values_in(sentence)
        values = [v.normal for v in found_values]
        written = [v.text for v in found_values]
        listed = in_lists(found_values, sentence)
        forms = ["list" if i in listed else value_form(v, sentence) for i, v in enumerate(found_values)]
        anchors = [value_anchor(v, sentence, subject) for v in found_values]
        clauses_at = _clause_of_each(found_values, sentence)
        intents = [intended(sentence, v, clauses_at[i]) for i, v in enumerate(found_values)]
        moved = [changed_at(sentence, v) for v in found_values]
        pieces = [p for p in _CLAUSE.split(mask_values(sentence)) if p and p.strip()]
        taken = 0
        spans: list[tuple[str, str, list[int]]] = []
        for piece in pieces:
            count = piece.count(MASK)
            spans.append((mask_values(piece, phrases), piece, list(range(taken, taken + count))))
            taken += count
        for index, (piece, said, piece_values) in enumerate(spans):
            if MASK not in piece:
                continue
            variants = [(piece, said, piece_values)]
            if index > 0:
                # The clause before often says what the value is of: "keep the app small, and its
                # size is #", "the response time, which fell to #".
                before = spans[index - 1]
                variants.append((f"{before[0]} {piece}", f"{before[1]} {said}", before[2] + piece_values))
            for clause, unmasked, positions in variants:
                trimmed = _ADJUNCT.sub("", clause)
                if MASK in trimmed and content_words(_without_subject(trimmed, subject)) >= min_words:
                    clause = trimmed  # "... dropped to # after removing fonts": the why is not the what
                masked = _without_subject(clause, subject)
                if content_words(masked) < min_words:
                    continue
                found.append(
                    Frame(
                        sentence=original,
                        masked=masked,
                        values=frozenset(values[i] for i in positions),
                        said_values=tuple(written[i] for i in positions),
                        forms=tuple(forms[i] for i in positions),
                        anchors=tuple(anchors[i] for i in positions),
                        intents=tuple(intents[i] for i in positions),
                        additive=adds_to(unmasked),
                        changed=says_changed(clause),
                        event=narrates_past_event(clause),
                        holder=holder(unmasked),
                        names=names_in(masked),
                        moved=tuple(moved[i] for i in positions),
                    )
                )
    return tuple(found)


_UNIT_WORD = re.compile(r"^[\s-]*(?P<word>[a-z][a-z-]+)", re.IGNORECASE)
_VERSION_LIKE = re.compile(r"^v?\d+\.\d+\.\d+|^v\d")


def value_form(value: Value, sentence: str) -> str:
    """What kind of quantity a value is: an amount of money, a percentage, a day, a clock time, a
    version, or a count of something ("unit:" and the stem of the word after it: "52 sources")."""
    text = value.text.lower()
    if value.kind in ("day", "clock"):
        return value.kind
    if text[:1] in "$\u20ac\u00a3":
        return "money"
    if text.endswith("%") or text.endswith("percent"):
        return "percent"
    if _VERSION_LIKE.match(text):
        return "version"
    attached = re.sub(r"^[\d.,]+", "", text)
    if attached and text[:1].isdigit():
        return f"unit:{attached}"
    following = _UNIT_WORD.match(sentence[value.end :])
    word = following.group("word").lower() if following else ""
    if word and word not in STOPWORDS:
        return f"unit:{stem(word)}"
    return "number"


ANCHOR_WORDS = 3
"""How many content words on each side of a value say what it is of."""
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*")


def value_anchor(value: Value, sentence: str, subject: str | None) -> frozenset[str]:
    """The `ANCHOR_WORDS` content words nearest the value on each side, within its sentence (the
    subject and words of change aside): "the grant application deadline was pushed back to #"
    -> deadline, application, grant."""
    skip = (canonical_tokens(subject) if subject else frozenset()) | _SUBJECT_TOKENS

    def content(words: list[str]) -> list[str]:
        found: list[str] = []
        for word in words:
            token = canonical_tokens(word)
            if word.lower() in NOT_CONTENT or word.lower().endswith("ly"):
                continue  # glue and manner words ("kinda", "especially") say nothing of what a value is of
            if token and not (token & skip) and not says_changed(word):
                found.extend(sorted(token))
            if len(found) >= ANCHOR_WORDS:
                break
        return found[:ANCHOR_WORDS]

    before = _TOKEN.findall(mask_values(sentence[: value.start]))
    after = _TOKEN.findall(mask_values(sentence[value.end :]))
    return frozenset(content(before[::-1]) + content(after))


def same_kind(a: str, b: str, near_a: frozenset[str] = frozenset(), near_b: frozenset[str] = frozenset()) -> bool:
    """Two values could be one attribute's: the same kind, or a bare number beside the word the
    other counts ("reached 165" near "commits" / "150 commits")."""
    if a == b:
        return True
    if a == "number" and b.startswith("unit:"):
        return b[5:] in near_a
    if b == "number" and a.startswith("unit:"):
        return a[5:] in near_b
    return False


def _clause_of_each(values: Sequence[Value], sentence: str) -> list[str]:
    """For each value, the clause of `sentence` it sits in."""
    bounds = [0, *(m.end() for m in _CLAUSE.finditer(sentence)), len(sentence)]
    found = []
    for value in values:
        start = max(b for b in bounds if b <= value.start)
        end = min((b for b in bounds if b > value.start), default=len(sentence))
        found.append(sentence[start:end])
    return found


_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)\b[A-Z][a-zA-Z0-9'-]+")
_NOT_NAMES = frozenset({"I", "I'm", "I've", "I'll", "I'd", "The", "A", "An", "My", "Our", "We"})


def names_in(text: str) -> frozenset[str]:
    """Capitalised words that are not capitalised by grammar (not opening the text or a sentence)."""
    return frozenset(m.group(0).lower() for m in _NAME.finditer(text.strip()) if m.group(0) not in _NOT_NAMES)


def other_names(a: frozenset[str], b: frozenset[str]) -> bool:
    """Each side names something the other does not: "Project Cobra" / "Project Orca"."""
    return bool(a - b) and bool(b - a)


def frame_words(frame: Frame) -> frozenset[str]:
    """The frame's content tokens: a statement about the same attribute nearly always shares one."""
    return canonical_tokens(frame.masked.replace(MASK, " "))


def rival_frames(
    new: str, old: str, subject: str | None = None, common: frozenset[str] = frozenset()
) -> list[tuple[Frame, Frame]]:
    """(new frame, old frame) pairs whose values could be one attribute's new and old value: what
    the sentence embeddings are then asked about (cheap checks first, no model)."""
    new_frames, old_frames = frames(new, subject), frames(old, subject)
    if not new_frames or not old_frames:
        return []
    stated_now = normal_values(without_stamp(new))
    return [(f, s) for f in new_frames for s in old_frames if _rivals(f, s, stated_now, common)]


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
        stated_now = normal_values(new)
        for fresh, stale in pairs:
            cosine = self.cosine(fresh.masked, stale.masked)
            rivalry = _rivalry(fresh, stale, stated_now, common)
            if rivalry == ANCHORED:
                needed = ANCHORED_SLOT_COSINE
            else:
                needed = CHANGED_SLOT_COSINE if rivalry == MOVED else SLOT_COSINE
            if cosine >= needed and (best is None or cosine > best.cosine):
                best = Update(
                    stale.sentence,
                    fresh.sentence,
                    cosine,
                    stale.said_values,
                    fresh.said_values,
                    stale.forms,
                    fresh.forms,
                )
        return best

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
        holding = [f for f in frames(memory, subject, (change.old,), 1) if _holds(f.sentence, change.old)]
        around: list[str] = []
        for text in context:
            for sentence in sentences(text):
                if not _mentions(sentence, (change.old, change.new)):
                    continue
                # The new value as read may be a neighbouring word ("hockey on Saturdays, not
                # football" reads "Saturdays"): compare with it masked and kept.
                for masked_values in ((change.old, change.new), (change.old,)):
                    masked = _without_subject(mask_values(sentence, masked_values), subject)
                    if content_words(masked) >= 1:
                        around.append(masked)
        old = change.old.lower().removesuffix("s")
        compounds = [p for text in context for p in compounds_of(change.old, text)]
        return any(
            f.holder == holder(c)
            and f.holder != old  # "instead of my brother": who did it changed, not what they do
            and not (not reported and other_names(f.names, names_in(c)))
            and (
                any(_holds(f.sentence, p) for p in compounds)
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


_RELATIONS = (
    "partner|wife|husband|spouse|boyfriend|girlfriend|fianc\u00e9e?|fiancee?|friend|buddy|mom|mum|mother|dad"
    "|father|parents?|sons?|daughters?|kids?|child|children|brothers?|sisters?|siblings?|cousins?|grandma"
    "|grandmother|grandpa|grandfather|aunt|uncle|niece|nephew|colleagues?|coworkers?|co-workers?|boss|manager"
    "|roommate|flatmate|neighbou?rs?|teammates?|classmates?|mentor|landlord|doctor|teacher|coach"
)
_HOLDER = re.compile(
    rf"^(?:\W*\w+\W+){{0,3}}?(?:my|our|his|her|their|\w+'s)\s+(?:(?:new|old|little|big|younger|older|best)\s+)?"
    rf"(?P<who>{_RELATIONS})\b",
    re.IGNORECASE,
)


_AGENT_OBJECT = re.compile(r"^\s+(?P<verb>[a-z]+)\s+(?:the|my|our|your|his|her|their|a|an)\b", re.IGNORECASE)


def holder(clause: str) -> str:
    """The person whose attribute a clause gives when it is not the speaker ("my sister moved to
    #" -> "sister"), by a relation noun opening the clause; "" for the speaker's own. A person who
    only changed someone else's value is not its holder: in "my landlord raised the rent to #" the
    rent is the speaker's."""
    match = _HOLDER.match(clause)
    if not match:
        return ""
    agent = _AGENT_OBJECT.match(clause[match.end() :])
    if agent and says_changed(agent.group("verb")):
        return ""
    return match.group("who").lower().rstrip("s")


def _rivals(fresh: Frame, stale: Frame, stated_now: frozenset[str], common: frozenset[str] = frozenset()) -> bool:
    """Values that could be one attribute's old and new value: of the same holder and named
    things, the newer statement no longer gives one the older gave, and the pair is not two events."""
    return _rivalry(fresh, stale, stated_now, common) is not None


PLAIN, MOVED, ANCHORED = "plain", "moved", "anchored"
"""How strongly a pair of frames' values look like one attribute's old and new value: *moved*, the
newer value is itself said to be the new one ("raised the rent to #"; a change word elsewhere
in the clause — "has gone from # to #" beside "completed # problems" — says nothing of the other
value); *anchored*, moved and of the same specific kind beside the same qualifying words."""


def _rivalry(
    fresh: Frame, stale: Frame, stated_now: frozenset[str], common: frozenset[str] = frozenset()
) -> str | None:
    """None when the frames are no old and new value of one attribute; else PLAIN, MOVED or ANCHORED."""
    if not fresh.values or not stale.values or fresh.holder != stale.holder or other_names(fresh.names, stale.names):
        return None
    if other_names(titles_in(fresh.sentence), titles_in(stale.sentence)):
        return None  # a score in one titled course and one in another: two things
    if _a_list(stale) or _a_list(fresh):
        return None  # "a box of 30, 40 and 50 cm": measurements of one thing, not one attribute's value
    moved = fresh.moved or (False,) * len(fresh.said_values)
    gone = [
        (f, a, i, said)
        for n, f, a, i, said in zip(_normals(stale), stale.forms, stale.anchors, stale.intents, stale.said_values)
        if n not in stated_now
    ]
    fresh_values = [
        (f, a, i, said, m)
        for n, f, a, i, said, m in zip(
            _normals(fresh), fresh.forms, fresh.anchors, fresh.intents, fresh.said_values, moved
        )
        if n not in stale.values
    ]
    pairs = [
        (fo, fn, m, m and len(_qualifiers(ao & an, fo) - common) >= ANCHORED_SHARED_WORDS)
        for fo, ao, io, so in gone
        for fn, an, i_n, sn, m in fresh_values
        if same_kind(fo, fn, ao, an)
        and io == i_n
        and (ao & an) - common
        and _same_period(period_of(stale.sentence, so), period_of(fresh.sentence, sn))
    ]
    if not pairs:
        return None
    shared = frozenset().union(*((ao & an) for _, ao, _, _ in gone for _, an, _, _, _ in fresh_values))
    if modifiers_clash(stale.sentence, fresh.sentence, shared):
        return None  # "the parking fee" / "the gym fee": one noun, two things
    if other_numbered(identifiers(fresh.sentence), identifiers(stale.sentence)):
        return None  # "Stage 2" / "the first stage": two stages, each with its own date
    if fresh.additive or ((fresh.event or stale.event) and not fresh.changed):
        return None  # "ran # km on Saturday" / "ran # km this morning": two runs; "also add #": one more
    if not any(form != "day" for form, _, _, _ in gone) and not any(m for fo, fn, m, _ in pairs if fn == "day"):
        # Two days are usually two events; only a day itself said to be the new one ("moved the
        # ferry to #", "the new # exam date") replaces one ("switching to a new tuner after #" does not).
        return None
    if not (fresh.changed or any(form != "day" for form, _, _, _ in gone)):
        return None
    if any(anchored and fo == fn and fo != "number" for fo, fn, _, anchored in pairs):
        return ANCHORED
    return MOVED if any(m for _, _, m, _ in pairs) else PLAIN


_PERIOD_WORDS = canonical_tokens("day days week weeks month months year years night nights hour minute per")


def _qualifiers(shared: frozenset[str], form: str) -> frozenset[str]:
    """Shared anchor words that say *which* quantity it is: not the counted noun itself (the same
    form already says it) nor a period ("a week")."""
    unit = frozenset({form[5:]}) if form.startswith("unit:") else frozenset()
    return shared - unit - _PERIOD_WORDS


def _same_period(a: str, b: str) -> bool:
    """A rate per day and one per week are two attributes, not an old and a new value."""
    return not a or not b or a == b


def other_numbered(a: frozenset[Numbered], b: frozenset[Numbered]) -> bool:
    """One noun is numbered differently on each side, by a name on at least one side ("Sprint 2" /
    "the first sprint"; `language.changes.identifiers`): two ordinals are often the values."""
    return any(x.noun == y.noun and x.number != y.number and (x.named or y.named) for x in a for y in b) and not (a & b)


def _a_list(frame: Frame) -> bool:
    """Three or more values of one kind in one clause, or a value of a list."""
    return "list" in frame.forms or any(frame.forms.count(form) >= 3 for form in set(frame.forms))


_LIST_GAP = re.compile(r"^\s*(?:[a-z]{1,3}\s*)?(?:,\s*(?:and\s+|or\s+)?|and\s+|or\s+|/|x\s*)$", re.IGNORECASE)


def in_lists(values: Sequence[Value], sentence: str) -> set[int]:
    """Indexes of values that are items of a list ("sides 7 cm, 24 cm and 25 cm", "9, 12, 15"):
    measurements of one thing, not values of an attribute."""
    listed: set[int] = set()
    run = [0] if values else []
    for index in range(1, len(values) + 1):
        joined = index < len(values) and _LIST_GAP.match(sentence[values[index - 1].end : values[index].start])
        if joined:
            run.append(index)
            continue
        if len(run) >= 3:
            listed.update(run)
        run = [index]
    return listed


def _normals(frame: Frame) -> list[str]:
    return [_normal(text) for text in frame.said_values]


@lru_cache(maxsize=65536)
def _normal(said: str) -> str:
    return Value(said, 0, 0).normal


def _holds(sentence: str, phrase: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", sentence, re.IGNORECASE) is not None


def _mentions(sentence: str, phrases: tuple[str, ...]) -> bool:
    return any(p and _holds(sentence, p) for p in phrases) or bool(values_in(sentence))
