"""What an AI assistant said that the conversation relies on, as short attributed memories.

An assistant's turn is advice about the user's task, never the user's own statement: it is stored
as "The assistant recommended: ..." or "The assistant said: ...", citing the turn. Assistant turns
are long (plans, code, alternatives), so only the few sentences a later question would turn on
are kept, chosen by the structure of the dialogue rather than by topic words:

- a sentence is kept only when it carries a value the user did not give (a number, date, version,
  name, a count in words: a computed total, a date in the plan, the library it recommended, "your
  three children"); among those, the ones that answer the user's message (they share its words)
  or speak of the user's world ("your deadline", "you can ...") first;
- headings and list items of a plan count as sentences; code, greetings ("Certainly!") and
  questions back to the user never do;
- each kept sentence is one memory (one fact per memory, found by its own words), at most
  `NOTE_MAX_FACTS` of them and `NOTE_MAX_WORDS` words a turn, so the assistant's prose does not
  flood memory;
- a structured reply also leaves its outline, one memory ("The assistant outlined: Week 1 (April
  1 - April 7); ...; Budget: 450 euros", `reply_outline`): what it covered, found by its titles.

A turn with nothing of that kind (a greeting, a clarifying question, code alone, a confirmation
that only repeats the user's values: "Noted: the deadline is May 3") leaves no memory.
"""

from __future__ import annotations

import re

from dreaming.embedding import canonical_tokens
from dreaming.engine.offline.extraction import Fact
from dreaming.engine.offline.facts import finish_sentence
from dreaming.engine.offline.reply_outline import reply_outline
from language.changes import normal_values
from language.chatter import classify_sentence, sentences
from language.dates import rewrite_relative_time, stamped
from language.injection import is_injection
from language.markup import plain_text
from language.person import to_third_person
from language.values import numbers, value_words
from schemas import ConversationTurn

_STAMPED = r"^(?:\[\d{4}-\d{2}-\d{2}\]\s+)?"
"""A memory's text opens on the day it was said, when it has one."""
ATTRIBUTION = re.compile(rf"{_STAMPED}The assistant (?:recommended|said|outlined):")
_OUTLINE_LEAD = "The assistant outlined:"
_OUTLINED = re.compile(_STAMPED + re.escape(_OUTLINE_LEAD))
_ASKED = re.compile(_STAMPED + r"[\w' -]{1,40}? asked(?: (?:the assistant|[A-Z][\w'-]+))? to |^[^:]{1,60} asked: ")
NOTE_MAX_WORDS = 60
"""Words of one turn's notes together (before the attribution and the date)."""
NOTE_MAX_FACTS = 3
SENTENCE_MAX_WORDS = 35
"""Longer sentences are explanations, not the point a question turns on."""
MIN_SCORE = 2
_ADVICE = re.compile(
    r"(?i)\b(?:recommend|suggest|consider|should|could|try|use|using|implement|switch|add|set up|make sure|ensure"
    r"|avoid|opt for|go with|start with|focus on|prioriti[sz]e|schedule|plan|allocate|aim for|limit|increase"
    r"|reduce|replace)\b"
)
_YOU = re.compile(r"(?i)\b(?:you|your|you're|you've|you'll)\b")
_COUNT = re.compile(
    r"(?i)\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|twenty|thirty|forty|fifty|hundred)"
    r"\s+(?:more\s+|new\s+|extra\s+|full\s+)?[a-z]{3,}"
)
"""A count said in words ("three children", "two full days"): a value as much as "3 children"."""
_WORD = re.compile(r"[\w'\u2019]+")
_PERSON = re.compile(r"(?i)\b(?:i|me|my|mine|we|us|our|ours|you|your|yours)\b")
"""A word `to_third_person` rewrites in an assistant's text."""


def is_assistant_note(text: str) -> bool:
    """A memory of what the assistant said (this module's wording)."""
    return ATTRIBUTION.match(text) is not None


def is_outline(text: str) -> bool:
    """A memory of what a reply covered (`reply_outline`): a list of its titles, no statement of a value."""
    return _OUTLINED.match(text) is not None


def is_reported_speech(text: str) -> bool:
    """A record of someone's words: what the assistant said, what a person asked
    (`extraction`: "Ava asked the assistant to ...", "Ava asked: ..."). A correction never
    rewrites one into words that were not said; it retires it."""
    return is_assistant_note(text) or _ASKED.match(text) is not None


