"""The values a statement gives (amounts, counts, clock times, days: `values_in`, `mask_values`),
which is what two statements about one attribute differ in ("the budget is $40" / "was raised to
$55"), and what the sentence says of each: whether it changed (`says_changed`, `changed_at`), was
added, is the size of a change, numbers a thing, is given per a period, or is held by a noun
modified otherwise than the other statement's. A change stated as such ("aisle, not window") is
read by `language.stated_changes`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from language.text_caches import text_cache
from language.tokens import MONTHS, stem, token_set

# --- values: what two statements about one attribute differ in

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?"
_DAY = (
    rf"{_MONTH}\.?\s+{_ORDINAL}(?:\s*[-\u2013]\s*{_ORDINAL})?(?:,?\s+\d{{4}})?"  # April 22, April 12-15, 2024
    rf"|{_ORDINAL}\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?"  # 22 April 2024, 3rd of May
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)days?"  # Mondays: the day of a weekly slot
    r"|\d{4}-\d{2}-\d{2}"  # 2024-04-22
    r"|(?:1[0-2]|0?[1-9])/(?:3[01]|[12]\d|0?[1-9])(?:/\d{2,4})?"  # 04/28, 4/28/2024 (not 4/52)
)
_FRACTION = r"\d+/\d+|\d+:\d(?!\d)"
"""A ratio ("3/51", "1:4"): one value, not a day, a clock time nor two numbers."""
_CLOCK = r"\d{1,2}(?::\d{2})?\s*(?:[ap]\.m\.|[ap]m)(?![\w])|\d{1,2}:\d{2}"
_AMOUNT = (
    r"[$\u20ac\u00a3]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|bn|million|billion|thousand))?"  # $1,200  $5k
    r"|v?\d(?:[\d,]*\d)?(?:\.\d+)*(?:\s?(?:%|percent\b)|[a-z]{1,3}\b)?"  # 78%  250ms  4K  12  v1.0.0
)
_NUMBER_WORD = (
    r"(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|dozen"
    r"|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)(?:-\w+)?"
)
"""Counts and places said in words ("two dogs", "the fourth floor"); "one" is left out, mostly a
pronoun ("one of them", "the blue one")."""
_COUNTS = "two three four five six seven eight nine ten eleven twelve".split()
_PLACES = "first second third fourth fifth sixth seventh eighth ninth tenth".split()
_SUFFIX = {1: "st", 2: "nd", 3: "rd"}
_IN_DIGITS = {word: str(n) for n, word in enumerate(_COUNTS, start=2)} | {
    word: f"{n}{_SUFFIX.get(n, 'th')}" for n, word in enumerate(_PLACES, start=1)
}
VALUE = re.compile(
    rf"(?<![\w$\u20ac\u00a3])(?:{_DAY}|{_CLOCK}|{_FRACTION}|{_AMOUNT}|{_NUMBER_WORD})(?![\w])", re.IGNORECASE
)
_DAY_ONLY = re.compile(rf"^(?:{_DAY})$", re.IGNORECASE)
_YEAR = re.compile(r"^(?:19|20)\d{2}$")
MASK = "#"


class Value(NamedTuple):
    text: str
    start: int
    end: int

    @property
    def kind(self) -> str:
        """ "day" (a calendar day or year), "clock" or "amount"."""
        if _DAY_ONLY.match(self.text) or _YEAR.match(self.text):
            return "day"
        if re.search(r"[ap]\.?m\.?$|:\d{2}$", self.text, re.IGNORECASE):
            return "clock"
        return "amount"

    @property
    def normal(self) -> str:
        """The value as compared: case, spaces and thousands separators set aside ("$1,200" =
        "$1200"), a number said in words as its digits ("two" = "2", "second" = "2nd")."""
        text = re.sub(r"[\s,]", "", self.text.lower()).rstrip(".").replace("percent", "%")
        text = re.sub(r"^v(?=\d+\.\d)", "", text)  # "v2.4.1" = "2.4.1": one version, two spellings
        return _IN_DIGITS.get(text, text)


def values_in(text: str) -> list[Value]:
    return [Value(m.group(0), m.start(), m.end()) for m in VALUE.finditer(text)]


@text_cache(maxsize=65536)  # the same statement is masked against each rival it is weighed with
def mask_values(text: str, phrases: tuple[str, ...] = ()) -> str:
    """`text` with every value (and every phrase of `phrases`, whole words) replaced by '#'."""
    masked = VALUE.sub(MASK, text)
    for phrase in sorted(phrases, key=len, reverse=True):
        if phrase.strip():
            masked = re.sub(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", MASK, masked, flags=re.IGNORECASE)
    return masked


_TITLE = re.compile(r"[\"\u201c]([^\"\u201c\u201d]{3,80})[\"\u201d]")


@text_cache(maxsize=65536)
def titles_in(text: str) -> frozenset[str]:
    """Quoted titles (a course, a book, a show named in quotes): a title names one thing."""
    return frozenset(m.group(1).strip().lower() for m in _TITLE.finditer(text))


@text_cache(maxsize=65536)
def normal_values(text: str, kind: str | None = None) -> frozenset[str]:
    """The normalised values of `text` (of one kind when `kind` is given). Kept per text: an
    assistant turn's candidate sentences are each checked against the same values the user gave
    (~17 a sentence, a million and a half calls on a long chat)."""
    return frozenset(v.normal for v in values_in(text) if kind is None or v.kind == kind)


def _inflected(*stems: str) -> str:
    return "|".join(stems)


_CHANGE_VERBS = _inflected(
    r"increas(?:e|es|ed|ing)",
    r"decreas(?:e|es|ed|ing)",
    r"rais(?:e|es|ed|ing)",
    r"lower(?:s|ed|ing)?",
    r"reduc(?:e|es|ed|ing)",
    r"drop(?:s|ped|ping)?",
    r"gr[oe]w(?:s|n|ing)?",
    r"r[io]s(?:e|es|en|ing)",
    r"climb(?:s|ed|ing)?",
    r"f[ae]ll(?:s|en|ing)?",
    r"extend(?:s|ed|ing)?",
    r"shorten(?:s|ed|ing)?",
    r"mov(?:e|es|ed|ing)",
    r"reschedul(?:e|es|ed|ing)",
    r"postpon(?:e|es|ed|ing)",
    r"push(?:es|ed|ing)?",
    r"delay(?:s|ed|ing)?",
    r"brought\s+forward|bring(?:s|ing)?\s+forward",
    r"adjust(?:s|ed|ing)?",
    r"updat(?:e|es|ed|ing)",
    r"revis(?:e|es|ed|ing)",
    r"chang(?:e|es|ed|ing)",
    r"switch(?:es|ed|ing)?",
    r"bump(?:s|ed|ing)?",
    r"boost(?:s|ed|ing)?",
    r"expand(?:s|ed|ing)?",
    r"shr[iau]nk(?:s|ing)?",
    r"upgrad(?:e|es|ed|ing)",
    r"downgrad(?:e|es|ed|ing)",
    r"doubl(?:e|es|ed|ing)",
    r"tripl(?:e|es|ed|ing)",
    r"halv(?:e|es|ed|ing)",
    r"improv(?:e|es|ed|ing)",
    r"reach(?:es|ed|ing)?",
    r"jump(?:s|ed|ing)?",
    r"cut(?:s|ting)?",
    r"(?:went|gone|go(?:es)?|come|came)\s+(?:up|down)",
    r"(?:up|down)\s+to",
)
_CHANGED = re.compile(
    rf"\b(?:{_CHANGE_VERBS}|now|new|newly|latest|currently|no\s+longer|anymore|instead|these\s+days|nowadays)\b"
    rf"|\bfrom\s+{MASK}\s+to\b",
    re.IGNORECASE,
)
AUXILIARIES = frozenset(
    "is are was were be been being has have had 's 've 'd get gets got will would to am i'm i've".split()
)
IRREGULAR_PAST = frozenset(
    """
