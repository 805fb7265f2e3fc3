"""What the transcript walk reads of each message before it meets memory: who speaks, the message
it answers, and the facts it states (`extraction.message_facts`, `assistant_notes.assistant_notes`).

None of it depends on the memories or on which pass reads the message, so it can be read ahead of
the walk: `prefetch_texts` lists what the walk will embed first, and a caller running several
passes embeds all of theirs in one batch (`OfflineEngine.read_ahead`, `DreamPass.run_many`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dreaming.engine.offline.assistant_notes import assistant_notes
from dreaming.engine.offline.extraction import Fact, message_facts
from dreaming.engine.offline.nicknames import Nicknames
from dreaming.engine.offline.speaker_roles import ChatRoles, TurnSpeaker
from language.dates import without_stamp
from schemas import ConversationTurn

TOLD_MESSAGES = 5
"""An assistant turn is news only for values the user's last this many messages of the session lack."""


@dataclass(frozen=True)
class MessageReading:
    turn: ConversationTurn
    speaker: TurnSpeaker
    answered: ConversationTurn | None
    """The assistant turn this message follows (corrections read it for context)."""
    facts: list[Fact]
    """What the message states (none for a consumed message)."""


def read_messages(
    turns: Sequence[ConversationTurn], roles: ChatRoles, consumed: frozenset[str]
) -> list[MessageReading]:
    """Every message read on its own, with the message it answers. A consumed message's statements
    are not read: nothing uses them (on a later pass, most of the window)."""
    readings: list[MessageReading] = []
    told: dict[str, list[str]] = defaultdict(list)
    """Per session: the user's recent messages (values an assistant only repeats are not news)."""
    last_assistant: dict[str, ConversationTurn] = {}
    previous: dict[str, tuple[ConversationTurn, TurnSpeaker]] = {}
    """Per session: the last message and its speaker (the one the next message answers)."""
    nicknames = Nicknames(roles.short_names)
    for turn in turns:
        if turn.role not in ("user", "assistant"):
            continue
        speaker = roles.speaker(turn)
        nickname = nicknames.fact(turn, speaker)  # counted on consumed messages too: same fact, same message
        before = previous.get(turn.session_id)
        replied = before if before is not None and before[1].name != speaker.name else None
        if turn.message_id in consumed:
            facts: list[Fact] = []  # an earlier pass made its memories: only its stated changes are read again
        elif speaker.is_person:
            facts = message_facts(
                turn, speaker, roles.forms_of_address, replied[0] if replied else None, replied[1] if replied else None
            )
        else:
            recent = "\n".join(told[turn.session_id][-TOLD_MESSAGES:])
            answered = replied[0] if replied else None
            facts = assistant_notes(turn, answered, roles.user_name, roles.forms_of_address, recent)
        if nickname is not None and turn.message_id not in consumed:
            facts.append(nickname)
        readings.append(MessageReading(turn, speaker, last_assistant.get(turn.session_id), facts))
        if turn.role == "assistant":
            last_assistant[turn.session_id] = turn
        else:
            told[turn.session_id].append(turn.content)
        previous[turn.session_id] = (turn, speaker)
    return readings


def prefetch_texts(
    readings: Sequence[MessageReading], consumed: frozenset[str], cited_by: Mapping[str, tuple[str, ...]]
) -> list[str]:
    """What the walk embeds, each once: every new statement (the paraphrase index and the memory
    written from it ask for its vector), and for the messages a memory-add cites, their bodies and
    the adds."""
    texts: list[str] = []
    for reading in readings:
        if reading.turn.message_id in consumed:
            continue
        texts.extend(without_stamp(fact.text) for fact in reading.facts)
        noted = cited_by.get(reading.turn.message_id, ())
        if not noted:
            continue
        texts.extend(fact.body for fact in reading.facts)
        texts.extend(without_stamp(n) for n in noted)
    return list(dict.fromkeys(texts))