_ANSWERED = re.compile(_STAMPED + r'Asked "[^"]*", [^:]{1,60}? said: ')


def is_answer_record(text: str) -> bool:
    """A person's reply quoted with the question it answers (`extraction`: 'Asked "How old is
    she?", Ines said: She's 4.'): their own statement, but in their words; a newer value retires
    it rather than putting words in their mouth."""
    return _ANSWERED.match(text) is not None


def in_their_words(text: str) -> bool:
    """A record of someone's words (what was said or asked, a reply quoted with its question):
    a stale one is archived, never rewritten into words nobody said."""
    return is_reported_speech(text) or is_answer_record(text)


def what_was_said(text: str) -> str:
    """The words a record of speech reports, without who said or asked them: "The assistant
    said: Done: window seat 14A." -> "Done: window seat 14A."."""
    for pattern in (ATTRIBUTION, _ASKED):
        match = pattern.match(text)
        if match:
            return text[match.end() :].strip()
    return text


_FORMULA = re.compile(r"\\[a-zA-Z]+\s*[{(\[]|\\[()\[\]]")
"""LaTeX ("\\frac{10}{22}", "\\( x \\)"): a formula is worked maths, not a sentence to remember."""
_EXAMPLE = re.compile(r"(?i)^(?:examples?|for example|for instance|e\.g\.)\b[:,]?")
"""An illustration ("Example: if you score 70% ..."): an invented case, behind what the turn says of the user's."""
_LABEL = re.compile(r"^[A-Z][\w'&/ -]{0,40}:\s+")
"""A plan's item label ("Weekly Review: ...", "Marital Deduction: ..."): capitalised as a title, not a name."""
_TITLE_WORD = re.compile(r"\b[A-Z][\w'-]*")
_USER_WORLD = re.compile(
    r"(?i)\b(?:you have|you've got|you own|you're|you are|you were|you've"
    r"|your \w+(?: \w+)? (?:is|are|was|were|has|have))\b"
)
"""What the assistant says the user has or is ("you have three children", "your lease is ..."): the user's world."""


def _values(text: str, people: tuple[str, ...]) -> set[str]:
    return value_words(text, people) | {m.group(0).lower() for m in _COUNT.finditer(text)}


def _is_title(text: str) -> bool:
    """A heading in title case ("Choose The Right Winter Tyres"): its capitals name nothing."""
    words = text.split()
    return len(words) >= 2 and len(_TITLE_WORD.findall(text)) * 2 >= len(words)


def _new_values(sentence: str, known: set[str], said: frozenset[str], people: tuple[str, ...]) -> set[str]:
    """The values `sentence` states that `known` lacks (`said`: their normal values, `_meant`); a
    label's or a heading's capitals are not names."""
    body = _LABEL.sub("", sentence)
    found = (
        _values(body, people)
        if not _is_title(body)
        else set(numbers(body)) | {m.group(0).lower() for m in _COUNT.finditer(body)}
    )
    return {v for v in found - known if not (meant := normal_values(v)) or not meant <= said}


def _meant(known: set[str]) -> frozenset[str]:
    """Values as meant, not as spelled: "six months" repeats the user's "6 months"."""
    return frozenset().union(*(normal_values(k) for k in known))


def _score(sentence: str, asked: frozenset[str]) -> int:
    """What a sentence stating a value the user did not give adds: that value (2), words of the
    user's message (up to 3: it answers it), the user's world ("your ...": 1; what the user has or
    is: 2)."""
    score = 2
    shared = canonical_tokens(sentence) & asked
    score += min(len(shared), 3)
    if _USER_WORLD.search(sentence):
        score += 2
    elif _YOU.search(sentence):
        score += 1
    if _EXAMPLE.match(sentence):
        score -= 2
    return score


_QUOTED_LINE = re.compile(r'^(?:[A-Z][\w\'& -]{0,30}:\s*)?["\u201c](?:[^"\u201d]*|[^"\u201d]*["\u201d]\W*)$')
"""A sentence that is all one quotation ('"He walked slowly down the street."', 'Draft: "I leave my
home to ...'): a line written for someone else to say or an example of style, in another voice
than the assistant's. A quoted title inside a statement ('"Dune" is 600 pages long') is no such line."""


