"""The turns as the offline rules read them: a message typed in lower case with its capitals put
back (`language.casing`), in the order the scope's messages were written. The stored transcript and
what the baseline or an agent reads are untouched: only the rules' reading changes, so the memories
a lower-case chat gives read as those of the same chat typed with capitals."""

from __future__ import annotations

from collections.abc import Sequence

from dreaming.snapshot import Snapshot
from language.casing import Typed, restore_all
from language.speakers import split_speaker
from schemas import ConversationTurn


def read_turns(snapshot: Snapshot) -> list[ConversationTurn]:
    """The scope's own turns as the rules read them (`with_capitals`), once per pass: the walk and
    verify read the same."""
    return list(snapshot.reading("offline.cased_turns", _own_with_capitals))


def with_capitals(turns: Sequence[ConversationTurn]) -> list[ConversationTurn]:
    """`turns` in order, each message typed in lower case read with its capitals back; the others as
    they are (the same objects)."""
    speakers = [split_speaker(t.content) for t in turns]
    bodies = restore_all(Typed(s.name or t.role, s.name, s.body) for t, s in zip(turns, speakers, strict=True))
    return [
        turn
        if body is speaker.body
        else turn.model_copy(update={"content": turn.content[: len(turn.content) - len(speaker.body)] + body})
        for turn, speaker, body in zip(turns, speakers, bodies, strict=True)
    ]


def _own_with_capitals(snapshot: Snapshot) -> list[ConversationTurn]:
    return with_capitals([t for t in snapshot.transcript if t.scope == snapshot.scope])
