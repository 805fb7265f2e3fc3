"""Who speaks in each message of a scope's transcript, and to whom.

Three shapes of chat reach the engine:

- one stream of several people, each message starting with its speaker's name ("Caroline: ...");
- a user and an AI assistant (`role` user / assistant): the user's "I" is the user (named when they
  introduced themselves), the assistant's turns are advice about the user's task, never the user's
  own statements (`assistant_notes`);
- two people given as `user` and `assistant` without name prefixes: both are people. Which of the
  last two a scope is comes from the `assistant_roles` setting (per tenant, agent or scope prefix)
  or, unset, from the text: an "assistant" whose turns are about as long as the user's, without
  markup, and tell of their own life ("my wife", "I went", "last weekend") is a person
  (`speakers.speaks_as_person`).
  Each person's name is the one the other calls them by ("Hey Mel!"), or an introduction.

A short form the people call each other by ("Mel" for Melanie) addresses as their names do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from language.person import detect_user_name
from language.speakers import (
    addressed_names,
    addressee,
    participants,
    reply_vocatives,
    short_names,
    speaks_as_person,
    split_speaker,
)
from schemas import ConversationTurn

AssistantRole = Literal["person", "assistant"]
OTHER_PERSON = "the other person"
THE_ASSISTANT = "the assistant"


@dataclass(frozen=True)
class TurnSpeaker:
    name: str | None
    """Whose "I" the message is: a name, or None for an unnamed user ("the user")."""
    body: str
    """The message without its name prefix."""
    named: bool
    """The name came from the message's own prefix (a multi-person stream)."""
    listener: str | None
    """Whom "you" means: the other person of a two-person chat, the assistant, or None."""
    is_person: bool
    """A person's message (their statements are memories); False for an AI assistant's turn."""


@dataclass(frozen=True)
class ChatRoles:
    user_name: str | None
    assistant_is_person: bool
    assistant_name: str | None
    named: tuple[str, ...]
    """Speakers named by message prefixes, in order of first appearance."""
    has_assistant: bool
    short_names: tuple[str, ...] = ()
    """What the people are also called ("Mel" for Melanie): names that address, never owners."""

    @property
    def people(self) -> tuple[str, ...]:
        """Names of the people talking (they address each other; their names are not content)."""
        found = [*self.named, self.user_name, self.assistant_name]
        return tuple(dict.fromkeys(n for n in found if n))

    @property
    def forms_of_address(self) -> tuple[str, ...]:
        """The people's names and their short forms: what a message calls its listener by, which
        informs nothing ("Thanks, Mel!"). Whose a memory is stays judged by the full names."""
        return (*self.people, *self.short_names)

    def speaker(self, turn: ConversationTurn) -> TurnSpeaker:
        prefix = split_speaker(turn.content)
        if prefix.name is not None and prefix.name in self.named:
            return TurnSpeaker(prefix.name, prefix.body, True, self._other_named(prefix.name), True)
        if turn.role == "assistant":
            if not self.assistant_is_person:
                return TurnSpeaker(THE_ASSISTANT, turn.content, False, self.user_name or "the user", False)
            return TurnSpeaker(self.assistant_name or OTHER_PERSON, turn.content, False, self.user_name, True)
        listener = None
        if self.has_assistant:
            listener = (self.assistant_name or OTHER_PERSON) if self.assistant_is_person else THE_ASSISTANT
        return TurnSpeaker(self.user_name, turn.content, False, listener, True)

    def _other_named(self, name: str) -> str | None:
        if len(self.named) != 2 or name not in self.named:
            return None
        return self.named[1] if self.named[0] == name else self.named[0]


def configured_role(scope: str, roles: Mapping[str, AssistantRole]) -> AssistantRole | None:
    """The setting for `scope`: the longest configured prefix ("acme", "acme/bot", a whole scope)."""
    best: tuple[int, AssistantRole] | None = None
    for prefix, role in roles.items():
        if (scope == prefix or scope.startswith(prefix.rstrip("/") + "/")) and (best is None or len(prefix) > best[0]):
            best = (len(prefix), role)
    return best[1] if best else None


def read_roles(
    scope: str, turns: Sequence[ConversationTurn], roles: Mapping[str, AssistantRole] | None = None
) -> ChatRoles:
    user_texts = [t.content for t in turns if t.role == "user"]
    assistant_texts = [t.content for t in turns if t.role == "assistant"]
    setting = configured_role(scope, roles or {})
    named = participants(user_texts)
    is_person = (
        setting == "person" if setting is not None else (not named and speaks_as_person(assistant_texts, user_texts))
    )
    if is_person:  # an AI assistant's "Done: ..." or "Noted: ..." is not a speaker's name
        named = participants([*user_texts, *assistant_texts])
    user_name = detect_user_name(user_texts)
    assistant_name = None
    if is_person:
        assistant_name = addressee(addressed_names(user_texts))
        user_name = user_name or addressee(addressed_names(assistant_texts), exclude=assistant_name)
    else:  # an AI assistant that greets the user by name: "Certainly, Crystal."
        user_name = user_name or addressee(reply_vocatives(assistant_texts))
    people = [n for n in (*named, user_name, assistant_name) if n]
    said_to = addressed_names(split_speaker(t.content).body for t in turns) if people else Counter[str]()
    return ChatRoles(user_name, is_person, assistant_name, named, bool(assistant_texts), short_names(people, said_to))