went ran bought did made saw took met spent won lost ate drove flew wrote sold gave came left found paid
told began swam sang rode caught built threw brought taught felt kept sent
""".split()
)
_WORD_RE = re.compile(r"[a-z']+", re.IGNORECASE)
_REPORTING = frozenset("asked said told wondered mentioned noted explained".split())
"""Verbs that report words ("the user asked: …"): the asking is the event, not the value's."""
_ADJECTIVE_ED = frozenset("interested excited tired bored worried scared married retired based used".split())


def says_changed(text: str) -> bool:
    """The statement says a value changed ("raised the budget to #", "is now #", "moved to #",
    "the new deadline is #"): then an older value of the same attribute is over."""
    return bool(_CHANGED.search(text))


_CHANGE_VERB = re.compile(rf"\b(?:{_CHANGE_VERBS})\b", re.IGNORECASE)
_LEADS_TO_VALUE = re.compile(r"\b(?:to|now|new|newly|latest|currently|at|of)\s*$", re.IGNORECASE)
_NEW_JUST_BEFORE = re.compile(
    r"\b(?:now|new|newly|latest|current|currently|revised|updated|adjusted|increased|reduced)\s*$"
)
NOW_REACH_WORDS = 7
"""How many plain words (no punctuation) may stand between "now" and the value it says is current
("so now the team has a total of #": a rewrite in the third person adds a word or two)."""
_NOW_BEFORE = re.compile(rf"\b(?:now|currently|these days)\b(?:\s+[a-z']+){{0,{NOW_REACH_WORDS}}}\s*$", re.IGNORECASE)
CHANGE_REACH_WORDS = 12
"""How far before a value a change verb may stand and still be about it ("moved the weekly pottery
class at the community hall to #"): further away, it is about something else the sentence says."""
_BREAK = re.compile(r"[,;:.!?()]|\b(?:and|but|after|before|since|because|when|while|for|on|in)\b", re.IGNORECASE)


