"""Capitals for messages typed without them.

Many people chat in lower case ("hey mel! i went to the lgbtq group yesterday. it was great").
The readers find sentence ends, names, the first person and titles partly by their capitals, so a
message typed that way read as typed is one long sentence about nobody: on LoCoMo in lower case
the store fell from 5,821 to 4,302 memories and its recall below the raw transcript's.

A message is *typed in lower case* when none of its sentences (code aside) opens with a capital.
Such a message is read with its capitals put back (`restore`), in its prose only (code, inline
code, links and addresses stay as typed):
- the first word of each sentence, of each line and of each list item;
- the pronoun "I" ("i", "i'm", "i've", "i'll", "i'd");
- the days of the week and the months (not "may" or "march");
- the words the scope's other messages write capitalised in mid-sentence more often than not
  (`CaseTable`: names, places, titles, acronyms: "Caroline", "Boston", "LGBTQ");
- a short form of a speaker's name where it addresses them ("hey mel!", "thanks, jo.");
- a word a greeting calls someone by at least twice, set off by punctuation ("hey caroline!"): in a
  chat without name prefixes typed in lower case, nothing else tells the people's names.

The table learns from messages in the order they were written, so a message is read with what the
messages before it show, whichever pass reads it.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from typing import NamedTuple

from language.sentences import NOT_AFTER_ABBREVIATION
from language.speakers import ADDRESS_OPENERS

_PROTECTED = re.compile(
    r"(?=[`~hw])(?:```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`|\b(?:https?://|www\.)\S+)|\S+@[\w-]+\.[\w.]+",
    re.DOTALL,
)
"""Spans read as typed: code, links, e-mail addresses."""

_LEAD = (
    rf"(?P<lead>\A\s*|[.!?]{NOT_AFTER_ABBREVIATION}[\"')\]]*\s+"
    r"|\n[ \t]*(?:(?:[-*+>\u2022]|#{1,6}|\d{1,3}[.)])[ \t]+)?)(?P<quote>[\"'(\[]?)"
)
"""Where a sentence, a line or a list item opens, and an opening quote or bracket."""
_SENTENCE_START = re.compile(_LEAD + r"(?P<word>[A-Za-z])")
_LOWER_START = re.compile(_LEAD + r"(?P<word>[a-z][a-z'\u2019]*)(?![\w'\u2019]|[@/:.\-_]\w)")
"""A lower-case first word; not a path, an address or an abbreviation ("e.g.", "npm.js")."""
_FIRST_LETTER = re.compile(r"[A-Za-z]")
_PRONOUN_I = re.compile(r"(?<![\w'\u2019.-])i(?=['\u2019](?:m|ve|ll|d)\b|(?![\w'\u2019-]|\.\w))")
_WORD = re.compile(r"(?<![\w'\u2019-])[a-z]+(?:-[a-z]+)*(?![\w-])")
"""A lower-case word, hyphened parts and all ("well-known"), before any "'s": what is restored
and what is counted, so both sides of a word's count read it alike."""
_OPENER = rf"(?:\A|[.!?]\s+)\s*(?:{ADDRESS_OPENERS})(?:\s+(?:so much|a lot|again))?[,!.]?\s+"
_CLOSER = r",\s+(?P<closed>[a-z]{2,20})\s*[!.?]+(?:\s|\Z)"
_ADDRESSED = re.compile(rf"{_OPENER}(?P<opened>[a-z]{{2,20}})\b|{_CLOSER}")
"""A word after a greeting or thanks, or closing a sentence after a comma: whom it is said to."""

_CAPITALISED = r"(?:[A-Z][a-z]+(?:-[A-Z]?[a-z]+)*|[A-Z]{2,6}s?)"
_GREETING = (
    r"(?:\A|[.!?]\s+)\s*(?:hi|hiya|hey|hello|heya|yo|thanks|thank you|thx|congrats|congratulations|cheers|bye|dear"
    r"|good (?:morning|afternoon|evening|night)|morning)(?:\s+(?:so much|a lot|again))?[,!.]?\s+"
)
_CALLED = re.compile(rf"{_GREETING}(?P<called>[a-z]{{2,20}})(?=\s*(?:[!,.?]|\Z))")
"""A word a greeting or thanks calls the listener by, set off by punctuation ("hey mel!",
"thanks, jon."). Not "yeah, definitely!" nor "…, right?": those openers and closers take any word."""
_NOT_NAMES = frozenset(
    """
there guys man dude buddy babe all everyone everybody friend friends mate bro girl girls hun honey sweetie love dear
folks team sir madam mom mum dad again too worries problem though then now so lol haha you
""".split()
)
"""Words people are called by that are no one's name."""
ADDRESSED_MIN_TIMES = 2
"""A word the chat calls someone by this often is a name ("hey mel!" twice: Mel)."""
_MID_SENTENCE_CAPITALS = re.compile(
    rf"(?:(?<![\w'\u2019-])[a-z][a-z'\u2019-]*|\d|,) (?P<run>{_CAPITALISED}(?: {_CAPITALISED})*)(?![\w-])"
)
"""Capitalised words after a lower-case word, a digit or a comma: names ("to New York"), not a
sentence's first word nor a heading's ("Additional Tips")."""
_CALENDAR = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february april june july august september "
    "october november december".split()
)
"""Capitalised in English whoever writes them ("may" and "march" are also verbs)."""
CAPITALISED_MIN_TIMES = 2
"""A word is written capitalised after this many capitalised uses (more than its lower-case ones)."""


