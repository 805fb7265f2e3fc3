"""What one message states, as units that can each become a memory.

A message is read sentence by sentence (`chatter.sentences`, after `markup.plain_text`). Inside a
sentence only the pieces that do nothing but ask or request are set aside ("My flight is on
Tuesday, can you check the gate?" keeps "My flight is on Tuesday"); the rest of the sentence is
kept whole, so "I have three kids, Emma who is 7 and Leo who is 4" keeps the ages: a piece that
opens with "who"/"which"/"where" inside a statement is a relative clause, not a question.

- A tag question ("Sunflowers mean loyalty, right?") is a statement with a tag.
- A question that carries a value of the speaker's own world (a number, date or name, and a first
  person: "How do I keep my 90% accuracy when the deadline moves to May 3?") is kept as *asked*.
- A sentence that leans on the one before it ("It was amazing", "She loves her toys", "But it
  rained") is joined to it when the two stay short; at the start of a message it *leans back* on
  the message it answers (the caller gives it that context).
- Glue is not a unit: greetings, thanks, reactions, questions without a value (`chatter`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal, NamedTuple

from language import patterns
from language.antecedents import completed_by_what_follows, noun_phrases_before
from language.chatter import INTERJECTIONS, classify_sentence, content_words, is_reaction, sentences
from language.clauses import IMPERATIVE_VERBS, classify, strip_lead_ins
from language.dates import has_relative_time
from language.markup import plain_text
from language.own_plans import as_own_plans
from language.patterns import compiled
from language.presupposed import frame_statement, presupposed_clauses, without_trigger
from language.text_caches import text_cache
from language.tokens import has_digit
from language.values import carries_value, new_values

UnitKind = Literal["statement", "asked", "suggested", "caption"]
_DROPPED_KINDS = frozenset({"question", "request", "greeting", "dissatisfaction", "injection", "introduction"})
_RELATIVE_OPENERS = frozenset({"who", "who's", "whose", "which", "where", "when", "whom", "what", "how"})
_CLAUSE_COMMA = compiled(patterns.CLAUSE_COMMA_BEFORE)
_TAG_QUESTION = re.compile(
    r"(?i)[,\s-]+(?:right|correct|true|no|yeah|yes|eh|huh|innit|ok|okay|"
    r"(?:is|are|was|were|do|does|did|have|has|had|can|could|would|will|should|wo|ca)n'?t\s+(?:it|they|you|we|i|he|she|there|that)"
    r"(?:\s+think)?|don't you think|you know|wouldn't you say|agreed)\s*\?+\s*$"
)
_LEANS_BACK = frozenset(
    """
it its this that these those they them their there he she his her him which so but and also plus
though yes yeah yep no nope sure definitely totally
""".split()
)
"""First words that point back, read before any contraction ("they've", "that's", "he'd")."""
_PROPOSAL = re.compile(r"(?i)^(?:how about|what about|why don't we|why not|shall we|should we|maybe we could)\b")
MIN_ADVICE_CONTENT_WORDS = 3
"""Advice or an invitation to another person ("Find a trainer who checks your form") says
something at this many content words; "Take care!" and "Look at this!" do not."""
_SHOWN = re.compile(
    r"(?i)^(?:(?:here,?\s+)?(?:look at|check out|take a look at|have a look at))\s+"
    r"(?P<determiner>this|these|that|those|my|our)\s+(?P<rest>.+)$"
)
""""Check out my painting", "look at this homemade ice cream": the speaker shows something; no advice."""
_SHOWN_DETERMINERS = {"this": "the", "these": "the", "that": "the", "those": "the"}
_QUESTION_START = compiled(patterns.QUESTION_START)
_WH_OPENS = re.compile(r"(?i)^(?:which|what|whose|who|where|when|why|how)\b")
"""A later piece of a question opening on a wh-word asks ("Since I started yoga, which poses help?")."""
_ASKING_KINDS = frozenset({"question", "request"})
_DASH = re.compile(r"\s+[-\u2013\u2014]{1,2}\s+")
_DEICTIC = frozenset({"it", "it's", "its", "that", "that's", "this", "they", "they're", "those", "these"})
_FIRST_PERSON = re.compile(r"(?i)\b(?:i|i'm|i've|i'd|i'll|im|ive|my|mine|me|we|we're|we've|our|ours|us)\b")
_WORD = re.compile(r"[\w'\u2019]+")
REQUEST_TOPIC_MIN_WORDS = 3
"""A request or question of one's own ("can you help me plan the move of my studio to the loft?")
keeps its topic when it names at least this many content words the statement beside it does not;
"can you help me with that?" names none."""
_ASKING_WORDS = frozenset(
    """