_PLACEHOLDER = re.compile(r"\[(?:[A-Z][a-z]+|[A-Z]{2,}|[NXYZ])(?:[\s/-]+[A-Za-z]+){0,11}\](?!\()")
"""A template's blank ("[Date]", "[Insert amount]", "[Your Name]", "[Team Member]", "over [X] years"; not a link's
"[text](url)", a citation "[2]" or a redaction in lower case): the sentence is a form to fill in,
whatever else it names, not something that holds."""


_CUT_SHORT = re.compile(r"(?i)\b(?:is|are|was|were|be|equals|of|to|by|with|for|and|or|the|a|an)\s*[.:]?\s*$")
"""A sentence ending on a word that needs what follows ("The probability is."): its value was a
formula or a block the text no longer holds."""


def _candidates(content: str) -> list[str]:
    """The sentences a note may be made of, by their form alone; whether each is a statement is
    asked later, of those with a new value only (`classify_sentence` is the costly test)."""
    found = []
    for sentence in sentences(plain_text(content)):
        words = len(_WORD.findall(sentence))
        if (
            3 <= words <= SENTENCE_MAX_WORDS
            and not _FORMULA.search(sentence)
            and not _QUOTED_LINE.match(sentence)
            and not _PLACEHOLDER.search(sentence)
            and not _CUT_SHORT.search(sentence)
        ):
            found.append(sentence)
    return found


def assistant_notes(
    turn: ConversationTurn,
    asked: ConversationTurn | None,
    user_name: str | None,
    people: tuple[str, ...] = (),
    told: str = "",
) -> list[Fact]:
    """The memories an assistant turn leaves: one sentence each, in the order said, then its
    outline (`asked`: the user message it answers; `told`: what the user said before in the
    session, whose values the assistant only repeats)."""
    asked_text = plain_text(asked.content) if asked is not None else ""
    asked_tokens = canonical_tokens(asked_text)
    covered = _outline_note(turn, asked_tokens, user_name)
    candidates = _candidates(turn.content)
    if not candidates:
        return covered
    known = _values(f"{asked_text}\n{told}", people)
    meant = _meant(known)
    scored = [
        (_score(s, asked_tokens), -i, s)
        for i, s in enumerate(candidates)
        if _new_values(s, known, meant, people)  # a note is a value the user did not give
        and classify_sentence(s) == "statement"
    ]
    chosen: list[tuple[int, str]] = []
    words = 0
    for score, neg_index, sentence in sorted(scored, reverse=True):
        size = len(_WORD.findall(sentence))
        if score < MIN_SCORE or len(chosen) >= NOTE_MAX_FACTS:
            break
        if words + size > NOTE_MAX_WORDS:
            continue
        chosen.append((-neg_index, sentence))
        words += size
    notes = []
    for _, sentence in sorted(chosen):
        said = finish_sentence(_in_third_person(rewrite_relative_time(sentence, turn.ts).text, user_name))
        verb = "recommended" if _ADVICE.search(said) else "said"
        notes.extend(_note(f"The assistant {verb}: {said}", turn))
    return notes + covered


def _in_third_person(text: str, user_name: str | None) -> str:
    return to_third_person(
        text,
        "the assistant",
        other=user_name or "the user",
        # "we'll add an index to our table": the two at work, on the user's project
        we=f"the assistant and {user_name or 'the user'}",
        ours=f"{user_name or 'the user'}'s",
        generic_you=False,  # an assistant's "you can ..." is advice to the user
    )


def _note(body: str, turn: ConversationTurn) -> list[Fact]:
    assert is_assistant_note(body)
    return [] if is_injection(body) else [Fact(body, stamped(body, turn.ts), "assistant", turn.content)]


def _outline_note(turn: ConversationTurn, asked: frozenset[str], user_name: str | None) -> list[Fact]:
    """The reply's outline as one note, or none (`reply_outline`)."""
    items = reply_outline(turn.content, asked)
    if not items:
        return []
    listed = "; ".join(items)
    if _PERSON.search(listed):  # titles seldom name anyone: most outlines skip the rewrite
        listed = _in_third_person(listed, user_name)
    return _note(finish_sentence(f"{_OUTLINE_LEAD} {listed}"), turn)
