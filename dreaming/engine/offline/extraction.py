"""What one message states, as the texts of compact memories: one fact per memory where the text allows.

A message is read on its own (and with the message it answers, for context): the same message gives
the same memories whatever pass reads it and whatever came before it in the pass, so where pass
boundaries fall never changes what is written. Per unit (`language.statements`):

- a statement, in the third person: the speaker's name for "I"/"my" ("the user" only when no name
  is known), the listener's for the "you" addressed to them (a generic "you" stays), "we" as who
  "we" are ("Ava and Sam", `language.companions`), relative times made absolute from the
  message's own timestamp;
- a question that carries a value of the speaker's world, as asked ("Ava asked: ...");
- a photo the message shows ("Ava shared a photo of a red kite."), with the statement it illustrates;
- a statement that opens on what it answers ("It lasted about an hour") keeps the question it
  answers, so the memory says what "it" is.

Every text leads with the day it was said (`language.dates.stamped`) and names its speaker once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from dreaming.engine.offline.facts import finish_sentence
from dreaming.engine.offline.speaker_roles import THE_ASSISTANT, TurnSpeaker
from language.chatter import caption_subject, is_small_talk_question, sentences
from language.companions import companion_of
from language.dates import rewrite_relative_time, stamped
from language.ellipsis import with_subject
from language.markup import plain_text
from language.person import name_as_subject, to_third_person
from language.statements import Unit, requested_action, statement_units
from language.values import carries_value
from schemas import ConversationTurn

CONTEXT_MAX_WORDS = 25
"""The question a leaning answer keeps, at most this long (a long one is not a short question)."""


@dataclass(frozen=True)
class Fact:
    body: str
    """What it says, in the third person with dates resolved (no stamp, no speaker prefix)."""
    text: str
    """The memory text: stamp, speaker, body."""
    kind: str
    """"statement", "asked", "caption" or "assistant"."""
    source: str = ""
    """The words of the message it was read from (a correction that handled them skips it)."""


# The fillers set off by commas inside what is said: "the delays, you know, cost us 15%" (left
# in, "you know" would be read as anyone's "you" and keep the whole sentence in the second person).
_FILLER_WORDS = r"you\s+know|you\s+see|i\s+mean"
"""Said for the listener, not of anything: dropped between commas here, and as a lead-in below."""
_AS_SAID = r"(?:like|as)\s+(?:i|you|we)\s+(?:said|say|mentioned|told\s+you)(?:\s+(?:before|earlier))?"
"""'Like I said, ...', 'As you mentioned before, ...': the speaker points at the talk, not at a fact."""

_FILLER = re.compile(
    rf",\s+(?:like,?\s+)?(?:{_FILLER_WORDS}|{_AS_SAID})(?:(?P<comma>,)(?=\s)|(?=\s*(?:[.;!]|$)))"
    r"|,\s+like(?=\s*[.!]*$)",
    re.IGNORECASE,
)
# "The flat, you know, costs 700": with the filler gone, a short subject meets its verb again.
_SUBJECT_BEFORE = re.compile(
    r"(?:^|[.!?;:]\s+)(?:the|a|an|my|our|his|her|their|this|that)(?:\s+[\w'-]+){1,3}$", re.IGNORECASE
)


_GRAVE_APOSTROPHE = re.compile(r"(?<=[A-Za-z])[`\u00b4](?=(?:m|s|re|ve|ll|d|t)\b)")
"""A contraction typed with a backtick or an acute accent ("I`m", "Let´s"): an apostrophe."""


def _without_fillers(text: str) -> str:
    """`text` without the fillers said for the listener."""

    def cut(match: re.Match[str]) -> str:
        if not match.group("comma") or _SUBJECT_BEFORE.search(text, 0, match.start()):
            return ""
        return ","

    return _FILLER.sub(cut, text)


def third_person(text: str, speaker: TurnSpeaker, ts: datetime, we: str | None) -> str:
    # The said words stay beside the date ("on 2018-07-16 (five years ago)"): a date resolved from
    # "five years ago" is approximate, and a reader may be asked how long ago it was.
    resolved = rewrite_relative_time(with_subject(name_as_subject(text, speaker.name)), ts, annotate=True).text
    return finish_sentence(to_third_person(resolved, speaker.name, other=speaker.listener, we=we))


def _we(speaker: TurnSpeaker, body: str) -> str | None:
    """Who "we" are in this message: the companion it names ("Ava and Sam"); talking to a work
    assistant, the speaker's team; else None ("<name> and others")."""
    name = speaker.name or "the user"
    companion = companion_of(body, frozenset(n for n in (speaker.name, speaker.listener) if n))
    if companion is not None:
        return companion.who_we_are(name)
    # A lone user talking to an agent (its turns in the transcript or not) means their team.
    alone = not speaker.named and speaker.listener in (None, THE_ASSISTANT)
    return f"{name}'s team" if alone else None


