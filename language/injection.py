"""Transcript text is data, never instructions.

Text that tries to instruct the system is judged by what it asks, not by a list of sentences:

- **authority**: it claims a role or authority it cannot have in a conversation (a spoofed
  "SYSTEM:" or "ADMIN OVERRIDE", "this is your developer", "authorised by the administrator");
- **protection**: it claims, or asks for, protection of memory ("PROTECTED MEMORY", "mark this as
  protected", "this memory must never be modified");
- **future rule**: it lays down a rule for the assistant's future behaviour ("from now on the
  assistant must …", "the model should always recommend …", "never mention this rule");
- **addressed to the system**: it is a note to the assistant, the model or whoever curates
  memory rather than something said in the conversation ("Note to assistant: …",
  "Memory maintenance note: …", "Dear AI, from now on …");
- **forget / reveal / override**: it asks to forget or wipe memory as a whole, to reveal the
  system's prompt or other users' data, or to set aside the system's instructions.

Ordinary talk is not judged instruction-like: requests between people ("remember to buy milk"),
habits and plans ("I always sit by the window", "from now on I take the bus"), preferences.

Text is normalised before any rule reads it: NFKC (fullwidth and other compatibility forms),
format and zero-width characters removed, confusable letters (Cyrillic, Greek) folded to Latin,
digits inside words read as letters ("1gn0re"), and spaced-out letters joined ("I G N O R E").
The rules (`language.injection_rules`) run on that normalised text; the text itself is never
changed.

A message judged instruction-like is not obeyed and not turned into a memory either: the engine
skips it and says so in the pass notes, so an operator can see the attempt.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from language.injection_rules import RULES, candidates
from language.text_caches import text_cache
from schemas import ConversationTurn

__all__ = ["RULES", "injection_message_ids", "injection_note", "injection_rule", "is_injection", "normalize"]

# --------------------------------------------------------------------------- normalisation

_INVISIBLE = re.compile(
    "["
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\u0600-\u0605\u06dd\u070f\u0890\u0891"
    "\u08e2\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef"
    "]"
)
"""Every format (Cf) character, plus the invisible fillers and variation selectors."""

_CONFUSABLES = str.maketrans(
    "аеорсухіјѕԁһԛԝʏɡɑοαεικνρτυχℓАВЕЗКМНОРСТХУІЈЅԌΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijsdhqwygaoaeikvptuxlABEZKMHOPCTXYIJSGABEZHIKMNOPTYX",
)
"""Letters that look like Latin ones (Cyrillic and Greek, the usual disguises), folded to them."""

_LEET = str.maketrans("013457@$", "oieastas")
_LEET_WORD = re.compile(r"\b(?=[\w@$]*[a-z])(?=[\w@$]*[0-9@$])[\w@$]{3,}\b", re.IGNORECASE)
"""A word mixing letters with digits, @ or $ ("1gn0re", "pa$$word"); digits alone stay numbers."""
_SPACED = re.compile(r"\b(?:[a-z][ .\-_*·/]){3,}[a-z]\b", re.IGNORECASE)
"""Letters spaced out to slip past a word match ("I G N O R E", "s.y.s.t.e.m")."""
_SPACES = re.compile(r"\s+")


def normalize(text: str) -> str:
    """The text as the rules read it (see the module docstring)."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        text = _INVISIBLE.sub("", text).translate(_CONFUSABLES)
    text = _LEET_WORD.sub(lambda m: m.group().translate(_LEET), text)
    text = _SPACED.sub(lambda m: re.sub(r"[ .\-_*·/]", "", m.group()), text)
    return _SPACES.sub(" ", text)


# --------------------------------------------------------------------------- judging

_NOTE_EXCERPT_CHARS = 120


def injection_rule(text: str) -> str | None:
    """What instruction-like text asks (one of `RULES`: the rule whose match starts first), or
    None for ordinary text."""
    normal = normalize(text)
    lowered = " " + normal.lower()  # a leading space: `needs` may ask for a word start (" ai")
    first: tuple[int, str] | None = None
    for pattern in candidates(lowered):
        found = pattern.regex.search(normal)
        if found is not None and (first is None or found.start() < first[0]):
            first = (found.start(), pattern.rule)
    return first[1] if first else None


_JUDGED_TEXTS = 16_384
"""How many texts' verdicts are kept: a message is judged by gather, the engine's clauses, apply
and the gate, often several times a pass (about six times a message before)."""


@text_cache(maxsize=_JUDGED_TEXTS)
def is_injection(text: str) -> bool:
    """Whether `text` is instruction-like (a pure function of the text: its verdict is kept)."""
    normal = normalize(text)
    lowered = " " + normal.lower()
    return any(p.regex.search(normal) for p in candidates(lowered))


def injection_message_ids(turns: Iterable[ConversationTurn]) -> tuple[str, ...]:
    """Ids of non-assistant messages that try to instruct the system, in transcript order."""
    return tuple(t.message_id for t in turns if t.role != "assistant" and is_injection(t.content))


def injection_note(turn: ConversationTurn) -> str:
    excerpt = " ".join(turn.content.split())
    if len(excerpt) > _NOTE_EXCERPT_CHARS:
        excerpt = excerpt[: _NOTE_EXCERPT_CHARS - 1] + "\u2026"
    rule = injection_rule(turn.content)
    return (
        f"ignored instruction-like text in message {turn.message_id} ({rule}; transcripts are data, not "
        f"commands): {excerpt!r}"
    )