@text_cache(maxsize=65536)
def changed_at(sentence: str, value: Value) -> bool:
    """The sentence says that *this* value is the new one: "raised the rent to #", "the new #
    exam date", "is now #", "rescheduled to #", "from # to #" — not merely that something in it
    changed ("switching to another tuner after #": the switch is not about the day)."""
    before = sentence[: value.start]
    if _NEW_JUST_BEFORE.search(before.lower()):
        return True
    if re.match(r"^(?:\s+[A-Za-z'-]+){0,2}\s+(?:now|these days|nowadays)\b", sentence[value.end :], re.IGNORECASE):
        return True  # "has 52 members now"
    if _NOW_BEFORE.search(before):
        return True  # "now has #", "is now about #", "now practises piano #", "so now I own a total of #"
    if re.search(rf"\b(?:{_CHANGE_VERBS})(?:\s+(?:about|nearly|almost|over|just))?\s*$", before, re.IGNORECASE):
        return True  # "reached #", "grew about #"
    lead = _LEADS_TO_VALUE.search(before)
    if lead is None:
        return False
    reach = before[: lead.start()]
    words = reach.split()[-CHANGE_REACH_WORDS:]
    tail = " ".join(words)
    verb = None
    for match in _CHANGE_VERB.finditer(tail):
        verb = match
    if verb is None:
        return bool(re.search(r"\bnow\b", lead.group(0), re.IGNORECASE))
    between = tail[verb.end() :]
    # "increased the fee for the hall to #" is about the value; "switched to X, and saved #"
    # is not: a break (a clause or another preposition phrase of its own) between them.
    return _BREAK.search(between) is None or lead.group(0).strip().lower() in ("to", "now")


def narrates_past_event(text: str) -> bool:
    """A simple past tense that tells one event ("ran # km", "bought # books", "visited … on #"):
    two such statements with different values are two events, both true. A state ("has # students",
    "is due on #", "has visited # countries", "is interested in #") is not an event."""
    words = [w.lower() for w in _WORD_RE.findall(text)]
    for index, word in enumerate(words):
        if word in _REPORTING:
            continue
        past = word in IRREGULAR_PAST or (len(word) > 4 and word.endswith("ed") and word not in _ADJECTIVE_ED)
        if past and (index == 0 or words[index - 1] not in AUXILIARIES):
            return True
    return False


_ADDITIVE = re.compile(r"\b(?:also|another|additional|extra|again)\b|\bmore\b(?!\s+(?:than|about)\b)", re.IGNORECASE)


def adds_to(text: str) -> bool:
    """The statement gives a value beside an earlier one, not instead of it ("I'll also add $100",
    "another 3 books", "2 more chapters")."""
    return bool(_ADDITIVE.search(text))


ADDED_BEFORE = 3
"""Words before a value in which "another", "also", "extra" say it comes beside an earlier one."""
_MORE_AFTER = re.compile(r"^\s+(?:more|extra|additional)\b", re.IGNORECASE)


def value_added(text: str, value: Value) -> bool:
    """This value comes beside an earlier one ("also added $100", "another 3 books", "2 more
    chapters"), not instead of it: a word of addition elsewhere in the sentence ("to get more
    callbacks") says nothing of this value."""
    before = " ".join(text[: value.start].split()[-ADDED_BEFORE:])
    return bool(_ADDITIVE.search(before)) or bool(_MORE_AFTER.match(text[value.end :]))