def _asked(unit: Unit, speaker: TurnSpeaker, ts: datetime, we: str | None) -> str:
    """ "Ava asked the assistant to book Ava a seat on the Berlin flight.", "Ava asked: how do ...?" """
    name = speaker.name or "The user"
    action = requested_action(unit.text)
    if action is not None:
        act = third_person(action, speaker, ts, we)
        return f"{name} asked {speaker.listener or 'the assistant'} to {act[:1].lower()}{act[1:]}"
    return f"{name} asked: {third_person(unit.text, speaker, ts, we)}"


def _question_answered(answered: ConversationTurn | None, asker: TurnSpeaker | None) -> str | None:
    """The last question of the message being answered, rewritten from its asker's side."""
    if answered is None or asker is None:
        return None
    questions = [s for s in sentences(plain_text(asker.body)) if s.rstrip().endswith("?")]
    if not questions or len(questions[-1].split()) > CONTEXT_MAX_WORDS or is_small_talk_question(questions[-1]):
        return None
    asked = rewrite_relative_time(questions[-1], answered.ts, annotate=True).text
    return to_third_person(asked, asker.name, other=asker.listener).rstrip()


_YES = re.compile(r"(?i)^(?:yeah|yep|yup|yes|sure|definitely|absolutely)\b[,!.]?")
_NO = re.compile(r"(?i)^(?:nope|nah|no)\b[,!.]?")


def _yes_or_no(answer: str) -> str:
    """An answer's "Yeah,"/"Nope," is what it says to the question: spelled "Yes,"/"No,"."""
    answer = _YES.sub("Yes,", answer, count=1)
    return _NO.sub("No,", answer, count=1)


# What a memory read alone does not owe to the talk around it, read off before the rewrite into
# the third person (which would make a fact of a frame: "Ana will be honest, …"):
# - how the speaker frames what follows: "I'll be honest, the rent decided it", "Btw, the shop
#   opened", "Wow, I ran 10k", "Guess what, we won", "I mean, it was fun", "Like I said, the deposit is paid";
# - the words that tie a statement to the one before: "Yeah, our trip got off to a bad start",
#   "And I repainted the hallway". These stay where the statement answers a quoted question
#   ("Yeah," is its "Yes,").
_SPEAKERS_FRAME = re.compile(
    r"^(?:(?:i'll|i\s+will|gotta|i\s+(?:must|have\s+to|gotta|got\s+to))\s+(?:be\s+honest|say|admit|confess)"
    r"|to\s+be\s+(?:honest|fair)|honestly|tbh|btw|by\s+the\s+way|guess\s+what|oh|wow|hey|haha|lol|hmm+|man|gosh|ugh|omg"
    rf"|like|{_FILLER_WORDS}|{_AS_SAID})"
    r"\s*[,!:]\s+(?=\S)"
    rf"|^{_AS_SAID}\s+(?=(?:i|i'm|i've|we|we're|my|our)\b)",
    re.IGNORECASE,
)
_DISCOURSE_LEAD = re.compile(
    r"^(?:(?:yeah|yep|yup|yes|sure|okay|ok|well|so|anyway|alright|right|absolutely|totally)\s*,"
    r"|(?:and|plus|also)\b,?)\s+(?=\S)",
    re.IGNORECASE,
)


def without_lead(text: str, *, tie_words: bool = True) -> str:
    """`text` without the speaker's frame and (with `tie_words`) the words tying it to the talk before."""
    stripped = _SPEAKERS_FRAME.sub("", text, count=1)
    if tie_words:
        stripped = _DISCOURSE_LEAD.sub("", stripped, count=1)
    return stripped[:1].upper() + stripped[1:] if stripped != text else text


def _with_speaker(body: str, speaker: TurnSpeaker, people: Sequence[str]) -> str:
    """The speaker named once, when the statement does not name them and someone else could have
    said it (several people talk). A user's own chat with an assistant needs no "The user:"."""
    name = speaker.name or "The user"
    if name.lower() in body.lower() or (speaker.listener in (None, THE_ASSISTANT) and len(people) < 2):
        return body
    return f"{name[:1].upper()}{name[1:]}: {body}"


