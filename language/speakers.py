"""Who is speaking in a message.

Multi-person chats written as one stream prefix each message with the speaker's name
("Caroline: I went to ..."). That name, not one guessed for the whole scope, is whose "I" and
"my" the message's statements are; in a two-person conversation "you" is the other person.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

# One to three capitalised words, then a colon and a space: "Caroline: ...", "Mary Ann: ...".
_PREFIX = re.compile(r"^\s*(?P<name>[A-Z][\w'\-]{0,30}(?: [A-Z][\w'\-]{0,30}){0,2}):\s+(?P<body>\S.*)\Z", re.DOTALL)
# Words that open an ordinary sentence followed by a colon ("Note: ...", "Update: ..."): not names.
_NOT_NAMES = frozenset(
    """
note update reminder warning fyi ps p.s re subject summary edit todo question answer correction system
user assistant important tip example step result problem issue
""".split()
)


class Speaker(NamedTuple):
    name: str | None
    """The speaker's name when the message starts with one, else None."""
    body: str
    """The message without the name prefix."""


def split_speaker(content: str) -> Speaker:
    match = _PREFIX.match(content)
    if match is None or match.group("name").lower() in _NOT_NAMES:
        return Speaker(None, content)
    return Speaker(match.group("name"), match.group("body"))


def participants(contents: Iterable[str]) -> tuple[str, ...]:
    """The distinct named speakers, in order of first appearance."""
    seen: dict[str, None] = {}
    for content in contents:
        name = split_speaker(content).name
        if name is not None:
            seen.setdefault(name, None)
    return tuple(seen)


def other_participant(speaker: str | None, names: tuple[str, ...]) -> str | None:
    """In a two-person conversation, the one who is not speaking: whom "you" means."""
    if speaker is None or len(names) != 2 or speaker not in names:
        return None
    return names[1] if names[0] == speaker else names[0]