_DELTA_NOUNS = (
    "increase|increases|raise|rise|hike|bump|boost|cut|cuts|reduction|decrease|drop|jump|gain|discount|improvement"
)
_DELTA_AFTER = re.compile(
    rf"^\s+(?:(?:[a-z][a-z-]*\s+){{0,2}}(?:{_DELTA_NOUNS})\b"
    r"|(?:[a-z]+\s+)?(?:more|less|fewer|higher|lower|above|below|short)\b(?!\s+than\s+(?:that|this|before)\b)"
    # "$8 over the $35 budget": how far past an allowance, not a level ("$500 over the summer" is one)
    r"|(?:[a-z]+\s+)?(?:over|under)\s+(?:[\w'$,.-]+\s+){0,4}?(?:budget|limit|target|goal|cap|quota|estimate|allowance)s?\b)",
    re.IGNORECASE,
)
_DELTA_BEFORE = re.compile(
    r"\b(?:by|another|extra|additional)\s+(?:an?\s+|about\s+|around\s+|nearly\s+)?$", re.IGNORECASE
)


# What a verb takes away ("cut 150 pages", "trimmed 800 words from the essay", "took $15 off the
# bill") is the size of the cut, not what is left: "cut" and its kin right before the value say so
# by themselves; "take" and "knock" only with "from"/"off" ("it took 3 hours" is a duration).
_CUT_BEFORE = re.compile(
    r"\b(?:cut|cuts|cutting|trim(?:s|med|ming)?|remov(?:e|es|ed|ing)|delet(?:e|es|ed|ing)|shav(?:e|es|ed|ing)"
    r"|drop(?:s|ped|ping)?)\s+(?:off\s+)?(?:an?\s+|about\s+|around\s+|nearly\s+|another\s+)?$",
    re.IGNORECASE,
)
_TAKEN_BEFORE = re.compile(
    r"\b(?:knock(?:s|ed|ing)?|took|takes?|taking)\s+(?:off\s+)?(?:an?\s+|about\s+|around\s+|nearly\s+)?$",
    re.IGNORECASE,
)
_TAKEN_AFTER = re.compile(r"^(?:\s+[\w'-]+){0,3}?\s+(?:from|off|out\s+of)\b", re.IGNORECASE)


@text_cache(maxsize=65536)
def is_delta(sentence: str, start: int, end: int) -> bool:
    """The value at `sentence[start:end]` is the size of a change or a difference ("a $2,000 pay
    raise", "up by 15%", "$6 more than planned", "a 10% discount", "cut 300 words from the
    essay"), not the level of what changed: a raise and the salary it raised are two quantities."""
    before, after = sentence[:start], sentence[end:]
    if _DELTA_AFTER.match(after) or _DELTA_BEFORE.search(before):
        return True
    return bool(_CUT_BEFORE.search(before)) or bool(_TAKEN_BEFORE.search(before) and _TAKEN_AFTER.match(after))


_NAMED_NUMBER = re.compile(r"\b([A-Z][a-z]{2,})\s+$")
_NOT_NAMES = frozenset(
    "the this that these those there then and but our your their his her its what which when after before "
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)
_ORDINAL_NUMBER = re.compile(r"^\d+(?:st|nd|rd|th)$")
_NOUN_AFTER = re.compile(r"^\s+([a-z][a-z-]{2,})\b")


class Numbered(NamedTuple):
    noun: str
    """The stem of the noun the number names one of."""
    number: str
    named: bool
    """A name ("Sprint 2"), not an ordinal ("the first sprint")."""


@text_cache(maxsize=16384)
def identifiers(text: str) -> frozenset[Numbered]:
    """The numbers that may say *which* thing a sentence is about rather than a value of it: a
    number naming something ("Sprint 2", "Phase 3") and an ordinal before a noun ("the first
    sprint"). An ordinal alone is often the value itself ("the flat is on the fourth floor")."""
    found: set[Numbered] = set()
    for value in values_in(text):
        if value.kind != "amount":
            continue
        number = value.normal
        named = _NAMED_NUMBER.search(text[: value.start])
        if named and number.isdigit() and named.group(1).lower() not in _NOT_NAMES:
            found.add(Numbered(stem(named.group(1).lower()), number, named=True))
        elif _ORDINAL_NUMBER.match(number) and (noun := _NOUN_AFTER.match(text[value.end :])):
            found.add(Numbered(stem(noun.group(1).lower()), re.sub(r"\D", "", number), named=False))
    return frozenset(found)