def message_facts(
    turn: ConversationTurn,
    speaker: TurnSpeaker,
    people: Sequence[str] = (),
    answered: ConversationTurn | None = None,
    asker: TurnSpeaker | None = None,
) -> list[Fact]:
    """The memories `turn` states (`answered`/`asker`: the other person's message it replies to)."""
    to_person = speaker.listener is not None and speaker.listener != THE_ASSISTANT
    # A line that leaves out its "I" and names a value (not the listener's name) is read as said
    # with it: "Been to Rome once" is a fact, as "I've been to Rome once"; "Can't wait, Jo!" is glue.
    said = _without_fillers(_GRAVE_APOSTROPHE.sub("'", speaker.body))
    with_its_subject = with_subject(said, only=lambda sentence: carries_value(sentence, people))
    units = statement_units(with_its_subject, people, to_person=to_person)
    we = _we(speaker, speaker.body)
    facts: list[Fact] = []
    for position, unit in enumerate(units):
        if unit.kind == "caption":
            _add_caption(facts, unit, speaker, turn, people)
            continue
        question = (
            _question_answered(answered, asker)
            if unit.kind != "suggested" and position == 0 and unit.leans_back
            else None
        )
        body = (
            _asked(unit, speaker, turn.ts, we)
            if unit.kind == "asked"
            else third_person(
                without_lead(unit.text, tie_words=unit.kind == "statement" and question is None),
                speaker,
                turn.ts,
                we,
            )
        )
        if unit.kind == "suggested":
            body = f"{speaker.name or 'The user'} suggested: {body}"
        elif question:
            body = f'Asked "{question}", {speaker.name or "the user"} said: {_yes_or_no(body)}'
        previous = facts[-1] if facts else None
        if previous is not None and _joins(previous, unit, body):
            body = f"{previous.body} {body}"
            facts[-1] = Fact(body, stamped(_with_speaker(body, speaker, people), turn.ts), "statement", previous.source)
            continue
        facts.append(Fact(body, stamped(_with_speaker(body, speaker, people), turn.ts), unit.kind, unit.text))
    return facts


SHORT_MESSAGE_WORDS = 30
"""Statements of one message that together hold at most this many words are one memory: a chat
line of two short sentences is one thing said ("I'm keen on counselling. My aunt is a counsellor
too."), and each memory costs its reader a date and a name."""


_UNNAMED_SPEAKER = re.compile(r"\b[Tt]he user\b")


def _words(body: str) -> int:
    """Words of a memory, "the user" counted as one: whether the speaker has a name ("Crystal")
    does not decide what is one memory."""
    return len(body.split()) - len(_UNNAMED_SPEAKER.findall(body))


def _joins(previous: Fact, unit: Unit, body: str) -> bool:
    """A statement leaning on the one before it ("They've been a great help", "It closed in May")
    says what it says of it: the two are one memory up to twice the length, so neither is read
    without the other."""
    if previous.kind != unit.kind or unit.kind != "statement":
        return False
    most = 2 * SHORT_MESSAGE_WORDS if unit.leans_back else SHORT_MESSAGE_WORDS
    return _words(previous.body) + _words(body) <= most


def _add_caption(
    facts: list[Fact], unit: Unit, speaker: TurnSpeaker, turn: ConversationTurn, people: Sequence[str]
) -> None:
    """A photo joins the statement it illustrates: the last one that speaks of a picture ("I took
    this pic on the ferry"), else the one before it; or it stands alone."""
    what = caption_subject(unit.text)
    if not what:
        return
    shown = f"{speaker.name or 'The user'} shared a photo of {what}."
    statements = [n for n, fact in enumerate(facts) if fact.kind == "statement"]
    presenting = [n for n in statements if _PRESENTS_A_PICTURE.search(facts[n].body)]
    if presenting or (facts and facts[-1].kind == "statement"):
        index = presenting[-1] if presenting else len(facts) - 1
        fact = facts[index]
        body = f"{fact.body} {shown}"
        facts[index] = Fact(body, stamped(_with_speaker(body, speaker, people), turn.ts), "statement", fact.source)
    else:
        facts.append(Fact(shown, stamped(shown, turn.ts), "caption", unit.text))


_PRESENTS_A_PICTURE = re.compile(
    r"(?i)\b(?:pics?|pictures?|photos?|photographs?|snaps?|selfies?|snapshots?|shots?|took\s+this|here'?s|here\s+is|check\s+(?:this|it)\s+out|look\s+at\s+(?:this|these))\b"
)
