"""What one person calls another is a fact about them: "Nate calls Joanna "Jo"."

A short form of a name (`speakers.short_names`: "Jo" for Joanna, said at least twice) addresses
and informs nothing in the sentence it opens ("Jo, you're killing it!"), so the statements drop
it; the habit itself is kept once, as a memory of its own. It is made on the message where the
speaker has used the short form as often as a short form takes to be found, counted in message
order over the window: the same message whichever pass reads it first.
"""

from __future__ import annotations

from collections import Counter

from dreaming.engine.offline.extraction import Fact
from dreaming.engine.offline.speaker_roles import TurnSpeaker
from language.dates import stamped
from language.speakers import SHORT_NAME_MIN_TIMES, addressed_names
from schemas import ConversationTurn


class Nicknames:
    """Counts, in message order, each person's use of a short name for the one they talk to."""

    def __init__(self, short_names: tuple[str, ...]) -> None:
        self._short = frozenset(short_names)
        self._used: Counter[tuple[str, str]] = Counter()

    def fact(self, turn: ConversationTurn, speaker: TurnSpeaker) -> Fact | None:
        """The memory `turn` makes of its speaker's short name for their listener, if this is the
        message that shows the habit; None otherwise."""
        listener = speaker.listener
        if not self._short or not speaker.is_person or not speaker.name or not listener:
            return None
        for name in addressed_names([speaker.body]):
            if name not in self._short or not listener.startswith(name):
                continue
            self._used[speaker.name, name] += 1
            if self._used[speaker.name, name] == SHORT_NAME_MIN_TIMES:
                body = f'{speaker.name} calls {listener} "{name}".'
                return Fact(body, stamped(body, turn.ts), "statement", name)
        return None