_LY = {
    "daily": "day",
    "nightly": "day",
    "weekly": "week",
    "monthly": "month",
    "quarterly": "quarter",
    "yearly": "year",
    "annual": "year",
    "annually": "year",
}
PERIOD_ADVERBS = "|".join(_LY)
"""The words that say how often ("daily", "monthly", …), as a regex alternation."""
_PERIOD = re.compile(
    r"^\s*(?:[a-z]+(?:\s+|(?=/))){0,2}?(?:(?:a|per|each|every|/)\s*(?P<unit>day|night|week|month|quarter|year)"
    rf"|(?P<ly>{PERIOD_ADVERBS}))\b",
    re.IGNORECASE,
)
_MONTH = rf"(?:{'|'.join(MONTHS)}|{'|'.join(m[:3] for m in MONTHS)}|sept)\b\.?"
# "a monthly budget of $300", "the Sept-Nov travel allowance to $600", "Q3 target: 40": the period is
# said in the noun phrase the value is given for, a few words before it.
_PERIOD_BEFORE = re.compile(
    rf"(?:\b(?P<ly>{PERIOD_ADVERBS})"
    rf"|\b(?P<span>{_MONTH}\s*(?:-|\u2013|to|through)\s*{_MONTH}|q[1-4])\b)"
    r"(?:\s+[\w'-]+){0,3}?[\s:]+(?:(?:of|to|is|was|at|now|are|were)\s+)?(?:about\s+|around\s+|only\s+|just\s+)?$",
    re.IGNORECASE,
)


@text_cache(maxsize=16384)
def period_of(text: str, said: str) -> str:
    """The period a rate is given per ("75 pages daily" -> "day", "$300 a month" -> "month", "a
    monthly budget of $300" -> "month", "the Sept-Nov allowance to $600" -> "span"), "" for none: an
    amount per day and one per week, or a month's budget and a season's, are two attributes, not
    an old and a new value."""
    # the value with the unit it is joined to ("a daily 700-word target", "a 5-mile daily run")
    at = re.search(rf"(?<![\w-]){re.escape(said)}(?:-[A-Za-z]+)?(?![\w-])", text)
    if at is None:
        return ""
    match = _PERIOD.match(text[at.end() :])
    if match is not None:
        unit = match.group("unit").lower() if match.group("unit") else _LY[match.group("ly").lower()]
        return "day" if unit == "night" else unit
    before = _PERIOD_BEFORE.search(text[max(0, at.start() - 80) : at.start()])
    if before is None:
        return ""
    return _LY[before.group("ly").lower()] if before.group("ly") else "span"


_WORD_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*")
_PHRASE_BREAKS = frozenset("in on at for of from with by during since until and or to about after before than".split())
_NOT_MODIFIERS = frozenset(
    "the a an my our your his her their its this that these those new old current monthly weekly daily yearly "
    "annual total whole same other another "
    # a word of the change itself says which value, not which thing ("the increased budget")
    "increased raised reduced lowered adjusted updated revised extended cut higher lower bigger smaller".split()
)


@text_cache(maxsize=65536)
def modifiers_clash(one: str, other: str, heads: frozenset[str]) -> bool:
    """A noun both sentences use is modified differently on each side, and neither side's
    modifier appears in the other sentence: "the parking fee" / "the gym fee", "a dinner
    reservation" / "a hotel reservation" name two things, not one with two values. `heads`: the
    nouns (canonical tokens) the two values share as anchors."""
    mine, theirs = _modifiers(one, heads), _modifiers(other, heads)
    one_tokens, other_tokens = _stems(one), _stems(other)
    for head in mine.keys() & theirs.keys():
        a, b = mine[head], theirs[head]
        if a and b and not (a & b) and not (a & other_tokens) and not (b & one_tokens):
            return True
    return False


def _stems(text: str) -> frozenset[str]:
    return token_set(text)  # the stems anchors are made of (`dreaming.embedding.canonical_tokens` alike)


@text_cache(maxsize=16384)
def _word_stems(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """The words of a text, its values read as "the", each with its stems (one sentence is
    compared with many: read once)."""
    return tuple((word, _stems(word)) for word in _WORD_TOKEN.findall(mask_values(text).replace(MASK, " the ")))


def _modifiers(text: str, heads: frozenset[str]) -> dict[str, frozenset[str]]:
    """For each of `heads` the text says, the nearest content word before it ("the night shift
    allowance" -> shift, "a weekend ferry ticket" -> ferry); none when a determiner, a possessive
    or a value comes first."""
    words = _word_stems(text)
    found: dict[str, set[str]] = {}
    for index, (_, stems) in enumerate(words):
        head = stems & heads
        if not head:
            continue
        modifier: frozenset[str] = frozenset()
        for before, before_stems in reversed(words[max(index - 3, 0) : index]):
            lower = before.lower()
            if lower in _NOT_MODIFIERS or lower.endswith(("'s", "\u2019s")):
                break
            if lower in _PHRASE_BREAKS:
                break  # a preposition or a conjunction ends the phrase: "subscriptions in January"
            modifier = before_stems - head
            if modifier:
                break
        for h in head:
            found.setdefault(h, set()).update(modifier)
    return {h: frozenset(m) for h, m in found.items()}
