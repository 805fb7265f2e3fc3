"""Could two frames' values be one attribute's old and new value? The cheap checks, no model:
the same holder and named things, a value the newer statement no longer gives, of the same kind
beside some of the same words, and not two events or two numbered things. `slots` then asks the
sentence embeddings whether the two frames are one attribute.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from dreaming.embedding import canonical_tokens
from dreaming.engine.offline.slot_frames import Frame, frames
from language.amount_roles import roles_clash, same_allowance
from language.changes import Numbered, Value, adds_to, identifiers, modifiers_clash, normal_values, period_of, titles_in
from language.dates import without_stamp
from language.running_totals import grows, tells_earlier_moment
from language.text_caches import text_cache
from language.tokens import stem
from language.value_holders import (
    COUNTED,
    EE,
    Holder,
    counts_the_same_people,
    holders_clash,
    people_roles,
    same_holder,
)
from language.values import said_at

ANCHORED_SHARED_WORDS = 2
"""A pair whose newer value is said to be the new one is *anchored* (compared at
`slots.ANCHORED_SLOT_COSINE`) only when the two values share this many anchor words that say which quantity it is
("climbing gym fee" / "climbing gym fee"; "gym fee" / "parking fee" share one)."""


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


def other_names(a: frozenset[str], b: frozenset[str], a_text: str = "", b_text: str = "") -> bool:
    """Each side names something the other does not: "Project Cobra" / "Project Orca". A name the
    other side's text writes in lower case is no other name ("a Zoom call" / "the zoom call")."""
    only_a, only_b = a - b, b - a
    if not only_a or not only_b:
        return False
    return bool(only_a - _words_in(b_text)) and bool(only_b - _words_in(a_text))


