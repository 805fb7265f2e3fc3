"""Prose out of chat markup: what a person would read aloud from a message.

Messages written to or by an assistant carry Markdown and code: fenced blocks, inline code, headings,
bullet lists, bold. Code is never a memory (it is the user's program, not a fact about them), and
markup must not glue a heading, a list item and the next sentence into one "sentence". So:

- fenced code blocks (```…```, ~~~…~~~) and lines indented by four spaces or a tab (without a
  list marker) are dropped; an unclosed fence drops
  the rest of the message (what follows an opened fence is code until it is closed);
- inline code keeps its text without the backticks (`Flask-Login` is a name worth keeping);
- each heading, list item, table row and quoted line becomes its own line, without its marker,
  and a line that does not end a sentence gets a full stop so the sentence splitter ends it there;
- emphasis markers (**, __, *, _) are removed; links keep their text.

`outline` reads the same lines for their structure instead: the headings and the labels of list
items ("- **Budget**: 450 euros"), in order, which is what a structured reply covered.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_BULLET = re.compile(r"^\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+")
_QUOTE = re.compile(r"^\s*>\s?")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$")
_INDENTED_CODE = re.compile(r"^(?: {4,}|\t)\S")
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1|(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?!\w)")
_INLINE_CODE = re.compile(r"`([^`\n]*)`")
_LINK = re.compile(r"\[([^\]\n]+)\]\((?:[^)\s]+)\)")
_SENTENCE_END = (".", "!", "?", ":", ";")


def has_markup(text: str) -> bool:
    """Whether `text` holds any Markdown structure or code this module would change."""
    return plain_text(text) != text.strip()


def _strip_inline(line: str) -> str:
    line = _LINK.sub(r"\1", line)
    line = _INLINE_CODE.sub(r"\1", line)
    return _EMPHASIS.sub(lambda m: m.group(2) or m.group(3) or "", line)


def _is_block_line(raw: str) -> bool:
    return bool(_HEADING.match(raw) or _BULLET.match(raw) or _QUOTE.match(raw) or raw.lstrip().startswith("|"))


def _lines_outside_code(text: str) -> Iterator[str]:
    """The message's non-empty lines that are not code: fenced blocks (an unclosed fence runs to
    the end) and lines indented by four without a list marker are left out."""
    in_fence = False
    for raw in text.splitlines():
        if _FENCE.match(raw):
            in_fence = not in_fence
            continue
        if in_fence or not raw.strip():
            continue
        if _INDENTED_CODE.match(raw) and not _BULLET.match(raw):
            continue  # indented by four without a list marker: code, not prose
        yield raw


def plain_text(text: str) -> str:
    """The message as prose lines; code, markers and empty lines gone."""
    lines: list[str] = []
    for raw in _lines_outside_code(text):
        if _TABLE_RULE.match(raw) or _RULE.match(raw):
            continue
        block = _is_block_line(raw)
        line = _QUOTE.sub("", _BULLET.sub("", _HEADING.sub("", raw)))
        if raw.lstrip().startswith("|"):
            line = " ".join(cell.strip() for cell in line.strip().strip("|").split("|") if cell.strip())
        line = _strip_inline(line).strip()
        if not line:
            continue
        if block and not line.rstrip("\"'\u201d\u2019)").endswith(_SENTENCE_END):
            line += "."  # a line ending inside its quotation ('set it to "Auto."') is ended
        lines.append(line)
    return "\n".join(lines)


class OutlineItem(NamedTuple):
    text: str
    heading: bool
    """A heading ("### Week 2"), else a list item's label ("- **Budget**: ...")."""
    label: str = ""
    """The title alone, without the value a label keeps ("Budget" of "Budget: 450 euros")."""


_LABELLED = re.compile(r"^(?:\*\*|__)(?P<label>[^*_\n]{2,80}?)(?:\*\*|__)\s*:?\s*(?P<rest>.*)$")
LABEL_VALUE_MAX_WORDS = 4
_STRUCTURE_MARKS = frozenset("#-*+\u20220123456789")
"""The first character of a heading or a list item (`_HEADING`, `_BULLET`)."""
_DIGIT = re.compile(r"\d")


def outline(text: str) -> list[OutlineItem]:
    """The headings and list labels of a message, in order, without markers or a closing colon. A
    label keeps what follows it when that is a short value ("Days remaining: 22", not the sentence
    after "Caching:"); a list item without a bold label is prose, not structure."""
    items: list[OutlineItem] = []
    for raw in _lines_outside_code(text):
        if raw.lstrip()[:1] not in _STRUCTURE_MARKS:
            continue  # prose: most lines, read without a regular expression
        if _HEADING.match(raw):
            title = _title(_HEADING.sub("", raw))
            items.append(OutlineItem(title, True, title))
            continue
        if not _BULLET.match(raw):
            continue
        labelled = _LABELLED.match(_BULLET.sub("", raw).strip())
        if labelled is None:
            continue
        label, rest = _title(labelled.group("label")), labelled.group("rest").strip()
        valued = rest and len(rest.split()) <= LABEL_VALUE_MAX_WORDS and _DIGIT.search(rest)
        items.append(OutlineItem(f"{label}: {_strip_inline(rest)}" if valued else label, False, label))
    return [item for item in items if item.text]


def _title(text: str) -> str:
    return _strip_inline(text).strip().rstrip(":").strip()
