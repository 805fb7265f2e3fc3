"""Where a sentence ends: the one splitter, and how careful each reader needs it to be.

Every reader ends a sentence at `.`, `!` or `?` followed by whitespace. What differs is what it
can afford to get wrong, so that is a parameter, not a copy:
- `careful`: not after an initial or a title ("J.K. Rowling", "Dr. Lee", "e.g."), and past
  closing quotes or brackets. Chatter reads every sentence of a conversation on its own.
- `next_start`: what the next sentence must open with. "capital": a capital or a digit, maybe
  after an opening quote or bracket (so "v2. then" stays one); "capital_or_opening": a capital, a
  digit, a quote or a parenthesis; "any": anything (a memory's own text, written by the engine).
- `semicolons`: a semicolon ends a clause too (the clause classifier).
- `newlines`: a line break ends a sentence even without punctuation (messages, not memories).

Each caller strips the pieces and drops what it must.
The gather pass reads the same ends in polars (`dreaming.passes.gather.classify_clauses`).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

NextStart = Literal["any", "capital", "capital_or_opening"]

_AFTER_END = r"(?<=[.!?])"
NOT_AFTER_ABBREVIATION = (
    r"(?<!\b[A-Z]\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!\bMt\.)(?<!\bMrs\.)(?<!\bvs\.)"
    r"(?<!\be\.g\.)(?<!\bi\.e\.)"
)
"""Lookbehinds, after a full stop: not the end of an initial, a title or an abbreviation."""
_CLOSING_QUOTES = r"[\"')\]]*"
_NEXT_START = {
    "any": "",
    "capital": r"(?=[\"'(\[]?[A-Z0-9])",
    "capital_or_opening": r"(?=[A-Z0-9\"'(])",
}


@cache
def sentence_end(
    *, careful: bool = False, next_start: NextStart = "any", semicolons: bool = False, newlines: bool = False
) -> re.Pattern[str]:
    """The compiled boundary for these options (see the module docstring)."""
    end = _AFTER_END
    if careful:
        end += NOT_AFTER_ABBREVIATION + f"({_CLOSING_QUOTES})"  # captured: `split_sentences` keeps them
    alternatives = [end + r"\s+" + _NEXT_START[next_start]]
    if semicolons:
        alternatives.append(r"\s*;\s*")
    if newlines:
        alternatives.append(r"\n+")
    return re.compile("|".join(alternatives))


def split_sentences(
    text: str,
    *,
    careful: bool = False,
    next_start: NextStart = "any",
    semicolons: bool = False,
    newlines: bool = False,
) -> list[str]:
    """`text` cut at its sentence ends, pieces not stripped. A closing quote or bracket after the
    end stays with its sentence ('My favourite film is "Up."'): the boundary passes over it."""
    pattern = sentence_end(careful=careful, next_start=next_start, semicolons=semicolons, newlines=newlines)
    parts = pattern.split(text)
    if not pattern.groups:
        return parts
    pieces = [parts[0]]
    for closers, piece in zip(parts[1::2], parts[2::2], strict=True):
        pieces[-1] += closers or ""  # None where a semicolon or a line break ended it
        pieces.append(piece)
    return pieces