def _protected_spans(text: str) -> tuple[list[int], list[int]]:
    starts: list[int] = []
    ends: list[int] = []
    for match in _PROTECTED.finditer(text):
        starts.append(match.start())
        ends.append(match.end())
    return starts, ends


def _prose(text: str) -> str:
    return _PROTECTED.sub(" ", text)


def typed_in_lower_case(text: str) -> bool:
    """Whether the message has no capital letter, or its sentences all open in lower case."""
    if text.islower():
        return True
    first = _FIRST_LETTER.search(text)
    if first is None or first.group().isupper():
        return False  # most messages: read no further
    prose = _prose(text)
    opened = False
    for match in _SENTENCE_START.finditer(prose):
        if match.group("word")[0].isupper():
            return False
        opened = True
    return opened


class CaseTable:
    """How the scope's messages write their words: the capitalised forms of names, places, titles
    and acronyms, learned from messages typed with capitals, and the speakers' names."""

    def __init__(self) -> None:
        self._capitalised: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self._lower: Counter[str] = Counter()
        self._names: dict[str, str] = {}
        self._called: Counter[str] = Counter()
        self._people: list[str] = []

    def add_person(self, name: str) -> None:
        """A speaker's name (a message prefix): written as given, its short forms where it addresses."""
        if name not in self._people:
            self._people.append(name)
        for word in name.split():
            self._names[word.lower()] = word

    def hear(self, text: str) -> None:
        """Count the words a message typed in lower case calls its listener by: names."""
        for match in _CALLED.finditer(text):
            word = match.group("called")
            if word not in _NOT_NAMES:
                self._called[word] += 1

    def learn(self, text: str) -> None:
        """Count how a message typed with capitals writes its words."""
        prose = _prose(text)
        for match in _MID_SENTENCE_CAPITALS.finditer(prose):
            for word in match.group("run").split(" "):
                self._capitalised[word.lower()][word] += 1
        self._lower.update(_WORD.findall(prose))

    def form(self, word: str) -> str | None:
        """The capitalised form of a lower-case word, when the scope writes it so."""
        if word in self._names:
            return self._names[word]
        if word in _CALENDAR or self._called[word] >= ADDRESSED_MIN_TIMES:
            return word.capitalize()
        forms = self._capitalised.get(word)
        if not forms:
            return None
        total = sum(forms.values())
        if total < CAPITALISED_MIN_TIMES or total <= self._lower[word]:
            return None
        return forms.most_common(1)[0][0]

    def restore(self, text: str, names: bool = True) -> str:
        """`text` (typed in lower case) with its capitals put back; its code and links as typed.
        `names`: the table's names too (else sentence starts, "I" and short forms of the speakers'
        names where they address)."""
        free = _free_of(text)

        def named(match: re.Match[str]) -> str:
            word = match.group(0)
            return (self.form(word) or word) if free(match.start()) else word

        def addressed(match: re.Match[str]) -> str:
            group = "opened" if match.group("opened") else "closed"
            word = match.group(group)
            person = next((p for p in self._people if p.lower().startswith(word)), None)
            if person is None or not free(match.start(group)):
                return match.group(0)
            offset = match.start(group) - match.start()
            return match.group(0)[:offset] + word.capitalize() + match.group(0)[offset + len(word) :]

        def opened(match: re.Match[str]) -> str:
            if not free(match.start("word")):
                return match.group(0)
            word = match.group("word")
            return match.group("lead") + match.group("quote") + word[0].upper() + word[1:]

        if names:
            text = _WORD.sub(named, text)
        text = _ADDRESSED.sub(addressed, text)
        text = _PRONOUN_I.sub(lambda m: "I" if free(m.start()) else m.group(0), text)
        return _LOWER_START.sub(opened, text)


def _free_of(text: str) -> Callable[[int], bool]:
    """Whether a position of `text` lies outside its code, links and addresses."""
    starts, ends = _protected_spans(text)

    def free(position: int) -> bool:
        index = bisect_right(starts, position) - 1
        return index < 0 or position >= ends[index]

    return free


class Typed(NamedTuple):
    writer: str
    """Who typed it: the speaker's name, else the role."""
    name: str | None
    """The speaker's name when the message gives one (its prefix)."""
    text: str


def restore_all(messages: Iterable[Typed]) -> list[str]:
    """Each message in the order written, read as `CaseTable` reads a scope: one typed in lower
    case with its capitals back, every other one as typed. Names from the table only in a message
    with no capital at all by a writer who has typed none so far: one who capitalises "Flask" but
    types "hmm, what's the best way …" wrote their names as they are. So the table learns only when
    such a message needs it (most scopes: never)."""
    table = CaseTable()
    unlearned: list[str] = []
    capitalising: set[str] = set()
    restored: list[str] = []
    for writer, name, text in messages:
        if name is not None:
            table.add_person(name)
        if text != text.lower():
            capitalising.add(writer)
        if not typed_in_lower_case(text):
            unlearned.append(text)
            restored.append(text)
            continue
        table.hear(text)
        names = writer not in capitalising
        if names:
            for earlier in unlearned:
                table.learn(earlier)
            unlearned.clear()
        restored.append(table.restore(text, names))
    return restored