@text_cache(maxsize=4096)
def _words_in(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9][a-z0-9'-]*", text.lower()))


def rival_frames(
    new: str, old: str, subject: str | None = None, common: frozenset[str] = frozenset()
) -> list[tuple[Frame, Frame]]:
    """(new frame, old frame) pairs whose values could be one attribute's new and old value: what
    the sentence embeddings are then asked about (cheap checks first, no model)."""
    new_frames, old_frames = kinded_frames(new, subject), kinded_frames(old, subject)
    if not new_frames or not old_frames:
        return []
    stated_now = _stated(new)
    return [
        (fresh, stale)
        for fresh, _, sought in new_frames
        for stale, given, _ in old_frames
        if sought & given and _rivals(fresh, stale, stated_now, common)
    ]


_PEOPLE_KINDS = {EE: "people:" + EE, COUNTED: "people:" + COUNTED}
"""The kinds a count of "-ee" people and a count of the people its verb names are given under: the two
pair across kinds (*derived*), the newer one said to be new."""
_SEEKS = {EE: _PEOPLE_KINDS[COUNTED], COUNTED: _PEOPLE_KINDS[EE]}

_Kind = tuple[str, bool, str]
"""(whose, wanted or planned, kind of value): values pair only within one."""


@text_cache(maxsize=32_768)
def kinded_frames(text: str, subject: str | None) -> tuple[tuple[Frame, frozenset[_Kind], frozenset[_Kind]], ...]:
    """Each frame with the kinds its values are given under as an older frame and sought under as a
    newer one. Pairs of frames sharing no kind are never rivals (`rivalry_of` pairs only values of one
    holder and intent whose kinds are the same or a bare number beside the other's unit word, a day
    only when the newer one is said to be new): most of a big scope's memories are left out by a
    set intersection instead of the whole check. `test_slot_kinds` holds the two to each other."""
    return tuple((frame, _kinds_given(frame), _kinds_sought(frame)) for frame in frames(text, subject))


def _kinds_given(stale: Frame) -> frozenset[_Kind]:
    found: set[_Kind] = set()
    # zipped with the values said, as `rivalry_of` zips them: a frame's tuples end where its values do
    for form, anchors, intent, _, holder in zip(
        stale.forms, stale.anchors, stale.intents, stale.said_values, _holders(stale)
    ):
        if form.startswith("delta:") or form == "formula":
            continue
        found.add((stale.holder, intent, form))
        if form == "number":  # "reached 165" near "commits" is found by "150 commits"
            found.update((stale.holder, intent, f"unit:{word}") for word in anchors)
        if holder is not None:
            found.update((stale.holder, intent, _PEOPLE_KINDS[role]) for role in people_roles(holder))
    return frozenset(found)


def _kinds_sought(fresh: Frame) -> frozenset[_Kind]:
    found: set[_Kind] = set()
    moved = fresh.moved or (False,) * len(fresh.said_values)
    for form, anchors, intent, _, is_moved, holder in zip(
        fresh.forms, fresh.anchors, fresh.intents, fresh.said_values, moved, _holders(fresh)
    ):
        if form != "day" or is_moved:
            found.add((fresh.holder, intent, form))
        if form == "number":
            found.update((fresh.holder, intent, f"unit:{word}") for word in anchors)
        if is_moved and holder is not None:
            found.update((fresh.holder, intent, _SEEKS[role]) for role in people_roles(holder))
    return frozenset(found)


def _rivals(fresh: Frame, stale: Frame, stated_now: frozenset[str], common: frozenset[str] = frozenset()) -> bool:
    """Values that could be one attribute's old and new value: of the same holder and named
    things, the newer statement no longer gives one the older gave, and the pair is not two events."""
    return rivalry_of(fresh, stale, stated_now, common) is not None


PLAIN, MOVED, HELD, ANCHORED, DERIVED = "plain", "moved", "held", "anchored", "derived"
"""How strongly a pair of frames' values look like one attribute's old and new value: *moved*, the
newer value is itself said to be the new one ("raised the rent to #"; a change word elsewhere
in the clause — "has gone from # to #" beside "completed # problems" — says nothing of the other
value); *held*, both values belong to one noun phrase, qualified alike ("5 job offers" / "the job
offers grew to 7", `language.value_holders`), the newer said to be new or both holders qualified by
a word in common: the framing around them may differ as much as a worry and a question do;
*anchored*, moved and of the same specific kind beside the same qualifying words; *derived*, a
count of people said to be new and an older count of the people a verb's "-ee" noun names
("mentoring 5 women" / "the number of mentees grew to 7", `value_holders.counts_the_same_people`):
the words themselves say it is one count, whatever the clauses around them say."""


class _Pair(NamedTuple):
    """An older and a newer value that could be one attribute's, and how they look."""

    old_form: str
    new_form: str
    moved: bool
    """The newer value is itself said to be the new one."""
    anchored: bool
    held: bool
    weak: bool
    """Only the plain cosine may make them one attribute (`holders_apart`, `_other_start`, `_far_apart`, a rank)."""
    grown: bool = False
    """A running total of things done grew (`language.running_totals`): the total now, not another
    event; one attribute's by meaning only when the nouns counted say which ones alike."""
    unadded: bool = False
    """The newer value is said to be the new one with no word of addition before it ("extended to
    May 9 because of extra tests": the addition is the reason's, not the value's)."""
    derived: bool = False
    """A count of "-ee" people and the count of the people the verb names (*derived*)."""
    bare: bool = False
    """Nothing but the holder's noun says which thing the two values are of (`Rivalry.bare`)."""


class Rivalry(NamedTuple):
    strength: str
    """PLAIN, MOVED, HELD, ANCHORED or DERIVED."""
    bare: bool
    """The two values share nothing that says which thing they are of but their holder's bare noun
    ("has got a deadline of #" / "the deadline was extended to #"): no qualifying word, no name, no
    modifier of the holder in common. Such a noun means the thing the conversation is about, so in a
    scope where someone keeps several deadlines it is one of them, not each (`corrections.one_thing`)."""


def rivalry_of(
    fresh: Frame, stale: Frame, stated_now: frozenset[str], common: frozenset[str] = frozenset()
) -> Rivalry | None:
    """None when the frames are no old and new value of one attribute; else how strongly they look
    like one (PLAIN, MOVED, HELD, ANCHORED or DERIVED) and whether only a bare holder ties them."""
    if not fresh.values or not stale.values or fresh.holder != stale.holder:
        return None
    if other_names(fresh.names, stale.names, fresh.sentence, stale.sentence):
        return None
    if other_names(titles_in(fresh.sentence), titles_in(stale.sentence)):
        return None  # a score in one titled course and one in another: two things
    if _pronouns_clash(fresh.masked, stale.masked):
        return None  # "he is # years old" / "she is # years old": two beings
    if _a_list(stale) or _a_list(fresh):
        return None  # "a box of 30, 40 and 50 cm": measurements of one thing, not one attribute's value
    if tells_earlier_moment(fresh.sentence, stale.sentence):
        return None  # "had done 12 drills" after "has done 15 drills": an earlier moment told again
    gone = [
        (f, a, i, said, h)
        for n, f, a, i, said, h in zip(
            _normals(stale), stale.forms, stale.anchors, stale.intents, stale.said_values, _holders(stale)
        )
        if n not in stated_now or _starts_change(fresh.sentence, said)  # "from # to …": said again as past
    ]
    said_before = _stated(stale.sentence)  # "… to $500, and later to $550": not new
    fresh_values = [
        (f, a, i, said, m, h, added)
        for n, f, a, i, said, m, h, added in zip(
            _normals(fresh),
            fresh.forms,
            fresh.anchors,
            fresh.intents,
            fresh.said_values,
            fresh.moved or (False,) * len(fresh.said_values),
            _holders(fresh),
            fresh.added or (False,) * len(fresh.said_values),
        )
        if n not in stale.values and n not in said_before
    ]
    pairs: list[_Pair] = []
    # The words any old value and any new one are said beside: "spent $575 on sneakers … a $600
    # annual budget" / "a budget of $650 for new sneakers" say which budget by "sneakers", though
    # the two budgets' own clauses share only the noun.
    shared = frozenset().union(*((g[1] & f[1]) for g in gone for f in fresh_values))
    occasion = _same_occasion(fresh.sentence, stale.sentence)
    # "after 12 drills, accuracy went from 70% to 90%" / "has done 15 drills with 95% accuracy": a
    # running total that grew makes the two clauses one progress report, whose other values (not the
    # counts) of one noun ("accuracy") are then one attribute's as surely as if qualified alike.
    grown_pairs = {
        (so, sn)
        for fo, _, _, so, _ in gone
        if fo.startswith("unit:")
        for fn, _, _, sn, _, _, _ in fresh_values
        if fo == fn and grows(fresh.sentence, sn, stale.sentence, so)
    }
    progress = bool(grown_pairs)
    for fo, ao, io, so, ho in gone:
        for fn, an, i_n, sn, m, hn, added in fresh_values:
            # "mentoring 5 women" / "the number of mentees grew to 7": two nouns, one count of people
            derived = bool(m) and _same_people(hn, ho, fresh.sentence, stale.sentence)
            if io != i_n or not (same_kind(fo, fn, ao, an) or derived) or fo.startswith("delta:") or fo == "formula":
                continue  # the cheap checks first (two changes' sizes are two changes, not one value's)
            if _starts_change(fresh.sentence, sn) or _starts_change(stale.sentence, so):
                continue  # "went from # to …": a value the sentence itself says is past
            if _other_start(fresh.sentence, sn, stale.values) and _from_to(stale.sentence, so):
                continue  # "went from 65% to 82%" / "went from 78% to 88%": two series, each complete
            if ho is not None and hn is not None and holders_clash(hn, ho, fresh.sentence, stale.sentence):
                continue  # "coverage of the billing module" / "coverage of the search module": two things
            if roles_clash(fresh.sentence, sn, stale.sentence, so):
                continue  # "spent $61 on games" / "a game budget of $70": what went out, what may
            grown = (so, sn) in grown_pairs
            # One named thing on one day at two times of day: that occasion's time, told anew
            # ("the Lakeside Cafe on May 3 at 6 PM" / "free at 7 PM on May 3 for the Lakeside Cafe").
            rescheduled = fo == fn == "clock" and occasion and bool(fresh.names & stale.names)
            held = (
                (grown and _qualified(hn, ho))  # "10 chess drills done" -> "15 chess drills done"
                or (
                    not added
                    and fo == fn
                    and (m or occasion or (progress and not fo.startswith("unit:")) or _qualified(hn, ho))
                    and _held(hn, ho, fresh.sentence, stale.sentence)
                )
                or rescheduled
                or (derived and not added)
            )
            if not held and _bare_duration(fo) and not _qualifiers(ao & an, fo) - common:
                continue  # "# years already" / "# years now": nothing says what lasted, two things as often as one
            if (held or (ao & an) - common) and _same_period(
                period_of(stale.sentence, so), period_of(fresh.sentence, sn)
            ):
                anchored = m and (
                    len(_qualifiers(ao & an, fo) - common) >= ANCHORED_SHARED_WORDS
                    or (fo == fn and same_allowance(fresh.sentence, sn, stale.sentence, so))
                )
                weak = (
                    not rescheduled
                    and not derived
                    and (
                        fo == "rank"  # "the first ace" / "the second ace": which one, two things as often as one
                        or holders_apart(hn, ho, fresh.sentence, stale.sentence)
                        or _other_start(fresh.sentence, sn, stale.values)
                        or (_far_apart(fo, so, sn) and not _qualified(hn, ho))
                    )
                )
                unadded = m and not _added_before(fresh.sentence, sn)
                # A word the scope says everywhere still says which thing ("hiring" in a chat
                # about hiring ties two hiring cycles): `common` is not left out here.
                heads = frozenset(h.head for h in (ho, hn) if h is not None)
                bare = not (
                    derived or fresh.names & stale.names or _qualified(hn, ho) or _qualifiers(shared, fo) - heads
                )
                pairs.append(
                    _Pair(
                        fo,
                        fn,
                        m,
                        anchored,
                        held,
                        weak,
                        grown=grown,
                        unadded=unadded,
                        derived=derived and not added,
                        bare=bare,
                    )
                )
    # Two days are usually two events: a day pair counts only when the newer day is itself said to be
    # the new one ("moved the ferry to #"), whatever other value the older clause gave.
    pairs = [p for p in pairs if p.old_form != "day" or p.moved]
    if not pairs:
        return None
    if modifiers_clash(stale.sentence, fresh.sentence, shared):
        return None  # "the parking fee" / "the gym fee": one noun, two things
    if other_numbered(identifiers(fresh.sentence), identifiers(stale.sentence)):
        return None  # "Stage 2" / "the first stage": two stages, each with its own date
    held_only = all(p.held for p in pairs)
    if (fresh.additive and not held_only and not all(p.unadded for p in pairs)) or (
        (fresh.event or stale.event)
        and not fresh.changed
        and not (occasion and held_only)
        and not any(p.grown for p in pairs)
    ):
        # "ran # km on Saturday" / "ran # km this morning": two runs; "also add #": one more (a
        # pair of one holder was judged by the words about its own value, `Frame.added`)
        return None
    if not any(g[0] != "day" for g in gone) and not any(p.moved for p in pairs if p.new_form == "day"):
        # Two days are usually two events; only a day itself said to be the new one ("moved the
        # ferry to #", "the new # exam date") replaces one ("switching to a new tuner after #" does not).
        return None
    if not (fresh.changed or any(g[0] != "day" for g in gone)):
        return None
    # A pair whose values two nouns hold, whose newer statement says it changed from a third value,
    # or whose amounts are an order of magnitude apart is one attribute only when the two clauses
    # say nearly the same thing (the plain cosine): no looser judgement for it.
    strong = [p for p in pairs if not p.weak]
    bare = all(p.bare for p in strong or pairs)
    if any(p.anchored and p.old_form == p.new_form and p.old_form != "number" for p in strong):
        return Rivalry(ANCHORED, bare)
    if any(p.held for p in strong):
        return Rivalry(DERIVED if all(p.derived for p in strong if p.held) else HELD, bare)
    return Rivalry(MOVED if any(p.moved for p in strong) else PLAIN, bare)


@text_cache(maxsize=16384)
def _stated(sentence: str) -> frozenset[str]:
    """The values a memory sentence states, normalised, its date stamp left out."""
    return normal_values(without_stamp(sentence))


def _added_before(sentence: str, said: str) -> bool:
    """A word of addition ("also", "another", "extra") comes before the value in its sentence."""
    at = said_at(sentence, said)
    return at is None or adds_to(sentence[: at.start()])


def _same_occasion(one: str, other: str) -> bool:
    """Both sentences give the same calendar days (and some day): the same occasion said twice,
    where two counts of one thing are one count corrected, not two events."""
    days = _days(one)
    return bool(days) and days == _days(other)


@text_cache(maxsize=16384)
def _days(sentence: str) -> frozenset[str]:
    return normal_values(without_stamp(sentence), "day")


def holders_apart(one: Holder | None, other: Holder | None, one_sentence: str, other_sentence: str) -> bool:
    """Two values held by two nouns, neither of which the other sentence says ("the $150 gift swap" /
    "the gift budget is now $450"): as often two things as one, whatever else the clauses share."""
    if (one is None) != (other is None):
        # One value's holder is a pronoun or nothing ("improved it to #"): apart when the other
        # value's noun is never said beside it ("the 300ms debounce" / "improved it to 220ms").
        named, bare_sentence = (other, one_sentence) if one is None else (one, other_sentence)
        assert named is not None
        return (
            named.head not in _GENERIC_HEADS
            and named.head not in _MEASURE_HEADS
            and not any(w.startswith(named.head) for w in _stem_set(bare_sentence))
        )
    if one is None or other is None or one.head.startswith(other.head) or other.head.startswith(one.head):
        return False  # "saves #" / "savings of #": one stem cut short
    if one.head in _GENERIC_HEADS or other.head in _GENERIC_HEADS:
        return False
    return one.head not in _stem_set(other_sentence) and other.head not in _stem_set(one_sentence)


@text_cache(maxsize=16384)
def _stem_set(text: str) -> frozenset[str]:
    return frozenset(stem(w.lower()) for w in re.findall(r"[A-Za-z][A-Za-z'-]*", text))


_FROM_TO = re.compile(
    r"\bfrom\s+(?:about\s+|around\s+)?(?P<old>\S+)\s+(?:\S+\s+)?(?:up\s+|down\s+)?to\s+(?:about\s+)?$"
)


_FROM = re.compile(r"\bfrom\s+(?:about\s+|around\s+)?", re.IGNORECASE)
_THEN_TO = re.compile(r"(?![\w-])\s+(?:\S+\s+)?(?:up\s+|down\s+)?to\b", re.IGNORECASE)


@text_cache(maxsize=65536)
def _starts_change(sentence: str, said: str) -> bool:
    """The value is where a change the sentence states began ("from # to 80%"). No pattern is
    built per value: one per value and sentence cost more than the rest of the check."""
    lowered, value = sentence.lower(), said.lower()
    return any(
        lowered.startswith(value, start.end()) and _THEN_TO.match(sentence, start.end() + len(value))
        for start in _FROM.finditer(sentence)
    )


@text_cache(maxsize=65536)
def _from_to(sentence: str, said: str) -> bool:
    """The value is the end of a change the sentence states whole ("went from 65% to #")."""
    at = said_at(sentence, said)
    return at is not None and _FROM_TO.search(sentence[: at.start()]) is not None


@text_cache(maxsize=65536)
def _other_start(sentence: str, said: str, stale: frozenset[str]) -> bool:
    """The newer sentence says its value changed from a value the older clause does not give ("went
    from 60% to 85%" against an older 90%): the older value is what it was somewhere else, or long
    before. (`stale`: the older clause's values, normalised.)"""
    at = said_at(sentence, said)
    if at is None:
        return False
    match = _FROM_TO.search(sentence[: at.start()])
    if match is None:
        return False
    start = _normal(match.group("old").rstrip(",.;:"))
    return start != _normal(said) and start not in stale


MAGNITUDE = 10
"""Two amounts of money this many times apart are rarely one budget or price before and after, unless
both holders say which one by a word in common ("the emergency fund for the move")."""


def _far_apart(form: str, one: str, other: str) -> bool:
    if form != "money":
        return False
    a, b = _amount(one), _amount(other)
    return a is not None and b is not None and min(a, b) > 0 and max(a, b) / min(a, b) >= MAGNITUDE


def _amount(said: str) -> float | None:
    match = re.search(r"\d[\d,]*(?:\.\d+)?", said)
    if match is None:
        return None
    number = float(match.group(0).replace(",", ""))
    scale = re.search(r"(k|m|bn|million|billion|thousand)\s*$", said.lower())
    factor = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
    return number * factor[scale.group(1)] if scale else number


_MEASURE_HEADS = frozenset(stem(w) for w in "hour minute second day week month year night percent point".split())
"""Units read as holders ("# hours"): they say how a value is counted, not what it is of."""

_UNIT_HEADS = _MEASURE_HEADS | frozenset(
    stem(w) for w in "word page mile kilometer km meter metre step calorie pound kilogram kg gram dollar euro".split()
)
"""Units of time, length, weight, text and money read as holders."""

_GENERIC_HEADS = frozenset(
    stem(w) for w in "thing stuff one part item lot bit time way total amount number figure value level point".split()
)
"""Heads that name no attribute of their own: "a total of #" is held by whatever the sentence counts."""


def _held(one: Holder | None, other: Holder | None, one_sentence: str, other_sentence: str) -> bool:
    """Both values belong to one specific noun (`language.value_holders`). A unit ("# words", "#
    hours") is one noun only when both say which count it is by a word in common ("# words a
    week" / "a weekly target of # words"): "wrote 150 pages so far" and "a target of 900 pages"
    count two things in one unit."""
    return (
        one is not None
        and other is not None
        and one.head not in _GENERIC_HEADS
        and (one.head not in _UNIT_HEADS or _qualified(one, other))
        and same_holder(one, other, one_sentence, other_sentence)
    )


def _same_people(one: Holder | None, other: Holder | None, one_sentence: str, other_sentence: str) -> bool:
    return one is not None and other is not None and counts_the_same_people(one, other, one_sentence, other_sentence)


def _qualified(one: Holder | None, other: Holder | None) -> bool:
    """Both holders say which one by a word in common ("the snack budget" / "the party snack budget"):
    a bare noun ("accuracy", "words", "cost") held by both sides is often two things' unless the new
    value is said to be the new one."""
    return one is not None and other is not None and bool(one.modifiers & other.modifiers)


def _holders(frame: Frame) -> tuple[Holder | None, ...]:
    return frame.holders or (None,) * len(frame.said_values)


_PERIOD_WORDS = canonical_tokens("day days week weeks month months year years night nights hour minute per")


def _qualifiers(shared: frozenset[str], form: str) -> frozenset[str]:
    """Shared anchor words that say *which* quantity it is: not the counted noun itself (the same
    form already says it) nor a period ("a week")."""
    unit = frozenset({form[5:]}) if form.startswith("unit:") else frozenset()
    return shared - unit - _PERIOD_WORDS


def _bare_duration(form: str) -> bool:
    """A value counted in a unit of time ("5 years", "three weeks"): the unit says nothing of what
    lasted; only a holder or a shared qualifying word does."""
    return form.startswith("unit:") and form[5:] in _PERIOD_WORDS


_PERSONAL = re.compile(r"\b(he|she)\b", re.IGNORECASE)


def _pronouns_clash(one: str, other: str) -> bool:
    """One clause speaks of a "he" and the other of a "she", neither of both: two beings."""
    a, b = _personal(one), _personal(other)
    return len(a) == 1 and len(b) == 1 and a != b


@text_cache(maxsize=65536)
def _personal(text: str) -> frozenset[str]:
    return frozenset(m.lower() for m in _PERSONAL.findall(text))


def _same_period(a: str, b: str) -> bool:
    """A rate per day and one per week are two attributes, not an old and a new value."""
    return not a or not b or a == b


def other_numbered(a: frozenset[Numbered], b: frozenset[Numbered]) -> bool:
    """One noun is numbered differently on each side, by a name on at least one side ("Sprint 2" /
    "the first sprint"; `language.changes.identifiers`): two ordinals are often the values."""
    return any(x.noun == y.noun and x.number != y.number and (x.named or y.named) for x in a for y in b) and not (a & b)


def _a_list(frame: Frame) -> bool:
    """Three or more values of one kind in one clause, or a value of a list."""
    return _listed(frame.forms)


@text_cache(maxsize=4096)
def _listed(forms: tuple[str, ...]) -> bool:
    return "list" in forms or any(forms.count(form) >= 3 for form in set(forms))


def _normals(frame: Frame) -> list[str]:
    return [_normal(text) for text in frame.said_values]


@text_cache(maxsize=65536)
def _normal(said: str) -> str:
    return Value(said, 0, 0).normal
