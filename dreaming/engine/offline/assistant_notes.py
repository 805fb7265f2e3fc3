"""What an AI assistant said that the conversation relies on, as one short attributed memory.

An assistant's turn is advice about the user's task, never the user's own statement: it is stored
as "The assistant recommended: ..." or "The assistant said: ...", citing the turn. Assistant turns
are long (plans, code, alternatives), so only the few sentences a later question would turn on
are kept, chosen by the structure of the dialogue rather than by topic words:

- sentences that carry a value the user did not give (a number, date, version, name: a computed
  total, a date in the plan, the library it recommended), that answer the user's message (they
  share its words), or that speak of the user's world ("your deadline", "you can ...");
- headings and list items of a plan count as sentences; code, greetings ("Certainly!") and
  questions back to the user never do;
- the best of them, in the order said, up to `NOTE_MAX_WORDS` words.

A turn with nothing of that kind (a greeting, a clarifying question, code alone, a confirmation
that only repeats the user's values: "Noted: the deadline is May 3") leaves no memory.
"""

from __future__ import annotations

import re

from dreaming.embedding import canonical_tokens
from dreaming.engine.offline.extraction import Fact
from dreaming.engine.offline.facts import finish_sentence
from language.chatter import classify_sentence, sentences
from language.dates import rewrite_relative_time, stamped
from language.injection import is_injection
from language.markup import plain_text
from language.person import to_third_person
from language.values import new_values, value_words
from schemas import ConversationTurn

ATTRIBUTION = re.compile(r"^(?:\[\d{4}-\d{2}-\d{2}\]\s+)?The assistant (?:recommended|said):")
_ASKED = re.compile(
    r"^(?:\[\d{4}-\d{2}-\d{2}\]\s+)?[\w' -]{1,40}? asked(?: (?:the assistant|[A-Z][\w'-]+))? to |^[^:]{1,60} asked: "
)
NOTE_MAX_WORDS = 45
NOTE_MAX_SENTENCES = 3
SENTENCE_MAX_WORDS = 35
"""Longer sentences are explanations, not the point a question turns on."""
MIN_SCORE = 2
_ADVICE = re.compile(
    r"(?i)\b(?:recommend|suggest|consider|should|could|try|use|using|implement|switch|add|set up|make sure|ensure"
    r"|avoid|opt for|go with|start with|focus on|prioriti[sz]e|schedule|plan|allocate|aim for|limit|increase"
    r"|reduce|replace)\b"
)
_YOU = re.compile(r"(?i)\b(?:you|your|you're|you've|you'll)\b")
_WORD = re.compile(r"[\w'\u2019]+")


def is_assistant_note(text: str) -> bool:
    """A memory of what the assistant said (this module's wording)."""
    return ATTRIBUTION.match(text) is not None


def is_reported_speech(text: str) -> bool:
    """A record of someone's words: what the assistant said, what a person asked
    (`extraction`: "Ava asked the assistant to ...", "Ava asked: ..."). A correction never
    rewrites one into words that were not said; it retires it."""
    return is_assistant_note(text) or _ASKED.match(text) is not None


_ANSWERED = re.compile(r'^(?:\[\d{4}-\d{2}-\d{2}\]\s+)?Asked "[^"]*", [^:]{1,60}? said: ')


def is_answer_record(text: str) -> bool:
    """A person's reply quoted with the question it answers (`extraction`: 'Asked "How old is
    she?", Ines said: She's 4.'): their own statement, but in their words; a newer value retires
    it rather than putting words in their mouth."""
    return _ANSWERED.match(text) is not None


def what_was_said(text: str) -> str:
    """The words a record of speech reports, without who said or asked them: "The assistant
    said: Done: window seat 14A." -> "Done: window seat 14A."."""
    for pattern in (ATTRIBUTION, _ASKED):
        match = pattern.match(text)
        if match:
            return text[match.end() :].strip()
    return text


def _score(sentence: str, known: set[str], asked: frozenset[str], people: tuple[str, ...]) -> int:
    """What the sentence adds: a value the user did not give (2), words of the user's message
    (up to 3: it answers it), the user's world ("your ...", 1)."""
    score = 2 if new_values(sentence, known, people) else 0
    shared = canonical_tokens(sentence) & asked
    score += min(len(shared), 3)
    if _YOU.search(sentence):
        score += 1
    return score


def _candidates(content: str) -> list[str]:
    found = []
    for sentence in sentences(plain_text(content)):
        words = len(_WORD.findall(sentence))
        if 3 <= words <= SENTENCE_MAX_WORDS and classify_sentence(sentence) == "statement":
            found.append(sentence)
    return found


def assistant_note(
    turn: ConversationTurn,
    asked: ConversationTurn | None,
    user_name: str | None,
    people: tuple[str, ...] = (),
    told: str = "",
) -> Fact | None:
    """The memory an assistant turn leaves, or None (`asked`: the user message it answers;
    `told`: what the user said before in the session, whose values the assistant only repeats)."""
    candidates = _candidates(turn.content)
    if not candidates:
        return None
    asked_text = plain_text(asked.content) if asked is not None else ""
    asked_tokens = canonical_tokens(asked_text)
    known = value_words(f"{asked_text}\n{told}", people)
    scored = [(_score(s, known, asked_tokens, people), -i, s) for i, s in enumerate(candidates)]
    chosen: list[tuple[int, str]] = []
    words = 0
    for score, neg_index, sentence in sorted(scored, reverse=True):
        size = len(_WORD.findall(sentence))
        if score < MIN_SCORE or len(chosen) >= NOTE_MAX_SENTENCES:
            break
        if words + size > NOTE_MAX_WORDS:
            continue
        chosen.append((-neg_index, sentence))
        words += size
    if not chosen or not any(new_values(s, known, people) for _, s in chosen):
        return None  # it only repeats what the user said ("Noted: the deadline is May 3")
    said = " ".join(
        finish_sentence(
            to_third_person(
                rewrite_relative_time(s, turn.ts).text,
                "the assistant",
                other=user_name or "the user",
                generic_you=False,  # an assistant's "you can ..." is advice to the user
            )
        )
        for _, s in sorted(chosen)
    )
    verb = "recommended" if _ADVICE.search(said) else "said"
    body = f"The assistant {verb}: {said}"
    assert is_assistant_note(body)
    if is_injection(body):
        return None
    return Fact(body, stamped(body, turn.ts), "assistant", turn.content)
