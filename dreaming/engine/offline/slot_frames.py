"""A statement read as *frames*: each clause that gives a value, with its values masked and its
subject's name taken out ("The user's snack budget for the party is $40" -> "snack budget for the
party is #"), what kind of quantity each value is, the words beside it, and whose it is. What
`slot_rivalry` and `slots` compare; no model here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.embedding import canonical_tokens
from language.changes import (
    MASK,
    PERIOD_ADVERBS,
    Value,
    adds_to,
    changed_at,
    is_delta,
    mask_values,
    narrates_past_event,
    says_changed,
    value_added,
    values_in,
)
from language.chatter import NOT_CONTENT
from language.dates import WEEKDAYS, without_stamp
from language.intents import intended
from language.sentences import split_sentences
from language.text_caches import text_cache
from language.tokens import MONTHS, STOPWORDS, stem
from language.value_holders import Holder, holder_of

MIN_FRAME_WORDS = 1
"""A frame needs this many content words (values and the subject aside) to say what it is about."""

_CLAUSE = re.compile(
    r"\s*(?:[,;:\u2013\u2014]\s+(?:(?:and|but|so|which|while|because|though|although|whereas)\b)?\s*"
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
_HISTORY = re.compile(r"^\(previously\b", re.IGNORECASE)


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
    """Whether each value is wanted or planned rather than stated as is (`language.intents.intended`)."""
    anchors: tuple[frozenset[str], ...]
    """The content words next to each value ("heating bill was raised to #": heating,
    bill): a value of the same attribute sits beside some of the same words."""
    changed: bool
    event: bool
    holder: str = ""
    """Whose attribute it is when not the speaker's own: "sister" in "my sister moved to #"."""
    names: frozenset[str] = frozenset()
    """The named things the clause is about ("Project Orca", "Zoom"): another name is another subject."""
    moved: tuple[bool, ...] = ()
    """Whether each value is itself said to be the new one (`language.changes.changed_at`)."""
    holders: tuple[Holder | None, ...] = ()
    """What each value belongs to (`language.value_holders`): "job offers" for "4 job offers"."""
    added: tuple[bool, ...] = ()
    """Whether each value is said to come beside an earlier one ("another 3 books", "2 more chapters")."""


def sentences(text: str) -> list[str]:
    body = without_stamp(text).strip()
    # careful: "Dr. Osei" or "St. Ives" is one sentence's words, not the end of one
    pieces = split_sentences(body, careful=True, next_start="capital_or_opening", newlines=True)
    return [s.strip() for s in pieces if s.strip()]


def clauses(sentence: str) -> list[str]:
    """The clauses of a sentence, as frames cut it (", which …", ", and the …", " because …")."""
    return [p for p in _CLAUSE.split(sentence) if p and p.strip()]


def without_subject(text: str, subject: str | None) -> str:
    text = _SUBJECT_WORDS.sub("", text)
    if subject:
        text = re.sub(rf"\b{re.escape(subject)}(?:'s|\u2019s)?\b:?\s*", "", text)
    return re.sub(r"\s+", " ", text).strip(" ,.;:")


def content_words(masked: str) -> int:
    words = {w for w in _WORDS.findall(masked.lower()) if w not in STOPWORDS}
    return len(words - _MARKERS)


_MEASURE_TOKENS = re.compile(rf"{re.escape(MASK)}|[A-Za-z][A-Za-z'-]*")


def only_measures(masked: str) -> bool:
    """Nothing but values and their units ("#, # cm", a list cut from a worked problem): no word
    says what is measured, so no attribute to compare."""
    tokens = _MEASURE_TOKENS.findall(masked)
    return all(t == MASK or (i > 0 and tokens[i - 1] == MASK) for i, t in enumerate(tokens))


@text_cache(maxsize=65536)
def frames(
    text: str, subject: str | None = None, phrases: tuple[str, ...] = (), min_words: int = MIN_FRAME_WORDS
) -> tuple[Frame, ...]:
    """The clauses of `text` that give a value (or hold one of `phrases`), as frames: each clause
    on its own, and with the clause before it, which often says what the value is of ("which rose
    to #")."""
    found: list[Frame] = []
    for original in sentences(text):
        if _HISTORY.match(original):
            continue  # "(previously, DAY: …)": a value already replaced, history rather than a statement
        sentence = original.replace(MASK, _SHARP)  # a "#" of its own ("C#", a code comment) is not a mask
        found_values = values_in(sentence)
        values = [v.normal for v in found_values]
        written = [v.text for v in found_values]
        listed = in_lists(found_values, sentence)
        forms = [
            "list"
            if i in listed
            else "formula"
            if in_formula(v, sentence)
            else _delta(value_form(v, sentence), v, sentence)
            for i, v in enumerate(found_values)
        ]
        anchors = [value_anchor(v, sentence, subject) for v in found_values]
        clauses_at = _clause_of_each(found_values, sentence)
        intents = [intended(sentence, v, clauses_at[i]) for i, v in enumerate(found_values)]
        moved = [changed_at(sentence, v) for v in found_values]
        holders = [holder_of(sentence, v.start, v.end) for v in found_values]
        added = [value_added(sentence, v) for v in found_values]
        pieces = _places_joined([p for p in _CLAUSE.split(mask_values(sentence)) if p and p.strip()])
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
                if MASK in trimmed and content_words(without_subject(trimmed, subject)) >= min_words:
                    clause = trimmed  # "... dropped to # after removing fonts": the why is not the what
                masked = without_subject(clause, subject)
                if content_words(masked) < min_words or only_measures(masked):
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
                        names=names_in(masked) | named_first(sentence),
                        moved=tuple(moved[i] for i in positions),
                        holders=tuple(holders[i] for i in positions),
                        added=tuple(added[i] for i in positions),
                    )
                )
    return tuple(found)