help helping please need want like would could can explain provide suggest suggestions show understand figure
give make sure out better also way ways example examples tips advice approach some idea ideas any anything
something recommend recommendations best possible maybe perhaps kind sort
""".split()
)
JOIN_MAX_WORDS = 40
"""A sentence leaning on the previous one is joined to it while the two hold at most this many words."""


class Unit(NamedTuple):
    text: str
    kind: UnitKind
    leans_back: bool
    """It opens on something said before it ("It lasted an hour"): read with the message it answers."""


def _pieces(sentence: str) -> list[str]:
    """The sentence cut where a comma opens a new subject, question or request, and at a dash
    ("... on Feb 10 - how can I make a good impression?")."""
    cuts = sorted(
        {0, len(sentence)}
        | {m.start() for m in _CLAUSE_COMMA.finditer(sentence)}
        | {m.start() for m in _DASH.finditer(sentence)}
    )
    pieces = [sentence[a:b].lstrip(",-\u2013\u2014 ").strip() for a, b in zip(cuts, cuts[1:], strict=False)]
    return [p for p in pieces if p and any(ch.isalnum() for ch in p)]


# "it", "there" or "them" as what a verb is done to or where ("I tried it once", "never been there
# yet"): followed by the clause's end, a particle, a time or a preposition, not by a verb of its own.
_REFERENCE = re.compile(
    r"\b(?:it|there|them)(?=\s*(?:$|[,;:.!?]|(?:up|out|off|back|once|twice|before|yet|again|already|anymore|lately"
    r"|recently|myself|ourselves|too|together|away|home|a|an|the|last|this|every|in|on|at|for|with|to|from|into"
    r"|onto|along|around|across|over|under|by|near|through|after|during|about|since|when|because|but"
    r"|and|though|so|all|more|yesterday|today|tonight)\b))",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[,;:.!?]")
LEANING_REFERENCE_WORDS = 5
"""How many words may come before the "it" of a clause leaning on the question it answers ("I
finally tried it", "Haven't been there yet")."""


def leans_back(text: str) -> bool:
    """The statement opens on something said before it ("It lasted an hour", "Yes, …"), or its
    first clause does something to or at a thing it does not name ("I tried it once", "Haven't
    been there yet"): what it is, is in the message it answers."""
    if _first_word(text).split("'")[0] in _LEANS_BACK:
        return True
    end = _CLAUSE_END.search(text)
    first = text[: end.start()] if end else text
    reference = _REFERENCE.search(first)
    if reference is None or len(first[: reference.start()].split()) > LEANING_REFERENCE_WORDS:
        return False  # far into a long clause, "it" or "them" is more often what the clause itself named
    # "a big fan of them", "a photo of it": the phrase the pronoun completes is not what it stands for
    return all(completed_by_what_follows(p) for p in noun_phrases_before(first, reference.start()))


def _first_word(text: str) -> str:
    match = _WORD.search(text)
    return match.group(0).lower().replace("\u2019", "'") if match else ""


def without_tag(sentence: str) -> str | None:
    """The statement of a tag question ("X, right?" -> "X"), or None when it is not one."""
    stripped = _TAG_QUESTION.sub("", sentence.strip())
    if stripped == sentence.strip() or not stripped or classify(strip_lead_ins(stripped))[0] == "question":
        return None
    return stripped


class _Split(NamedTuple):
    kept: list[str]
    """Pieces that state something, relative clauses joined to the piece they describe."""
    dropped: list[str]
    """Pieces that only ask or request (or greet)."""


_QUESTION_TAIL = re.compile(r"(?i)^(?:or|either)\b|^[\w'.+-]+(?:\s+[\w'.+-]+)?\s+or\s+[\w'.+-]+(?:\s+[\w'.+-]+)?\??$")
"""The options closing a question after its last comma ("which is lighter, Axios or Superagent?"):
still asked. A tail with a value of its own ("…, especially since I met Ana on May 3?") is stated."""


# "It has got me trying kayaking and maybe bungee jumping?": the speaker's own world said in the
# order of a statement, with a question's tone. Not "You've been to Lyon?" (asks the listener), nor
# a sentence holding what a question asks ("I wonder if it's open?", "My question is how …?", "I
# should bring a coat?").
_DECLARATIVE_OPENING = re.compile(r"(?i)^(?:i|i'm|i've|i'd|i'll|my|it|it's|that|that's|this|we|we're|we've|our)\b")
_ASKS_WITHIN = re.compile(
    r"(?i)\b(?:what|which|who|whom|whose|where|when|why|how|if|whether|or|should|could|would|can|might|may|shall)\b"
)


def _said_with_a_rising_tone(piece: str) -> bool:
    return bool(_DECLARATIVE_OPENING.match(piece) and not _ASKS_WITHIN.search(piece) and _FIRST_PERSON.search(piece))


def _split(sentence: str, is_question: bool, keep: frozenset[str] = frozenset()) -> _Split:
    """The pieces of a sentence that state something, and the ones that ask (`keep`: kinds kept
    beside statements, e.g. "request" for advice to a person). Inside a request, a later part
    that states a value is a statement ("can you help me plan it, she booked the hall for May 3?"),
    and so is what a question takes as given (`presupposed`)."""
    kept: list[str] = []
    dropped: list[str] = []
    pieces = _pieces(sentence)
    for index, piece in enumerate(pieces):
        body = strip_lead_ins(piece)
        if not body or (not kept and _first_word(body) in INTERJECTIONS and classify_sentence(body) == "chatter"):
            continue  # "Thanks, Dario, I'll try it": the thanks and the name only address
        opens = not kept and not dropped  # nothing said or asked before it: "Hmm, what if it fails?"
        last_asks = is_question and index == len(pieces) - 1
        if index > 0 and _first_word(body) in _RELATIVE_OPENERS and not last_asks:
            if kept:
                kept[-1] = f"{kept[-1]}, {body}"
            continue
        kind, _ = classify(body)
        if kind == "question" and (
            (not opens and not _QUESTION_START.match(body) and not _WH_OPENS.match(body))
            or (opens and _said_with_a_rising_tone(body))
        ):
            # "..., my sister booked the hall for June 8?": the sentence's "?" belongs to an earlier piece
            body = body.rstrip("? ")
            kind, _ = classify(body)
        if kind not in _DROPPED_KINDS or kind in keep:
            kept.append(body)
            continue
        if kind not in _ASKING_KINDS:
            continue  # a greeting, an introduction, a complaint: neither stated nor asked
        asked, *rest = body.split(", ")
        stated_before = len(kept)
        for part in rest:
            statement = without_trigger(part.rstrip("? "))
            options = part is rest[-1] and len(kept) == stated_before and _QUESTION_TAIL.match(statement)
            if (
                not options  # "which is lighter, Axios or Superagent?"; not "on May 20, 21, or 23?"
                and classify(statement)[0] not in _DROPPED_KINDS
                and carries_value(statement)
                and _first_word(statement) not in _RELATIVE_OPENERS
            ):
                kept.append(statement)
            else:
                asked = f"{asked}, {part}"
        # What the question takes as given is stated ("how do I use the fact that I got 5 offers?").
        for clause in presupposed_clauses(body):
            if (
                carries_value(clause)
                and classify(clause)[0] not in _DROPPED_KINDS
                and not any(clause in k for k in kept)
            ):
                kept.append(clause)
        dropped.append(asked)
    if dropped:
        kept = [stated for piece in kept if (stated := frame_statement(piece))]
    return _Split(kept, dropped)


_REQUEST_FRAME = re.compile(
    r"(?i)^(?:(?:so|and|but|also|now|then),?\s+)?(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?"
    r"|(?:i\s+need|i\s+want|i'd\s+like|i\s+would\s+like)\s+you\s+to\s+|please\s+)"
)


def requested_action(text: str) -> str | None:
    """What a request asks for, as an infinitive: "Can you book me a seat?" -> "book me a seat",
    "Please check the gate" -> "check the gate", "Book me a seat" -> "book me a seat"; None when
    `text` is not a request."""
    body = text.strip().rstrip("?.! ")
    framed = _REQUEST_FRAME.match(body)
    if framed:
        action = body[framed.end() :]
    elif _first_word(body) in IMPERATIVE_VERBS:
        action = body
    else:
        return None
    return action[:1].lower() + action[1:] if action else None


def is_value_question(sentence: str, ignore_names: Iterable[str] = ()) -> bool:
    """A question about the speaker's own world that carries a value: worth keeping as asked."""
    return bool(_FIRST_PERSON.search(sentence)) and carries_value(sentence, ignore_names)


def _advice(sentence: str, ignore_names: tuple[str, ...]) -> Unit | None:
    """Advice, an invitation or a proposal to the other person ("Find a trainer who can help
    you", "Let's go hiking on Sunday", "How about biking to work?"), when it says something."""
    is_question = sentence.rstrip().endswith("?")
    if is_question and not _PROPOSAL.match(strip_lead_ins(sentence)):
        return None
    text = strip_lead_ins(sentence) if is_question else ", ".join(_split(sentence, False, frozenset({"request"})).kept)
    text = text.rstrip(",?; ")
    says_when = has_relative_time(text) or carries_value(text, ignore_names)
    if (len(content_words(text)) < MIN_ADVICE_CONTENT_WORDS and not says_when) or _only_names_left(text, ignore_names):
        return None  # "Take care!" advises nothing; "Let's do it next Saturday" names its day
    if is_reaction(_without_interjections(text)):
        return None  # "Wow, that beach sounds special to you" judges the news, it advises nothing
    shown = _SHOWN.match(text.rstrip("!. "))
    if shown:  # told as what happened: "I showed you the homemade ice cream" -> "Nate showed Joanna …"
        determiner = shown.group("determiner")
        thing = f"{_SHOWN_DETERMINERS.get(determiner.lower(), determiner)} {shown.group('rest')}"
        return Unit(f"I showed you {thing}", "statement", False)
    return Unit(text, "suggested", False)


def _sentence_units(sentence: str, ignore_names: tuple[str, ...], to_person: bool = False) -> list[Unit]:
    if not to_person:  # to an assistant, "let's book it" is the user's own plan; to a person, a proposal
        sentence = as_own_plans(sentence)
    kind = classify_sentence(sentence, to_person=to_person)
    if kind == "caption":
        return [Unit(sentence, "caption", False)]
    if kind == "code":
        return []
    if kind == "question":
        statement = without_tag(sentence)
        if statement is not None:
            sentence, kind = statement, classify_sentence(statement, to_person=to_person)
    is_question = sentence.rstrip().endswith("?")
    if sentence.rstrip().endswith(":") and not carries_value(sentence, ignore_names):
        return []  # "Here's what I have so far:" presents what follows (code, a list), says nothing
    split = _split(sentence, is_question)
    kept = ", ".join(split.kept).rstrip(",?; ")
    units: list[Unit] = []
    kept = _without_vocative(_without_interjections(kept), ignore_names)
    if (
        kept
        and classify_sentence(kept, to_person=to_person) == "statement"
        and not _only_names_left(kept, ignore_names, to_person=to_person)
    ):
        units.append(Unit(kept, "statement", leans_back(kept)))
    # What is asked keeps the values the statement does not have ("... so can you tell me how it
    # was shortened to 5-7 months?"): the user's own world, stated in the form of a question.
    asked = ", ".join(split.dropped).rstrip(",; ")
    if not split.kept:  # it opens the sentence, whose lead may have been cut ("Hmm, what if …")
        asked = asked[:1].upper() + asked[1:]
    if (
        asked
        and _FIRST_PERSON.search(sentence)
        and (new_values(asked, kept, ignore_names) or (not to_person and _names_a_topic(asked, kept)))
    ):
        units.append(Unit(asked if asked.endswith("?") or not is_question else f"{asked}?", "asked", False))
    if units:
        return units
    if to_person and (advice := _advice(sentence, ignore_names)) is not None:
        return [advice]
    return []


def _names_a_topic(asked: str, stated: str) -> bool:
    """What is asked for names a topic of its own (`REQUEST_TOPIC_MIN_WORDS`), beyond the words of
    asking and what the sentence already states."""
    topic = set(content_words(asked)) - _ASKING_WORDS - set(content_words(stated))
    return len(topic) >= REQUEST_TOPIC_MIN_WORDS


def _only_names_left(text: str, ignore_names: tuple[str, ...], *, to_person: bool = True) -> bool:
    """Once the names of the people talking are set aside, nothing but glue remains ("Thanks, Mel!")."""
    if not ignore_names:
        return False
    stripped = text
    for name in ignore_names:
        stripped = re.sub(rf"\b{re.escape(name)}\b", "", stripped)
    return classify_sentence(stripped, to_person=to_person) != "statement"


def statement_units(text: str, ignore_names: Iterable[str] = (), *, to_person: bool = False) -> list[Unit]:
    """The units of a message body (speaker prefix already removed); `ignore_names` are the
    people talking, whose names address rather than inform ("Thanks, Mel!"). `to_person`: the
    listener is a person, so advice and proposals to them are kept (to an assistant, an
    imperative is a request for work, not a fact)."""
    names = tuple(ignore_names)
    units: list[Unit] = []
    for sentence in sentences(plain_text(text)):
        found = _sentence_units(sentence, names, to_person)
        if not found and units and units[-1].kind == "statement" and _describes_previous(sentence):
            found = [Unit(sentence, "statement", True)]
        for unit in found:
            previous = units[-1] if units else None
            if previous is not None and previous.kind == unit.kind == "statement" and _continues(previous, unit):
                units[-1] = previous._replace(text=f"{_with_stop(previous.text)} {unit.text}")
            else:
                units.append(unit)
    return units


def _continues(previous: Unit, unit: Unit) -> bool:
    """`unit` belongs with the statement before it: it leans on it and the two stay short; it is
    a fragment that cannot stand alone ("Building stamina!" after what was done at the pool); or
    the one before only announced it ("I tried something new last weekend." + what it was)."""
    size = len(_WORD.findall(previous.text)) + len(_WORD.findall(unit.text))
    if unit.leans_back and size <= JOIN_MAX_WORDS:
        return True
    if is_fragment(unit.text) and not previous.text.rstrip().endswith(":"):
        return True
    return announces(previous.text) and size <= ANNOUNCED_MAX_WORDS


FRAGMENT_MAX_WORDS = 3
"""A sentence of at most this many words ("Building stamina!", "Vibrant and warm.") says too
little to be found on its own: it stays with the statement it follows."""
_HEADING_WORD = re.compile(r"^(?:[A-Z0-9][\w'\u2019-]*[\])]?|[\[(#*].*)$")


def is_fragment(sentence: str) -> bool:
    """Too short to stand alone, and no heading, label or placeholder ("Body Paragraph 2.",
    "[Your Name]"), which belongs with what follows it if with anything."""
    words = sentence.strip().rstrip(".!:").split()
    if not words or len(_WORD.findall(sentence)) > FRAGMENT_MAX_WORDS or sentence.rstrip().endswith(":"):
        return False
    return not all(_HEADING_WORD.match(w) for w in words) and not has_digit(sentence)


ANNOUNCED_MAX_WORDS = 60
"""An announcement and what it announces are kept together up to this many words."""
_ANNOUNCEMENT = re.compile(
    r"(?i)(?:\b(?:i|we|i've|we've)\s+(?:just\s+|finally\s+)?(?:did|tried|have|had|got|found|learned|learnt|made|saw|heard|"
    r"started|bought|discovered)\s+(?:something|(?:some\s+)?(?:(?:big|great|good|exciting|huge)\s+)?news)\b"
    r"|^\W*(?:something|some\s+news)\s+(?:\w+\s+){0,2}(?:happened|came\s+up)\b|^\W*guess\s+what\b)"
)
ANNOUNCEMENT_MAX_WORDS = 15


def announces(sentence: str) -> bool:
    """The sentence only announces what the next one says ("Something great happened last week.",
    "I tried something I had never done before.", "We have some news."): the speaker did or
    has *something*, and names no value."""
    return (
        len(_WORD.findall(sentence)) <= ANNOUNCEMENT_MAX_WORDS
        and bool(_ANNOUNCEMENT.search(sentence))
        and not _NAMES_ITS_SOMETHING.search(sentence)
        and not carries_value(sentence)
    )


_NAMES_ITS_SOMETHING = re.compile(r"(?i)\b(?:something|news)\s+(?:\w+\s+){0,2}(?:like|called|named|about|of|in|with)\b")


def _describes_previous(sentence: str) -> bool:
    """ "It was a really peaceful trip." after the speaker's own statement judges what they just
    told, not what the listener said: it belongs with that statement."""
    return _first_word(sentence) in _DEICTIC and is_reaction(sentence) and not sentence.rstrip().endswith("?")


# "Cool, ..." and "Great! ..." are interjections; "Cool to hear ..." and "Great to see ..." open a
# judgement, whose word is not to be cut ("to hear about your trip" would be left).
_INTERJECTION_LEAD = re.compile(
    r"(?i)^(?:(?:wow|whoa|woah|omg|haha+|lol|aw+|ooh|oh|ah+|hmm+|oops|phew|gosh|geez|jeez)[,!.]*\s+"
    r"|(?:cool|nice|great|awesome)[,!.]+\s+)+"
)


def _without_interjections(text: str) -> str:
    """ "Wow, Jolene's relationship started from a friendship" says "Jolene's relationship ...";
    a yes or no ("Yeah, twice a week") is part of the answer and stays."""
    return _capitalised_if_cut(_INTERJECTION_LEAD.sub("", text), text)


_YES_OR_NO_LEAD = r"(?:(?:yeah|yes|yep|yup|no|nope|nah|sure|definitely|absolutely|true)[,!.]*\s+)?"


def _without_vocative(text: str, names: tuple[str, ...]) -> str:
    """ "Joanna, I'm a big fan of them" says "I'm a big fan of them": the name of one of the people
    talking, before a comma at the start (after a yes or no: "Yeah, Caroline, they're my fave")
    or after the last one at the end ("Hang in there, Jon."), only addresses. Not a list of
    people ("Ana, Ben and I went")."""
    if not names:
        return text
    opened = _capitalised_if_cut(_vocative(names).sub(_lead_kept, text, count=1), text)
    return _closing_vocative(names).sub("", opened, count=1)


def _lead_kept(vocative: re.Match[str]) -> str:
    """The yes or no before a cut name, with the comma the name took ("Yeah Mel, stoked" says
    "Yeah, stoked"), so the lead reads as the lead it is."""
    lead = vocative.group(1).rstrip()
    return f"{lead.rstrip(',!.')}, " if lead else ""


@text_cache(maxsize=1024)
def _closing_vocative(names: tuple[str, ...]) -> re.Pattern[str]:
    """ "Count me in, John." says "Count me in.": a name of one of the people talking after the
    last comma, closing the sentence, only addresses."""
    people = "|".join(re.escape(name) for name in names)
    return re.compile(rf"(?<=\w),\s+(?:{people})(?=\s*[.!?]*$)")


@text_cache(maxsize=1024)
def _vocative(names: tuple[str, ...]) -> re.Pattern[str]:
    people = "|".join(re.escape(name) for name in names)
    return re.compile(rf"(?i)^({_YES_OR_NO_LEAD})(?-i:{people})\s*[,!]+\s+(?![A-Z][a-z]+(?:,|\s+and\b))(?=\S)")


def _capitalised_if_cut(stripped: str, text: str) -> str:
    """`text` with its lead cut off (`stripped`), opening on a capital; `text` when nothing was cut."""
    return stripped[:1].upper() + stripped[1:] if stripped and stripped != text else text


def _with_stop(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else f"{text}."