_PLACE_PIECE = re.compile(r"^\s*[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2}\s*$")


def _places_joined(pieces: list[str]) -> list[str]:
    """A piece of nothing but a capitalised name or two ("on Main Street, Westford, next # at #")
    is the place of the piece before it, not a clause: joined back, so the clause after it still
    reads what the place is of."""
    joined: list[str] = []
    for piece in pieces:
        if joined and _PLACE_PIECE.match(piece):
            joined[-1] = f"{joined[-1]}, {piece.strip()}"
        else:
            joined.append(piece)
    return joined


# "600 daily requests" counts requests: a word of period before the unit says how often, not what.
_UNIT_WORD = re.compile(
    rf"^[\s-]*(?P<period>(?:{PERIOD_ADVERBS})\s+)?(?P<word>[a-z][a-z-]+)",
    re.IGNORECASE,
)
_VERSION_LIKE = re.compile(r"^v?\d+\.\d+\.\d+|^v\d")
_RANK = re.compile(r"^\d+(?:st|nd|rd|th)$")


def value_form(value: Value, sentence: str) -> str:
    """What kind of quantity a value is: an amount of money, a percentage, a day, a clock time, a
    version, a rank ("the second draft"), or a count of something ("unit:" and the stem of the word
    after it: "52 sources"). The size of a change is its own kind ("delta:money": "a $900 raise")."""
    text = value.text.lower()
    if value.kind in ("day", "clock"):
        return value.kind
    if text[:1] in "$\u20ac\u00a3":
        return "money"
    if text.endswith("%") or text.endswith("percent"):
        return "percent"
    if _VERSION_LIKE.match(text):
        return "version"
    if re.fullmatch(r"\d+[/:]\d+", text):
        return "ratio"
    if _RANK.match(value.normal):
        return "rank"  # "my first big project", "the 3rd draft": which one, never how many of them
    attached = re.sub(r"^[\d.,]+", "", text)
    if attached and text[:1].isdigit():
        return f"unit:{attached}"
    following = _UNIT_WORD.match(sentence[value.end :])
    word = following.group("word").lower() if following else ""
    if following and following.group("period") and word in STOPWORDS:
        word = following.group("period").strip().lower()  # "42 weekly by July": no noun follows the period
    if word and word not in STOPWORDS:
        return f"unit:{stem(word)}"
    return "number"


FORMULA_REACH = 12
"""Characters on each side of a value in which an operator makes it a term of a computation."""
_FORMULA = re.compile(r"[=\u2248\u00d7\u00f7*^]|\bchoose\b|\bequals?\b|\b\d+C\d+\b", re.IGNORECASE)


def in_formula(value: Value, sentence: str) -> bool:
    """The value is a term or a result of a computation ("5 choose 3 is equal to 10", "10/66 ≈
    0.15"): a worked example, not any attribute's value, so it neither replaces nor is replaced."""
    start, end = max(0, value.start - FORMULA_REACH), value.end + FORMULA_REACH
    return _FORMULA.search(sentence, start, end) is not None


def _delta(form: str, value: Value, sentence: str) -> str:
    """A change's size is a quantity of its own kind ("delta:money" for "a $900 raise")."""
    return f"delta:{form}" if form not in ("day", "clock") and is_delta(sentence, value.start, value.end) else form


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
_NOT_NAMES = frozenset(
    "I I'm I've I'll I'd The A An My Our We What What's How Why When Where Which Who Can Could Should Would Is Are "
    "Do Does Let's Thanks Yes No Sure".split()
)
"""Capitalised by grammar: a question or a reply often opens mid-record ("asked: What's …")."""
_TIME_WORDS = frozenset(MONTHS) | frozenset(WEEKDAYS)
"""Capitalised by custom, not names of things: "in March" / "in April" is when, not which."""


def names_in(text: str) -> frozenset[str]:
    """Capitalised words that are not capitalised by grammar (not opening the text or a sentence)."""
    return frozenset(
        m.group(0).lower()
        for m in _NAME.finditer(text.strip())
        if m.group(0) not in _NOT_NAMES and m.group(0).lower() not in _TIME_WORDS
    )


# "Max, my aunt's cat, is 8": a name set apart by the phrase that says who it is.
_NAMED_FIRST = re.compile(
    r"^\W*(?P<name>[A-Z][a-z]+),\s+(?:the|a|an|my|our|his|her|their|[A-Z][a-z]+'s)\s[^,]{1,60},"
    r"\s+(?:is|was|has|had|turned|turns|became|lives|lived|weighs|weighed)\b"
)


def named_first(sentence: str) -> frozenset[str]:
    """The name a sentence opens on when a phrase between commas says who it is ("Kiwi, the rescue
    parrot, is 3"): capitalised as a name, not by grammar, and the subject of every clause after it."""
    match = _NAMED_FIRST.match(sentence)
    if match is None or match.group("name") in _NOT_NAMES:
        return frozenset()
    return frozenset({match.group("name").lower()})


def frame_words(frame: Frame) -> frozenset[str]:
    """The frame's content tokens: a statement about the same attribute nearly always shares one."""
    return canonical_tokens(frame.masked.replace(MASK, " "))


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
