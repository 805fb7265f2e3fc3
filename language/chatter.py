"""Which sentences of a message carry something worth remembering.

Conversation is mostly social glue: greetings, thanks, praise, reactions ("Wow, that's so
cool!"), receipts ("Got it, Ava."), sign-offs, questions back. None of it is a fact about
anyone. A sentence is *chatter* when, once the words of that glue are set aside (function words,
interjections, evaluative and feeling words, the words of address), fewer than two content words
remain; a question is never a fact either. What remains — "I went to a support group", "my son
broke his arm" — is kept.

The vocabulary below is general conversational English (interjections, praise, sympathy, sign-off
phrasing). It is deliberately not a list of sentences: every rule is a property of words, tested
on text it was not written from (`tests/unit/language/test_language.py`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from language.sentences import split_sentences
from language.text_caches import text_cache
from language.tokens import has_digit

_WORD = re.compile(r"[a-z][a-z']*|\d[\d.,:/-]*")
_CAPTION = re.compile(
    r"\[(?:shares?|sent|sends|posts?|attach(?:es|ed)?)\s+(?:an?\s+)?"
    r"(?:photo|image|picture|video|link|file)[^\]]*\]",
    re.IGNORECASE,
)
_CAPTION_BODY = re.compile(
    r"^\[\w+\s+(?:an?\s+)?(?:photo|image|picture|video|link|file)\s*:?\s*"
    r"(?:(?:an?\s+)?(?:photo|image|picture)\s+of\s+)?",
    re.IGNORECASE,
)
_CODE = re.compile(
    r"[{};]\s*$|^\s*(?:def|class|import|from|return|for|if|while|const|let|var|function)\b.*[:({=]"
    r"|[=!<>]=|=>|\w+\(.*\)\s*$|^\s*[#/]{1,2}\s*\w+\s*="
)

FUNCTION_WORDS = frozenset(
    """
a about above after again all also am an and any are aren't as at be because been before being both
but by can can't could couldn't did didn't do does doesn't doing don't down during each even ever every
few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers
him his how how's i i'd i'll i'm i've if in into is isn't it it'd it'll it's its just let let's me
more most much must my no nor not now of off oh on once one only or other ought our ours out over own
quite rather really same she she'd she'll she's should shouldn't so some such than that that's the
their theirs them then there there's these they they'd they'll they're they've this those though
through to too under until up upon us very was wasn't we we'd we'll we're we've were weren't what
what's when when's where where's which while who who's whom why why's will with won't would wouldn't
yet you you'd you'll you're you've your yours yourself yourselves myself ourselves themselves himself
herself itself ya yeah yes yep nope ok okay gonna wanna gotta kinda sorta lot lots thing things stuff
way bit always sometimes often totally absolutely definitely certainly surely truly seriously
honestly literally actually pretty super soo sooo again back still already
""".split()
)
INTERJECTIONS = frozenset(
    """
hi hey hello hiya howdy bye goodbye cya later cheers thanks thank thx ty welcome congrats
congratulations wow whoa woah omg haha hahaha lol lmao yay hooray aw aww awww ooh oooh ah ahh uh um
hmm hm wow yikes oops phew ugh gosh geez jeez dear man dude buddy pal
""".split()
)
EVALUATIVE = frozenset(
    """
awesome amazing great cool nice wonderful fantastic incredible beautiful lovely proud glad happy
sorry sad inspiring inspired special fun sweet cute good bad best better true right exciting excited
tough hard powerful awful terrible brave strong lucky blessed stunning gorgeous impressive impressed
interesting perfect fabulous brilliant superb excellent neat rad epic fab cool crazy wild insane
touching moving heartwarming heartbreaking hilarious funny rough scary tough meaningful important
glad grateful thankful appreciate appreciated appreciative admire love loved lovely hope hoping
wish wishing miss missed care caring kind thoughtful helpful supportive positive awesome dope
sure agree agreed absolutely indeed exactly totally same wonder wondering real
""".split()
)
ADDRESS = frozenset(
    """
hear hearing heard sound sounds sounded look looks looked seem seems seemed feel feels felt know
knew mean means meant say said tell told talk talking chat chatting catch caught see seeing saw
think thought guess bet glad keep going luck care soon time doing done get got take
""".split()
)
NOT_CONTENT = FUNCTION_WORDS | INTERJECTIONS | EVALUATIVE | ADDRESS
MIN_CONTENT_WORDS = 2
FIRST_PERSON = frozenset({"i", "i'm", "i've", "i'd", "i'll", "my", "me", "mine", "we", "we're", "we've", "our", "us"})
# A reaction opens on the listener or on what was just said, and judges it: "You're so brave",
# "That's a gorgeous song", "Glad you made it", "Love the colours".
REACTION_OPENERS = frozenset(
    """
you your you're youre yours that that's thats this it it's its what how glad hope hoping wish so such
love loved sounds looks seems
""".split()
)


class Sentence(NamedTuple):
    text: str
    kind: str
    """"statement", "question", "chatter", "caption" or "code"."""


def sentences(text: str) -> list[str]:
    """Split at sentence ends (and keep media captions "[shares a photo: …]" as their own piece)."""
    pieces: list[str] = []
    # Each sentence is read on its own, so a title or an initial must not end one ("Dr. Lee").
    with_captions_apart = _CAPTION.sub(lambda m: f"\n{m.group(0)}\n", text)
    for part in split_sentences(with_captions_apart, careful=True, next_start="capital", newlines=True):
        part = part.strip()
        if part and any(ch.isalnum() for ch in part):
            pieces.append(part)
    return pieces


def content_words(sentence: str) -> list[str]:
    return [w for w in _WORD.findall(sentence.lower().replace("\u2019", "'")) if w not in NOT_CONTENT]


@text_cache(maxsize=65536)  # a pass classifies a message's sentences in more than one phase
def classify_sentence(sentence: str, *, to_person: bool = True) -> str:
    """`to_person`: the listener is a person (a guess at how their news felt is a reaction; said
    to an assistant, "It sounds like the first plan suits Leo best" is the speaker's conclusion)."""
    stripped = sentence.strip()
    if _CAPTION.fullmatch(stripped):
        return "caption"
    if _CODE.search(stripped):
        return "code"
    if stripped.endswith("?"):
        return "question"
    if is_pleasantry(stripped) or is_acknowledgement(stripped):
        return "chatter"
    if _ANNOUNCES_A_QUESTION.match(stripped.replace("\u2019", "'")):
        return "chatter"
    if is_own_feeling(stripped):
        return "statement"
    if len(content_words(stripped)) < _min_content_words(stripped) or is_reaction(stripped, to_person=to_person):
        return "chatter"
    return "statement"


def says_nothing(text: str) -> bool:
    """Every sentence of `text` is social glue (`classify_sentence` "chatter": thanks, a receipt, a
    reaction): nothing in it a memory or a check of one could rest on. A question or a caption
    says something."""
    pieces = sentences(text)
    return bool(pieces) and all(classify_sentence(piece) == "chatter" for piece in pieces)


# "I'm kinda curious.", "Just wondering!": the speaker announces the question that follows, and says nothing.
_ANNOUNCES_A_QUESTION = re.compile(
    r"(?i)^(?:\W*\w+[,!.]\s+)?(?:i'm|i\s+am|i\s+was|just)\s+(?:\w+\s+)?(?:curious|wondering)\s*[.!]*$"
)
_OWN_FEELING = re.compile(r"(?i)^(?:\W*\w+[,!.]\s+)?(?:i'm|i am|i was|i feel|i felt|i've been|we're|we are|we were)\b")
_SECOND_PERSON = frozenset({"you", "your", "you're", "yours", "you've", "you'll", "ya"})


_ELIDED_OWN_FEELING = re.compile(
    r"(?i)^(?:\W*\w+[,!.]\s+)?(?:so\s+|really\s+)?(?:glad|happy|excited|proud|thrilled|grateful|thankful|honou?red|lucky)"
    r"\s+to\s+(?!hear\b|see\b|know\b|help\b|say\b|chat\b|talk\b)\w+"
)


def is_own_feeling(sentence: str) -> bool:
    """The speaker says how they feel ("I'm so excited and inspired!", "Proud to be on the
    team"): a fact about them, though every word is a feeling word. Not when it answers the
    listener ("I'm so happy for you", "I'm sorry to hear that", "Glad to help"): then it is
    sympathy, chatter."""
    text = sentence.replace("\u2019", "'")
    if _ELIDED_OWN_FEELING.match(text) and not set(_WORD.findall(text.lower())) & _SECOND_PERSON:
        return True
    if not _OWN_FEELING.match(text):
        return False
    words = set(_WORD.findall(sentence.lower().replace("\u2019", "'")))
    return bool(words & EVALUATIVE) and not words & (_SECOND_PERSON | ADDRESS | {"that", "it", "this"})


def _min_content_words(sentence: str) -> int:
    """Speaking of oneself, one content word is a fact ("I'm vegetarian"); otherwise it takes two."""
    words = set(_WORD.findall(sentence.lower().replace("\u2019", "'")))
    return 1 if words & FIRST_PERSON else MIN_CONTENT_WORDS


_THANKS = re.compile(
    r"(?i)^(?:(?:ok(?:ay)?|great|awesome|perfect|yeah|yes|sure|cool|alright)\W+)?"
    r"(?:thanks|thank\s+you|many\s+thanks|much\s+appreciated|i\s+(?:really\s+)?appreciate)\b(?!\s+to\b)"
)
_SIGN_OFF = re.compile(
    r"(?i)^(?:\W*\w+[,!.]\s+)?(?:i'll|i\s+will)\s+(?:(?:keep|go)\s+\w+(?:\s+\w+)?\s+and\s+)?"
    r"(?:come\s+back|reach\s+out|get\s+back|check\s+back|circle\s+back|let\s+you\s+know|keep\s+you\s+posted|be\s+in\s+touch)"
    r"(?:\s+(?:again|later|soon|to\s+you|with\s+you)){0,2}\s*(?:[.!]+$|$|,?\s+(?:if|when|once|after)\s+(?:i|we)\b)"
)
_SPEAKER_CLAUSE = re.compile(r"(?i)\b(?:i|i'm|i've|i'd|we|we're|we've)\b")
# Taking leave: the speaker has to go ("I have to run", "I should get going") or wishes the
# listener well on parting ("have a nice day", "talk soon", "good night"). Only a sentence made of
# nothing else: "I have to go to the dentist" and "I have to run a 10k" say something.
_LEAVING = (
    r"(?:(?:i|we)(?:\s+(?:have|need|got)\s+to|'ve\s+got\s+to|\s+(?:must|should|gotta))|gotta|got\s+to|time\s+to)"
    r"\s+(?:run|go|dash|head\s+out|get\s+going|take\s+off|sign\s+off|log\s+off|hop\s+off|get\s+some\s+sleep)"
    r"(?:\s+(?:now|for\s+now|too))?"
)
_PARTING_WISH = (
    r"(?:(?:have\s+a\s+(?:nice|good|great|lovely|wonderful)|enjoy\s+(?:your|the))\s+(?:day|night|evening|weekend|week|one)"
    r"(?:\s+(?:today|tonight|too|as\s+well))?"
    r"|talk\s+(?:to\s+you\s+)?(?:soon|later)|(?:see|catch)\s+(?:you|ya)(?:\s+(?:soon|later|around|then))?"
    r"|take\s+care|bye(?:\s+for\s+now)?|good\s*night|sleep\s+well|ttyl)"
)
_PARTING_UNIT = rf"(?:{_LEAVING}|{_PARTING_WISH})"
_TAKES_LEAVE = re.compile(
    rf"(?i)^\W*(?:(?:ok(?:ay)?|well|anyway|alright|oh|so|sorry)\W+)?{_PARTING_UNIT}"
    rf"(?:\s*(?:[,;.!]+|\s+and|,\s+but)\s*{_PARTING_UNIT})*(?:,?\s+(?-i:[A-Z][\w'-]*))?\s*[.!]*$"
)


_ACKNOWLEDGED = re.compile(
    r"(?i)^(?:\W*(?:ok(?:ay)?|sure|right|alright|great|thanks|ha|ah|oh|yes|yeah)[,!.]?\s+)?(?:"
    r"(?:got\s+it|noted|understood|will\s+do|fair\s+enough|(?:that\s+)?sounds\s+good"
    # "That sounds like a solid plan", "This seems a sensible approach": the proposal judged, no more
    r"|(?:that\s+|it\s+|this\s+)?(?:sounds|seems|looks)\s+(?:like\s+)?(?:a|an)\s+(?:really\s+|very\s+|pretty\s+)?"
    r"(?:(?:good|great|solid|reasonable|sensible|smart|perfect|nice|excellent|fair|workable|doable|realistic"
    r"|manageable|clear)\s+)?(?:plan|idea|approach|strategy|start|way\s+to\s+go)"
    r"|(?:that\s+|it\s+|this\s+)?(?:makes|made)\s+(?:total\s+|perfect\s+|a\s+lot\s+of\s+)?sense(?:\s+now)?)"
    r"|(?:i'll|i\s+will|i've|i\s+have|i'm\s+going\s+to)\s+(?:be\s+sure\s+to\s+|definitely\s+|certainly\s+)?"
    r"(?:(?:keep|kept|bear|borne)\s+(?:that|this|it|these|those|all\s+(?:of\s+)?that)\s+in\s+mind"
    r"|remember(?:ed)?\s+(?:that|this|it)|not(?:e|ed)\s+(?:that|this|it)(?:\s+down)?"
    r"|(?:make|made)\s+a\s+note\s+of\s+(?:that|this|it)))"
    r"(?:\s+for\s+you)?(?:\s+(?:going\s+forward|from\s+now\s+on|next\s+time))?"
    r"(?:,?\s+(?:thanks|thank\s+you|(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?))){0,2}"
    r"(?:\s*\([^()]{0,40}\))?\s*[.!]*$"
)


_SMALL_TALK_QUESTION = re.compile(
    r"(?i)^\W*(?:(?:hey|hi|so|oh|well|anyway)(?:\s+(?-i:[A-Z][\w'-]*))?\W+)?"
    r"(?:guess\s+what|you\s+know\s+what|what's\s+(?:up|new)"
    r"|how(?:'s|\s+is)\s+(?:it|everything|life|things)(?:\s+going)?"
    r"|how(?:\s+(?:are|r|have)|'re)\s+(?:you|ya|u)(?:\s+(?:doing|doin'?|been))?)"
    r"(?:,?\s+(?-i:[A-Z][\w'-]*))?\s*[?!.]*$"
)


def is_small_talk_question(sentence: str) -> bool:
    """A question that greets or teases ("How's it going?", "Guess what?"): the reply to it says
    what it says without it."""
    return _SMALL_TALK_QUESTION.match(sentence.replace("\u2019", "'").strip()) is not None


def is_acknowledgement(sentence: str) -> bool:
    """The listener's words acknowledged and nothing more ("Got it, Ava.", "I'll keep that in mind
    for you (ref 12)."): a receipt, not a fact, though it may name the listener or carry an aside
    in brackets. Not when it goes on to say what is kept ("I'll remember that you take the early
    train", "Noted: the deadline is May 3")."""
    return _ACKNOWLEDGED.match(sentence.replace("\u2019", "'").strip()) is not None


def is_pleasantry(sentence: str) -> bool:
    """Thanks for what the listener did ("Thanks for the help with my budget!"), a sign-off
    ("I'll keep at it and come back if I get stuck") or taking leave ("I have to run, have a nice
    day"): social glue, however many content words it
    holds. Not when it goes on to say something of the speaker's own ("thanks for the tip, I
    bought the blue one") or carries a value, and "thanks to" gives a cause, not thanks."""
    text = sentence.replace("\u2019", "'")
    if has_digit(text):
        return False
    thanks = _THANKS.match(text)
    if thanks:
        return not _SPEAKER_CLAUSE.search(text[thanks.end() :])
    return bool(_SIGN_OFF.match(text) or _TAKES_LEAVE.match(text))


REACTION_MAX_CONTENT_WORDS = 2
"""A reaction judges what was just said and adds little: "That's a gorgeous song" (one content word
left). A sentence that opens the same way but goes on to say something ("It's important for young
people to remember those who served") is a statement."""


_JUDGING_OPENERS = frozenset({"sounds", "looks", "seems"})


def is_reaction(sentence: str, *, to_person: bool = True) -> bool:
    """It opens on the listener or on what was just said and judges it, adding little of its own
    ("That's a gorgeous song"), or says how the listener's news sounds ("Sounds like a lovely trip
    for your family"), or answers the listener's news (`answers_the_listener`)."""
    words = _WORD.findall(sentence.lower().replace("\u2019", "'"))
    while words and words[0] in INTERJECTIONS:
        words = words[1:]
    if answers_the_listener(words, sentence, to_person=to_person):
        return True
    if not words or words[0] not in REACTION_OPENERS or not any(w in EVALUATIVE for w in words):
        return False
    little = len([w for w in words if w not in NOT_CONTENT]) <= REACTION_MAX_CONTENT_WORDS
    return little or words[0] in _JUDGING_OPENERS


_GREETS_NEWS = re.compile(
    r"(?i)^\W*(?:congrats|congratulations|kudos|thanks|thank\s+you|thx)\s+(?:so\s+much\s+)?(?:on|for)\b"
)
_FEELING_ABOUT_YOU = re.compile(
    r"(?i)^\W*(?:(?:i'm|i\s+am|i\s+was)\s+)?(?:so\s+|really\s+|very\s+|super\s+)?"
    r"(?:glad|happy|proud|sorry|thrilled|stoked|relieved)\s+(?:for\s+|of\s+|that\s+|about\s+)?"
    r"(?:you\b|your\b|you're\b|you've\b|you'll\b|to\s+(?:hear|see|know)\b)"
)
_GOOD_NEWS = re.compile(
    r"(?i)^\W*(?:(?:it's|that's|it\s+is|that\s+is)\s+)?(?:so\s+|really\s+|very\s+|super\s+)?"
    r"(?:great|good|cool|nice|awesome|amazing|wonderful|lovely|fantastic)\s+"
    r"(?:to\s+(?:hear|see|know)\b|(?:that\s+)?(?:you|you're|you've)\b)"
)
"""How good the listener's news is ("Great to hear you made the team", "So cool you found a class",
"Great that you're back"): theirs, not the speaker's."""
_GUESSES = re.compile(
    r"(?i)^\W*(?:(?:that|it|this|you|they|he|she)\s+)?(?:must(?:'ve|\s+have)?\s+(?:be|been|felt|feel)|"
    r"sounds?\s+(?:so\s+|really\s+)?\w+\s*[.!]?$)"
)
_RESTATES = re.compile(r"(?i)^\W*(?:(?:that|it)\s+)?(?:sounds|sounded)\s+like\b")
_LOOKING_FORWARD = re.compile(r"(?i)^\W*(?:can't|cannot|can\s+not)\s+wait\s+to\s+(?:see|hear|read|try|check)\b")
_STAYS_IN_TOUCH = re.compile(
    r"(?i)^\W*(?:(?:and|so|but|just|please|definitely)\s+)*(?:(?:i'll|i\s+will|will|i'd\s+love\s+to|gonna)\s+(?:definitely\s+|totally\s+)?)?"
    r"(?:(?:keep|let)\s+(?:you|ya)\s+(?:posted|updated|know|in\s+the\s+loop)|let\s+me\s+know|keep\s+me\s+(?:posted|updated|in\s+the\s+loop)"
    r"|(?:always\s+)?be\s+(?:here|there)\s+for\s+you|talk\s+(?:to\s+you\s+)?soon|catch\s+(?:you|ya)\s+later"
    r"|(?:i'm\s+|i\s+am\s+)?(?:really\s+|so\s+)?looking\s+forward\s+to\s+(?:our|the)\s+next"
    r"\s+(?:chat|talk|catch[- ]?up|call))\b"
)
STAY_IN_TOUCH_MAX_WORDS = 14
"""Past this many words a "let me know …" carries something of its own."""
FELT_WORDS = frozenset(
    """
rewarding fulfilling satisfying exhausting stressful frustrating overwhelming relaxing calming
breathtaking liberating thrilling terrifying nerve-wracking emotional surreal unforgettable memorable
incredible intense scary hard tough difficult nice great fun amazing awesome wonderful special
beautiful lovely tiring freeing peaceful magical cool exciting
""".split()
)


def answers_the_listener(words: list[str], sentence: str, *, to_person: bool = True) -> bool:
    """The sentence answers the listener's news rather than telling any of the speaker's own: it
    congratulates or thanks them for it ("Congrats on the new job"), feels about it for them
    ("So glad you found a flat", "Sorry to hear that"), guesses how it felt ("That must have been
    exhausting", "Sounds so fun"), says back what it sounds like ("Sounds like the move went
    well"), looks forward to seeing it ("Can't wait to see the photos") or keeps in touch ("I'll
    keep you posted", "Let me know how it goes"). The listener's own message holds the fact.
    Guessing and saying back are reactions only to a person (`to_person`).
    Never when the speaker speaks of their own world too ("… I'll bring my tent"), nor for a
    value ("must be in by 5 May")."""
    text = sentence.replace("\u2019", "'")
    if _STAYS_IN_TOUCH.match(text) and len(words) <= STAY_IN_TOUCH_MAX_WORDS and not has_digit(text):
        return True
    if not words or set(words) & FIRST_PERSON - {"i'm", "i"}:
        return False
    if any(p.match(text) for p in (_GREETS_NEWS, _FEELING_ABOUT_YOU, _GOOD_NEWS, _LOOKING_FORWARD)):
        return True
    if has_digit(text) or not to_person:
        return False  # "Sounds like the rent is $900 now": a value is worth its memory
    return bool(_RESTATES.match(text)) or (
        bool(_GUESSES.match(text)) and any(w in FELT_WORDS or w in EVALUATIVE for w in words)
    )


def read_sentences(text: str) -> list[Sentence]:
    return [Sentence(s, classify_sentence(s)) for s in sentences(text)]


def caption_subject(caption: str) -> str:
    """ "[shares a photo: a photo of a dog on a boat]" -> "a dog on a boat"."""
    return _CAPTION_BODY.sub("", caption.strip()).rstrip("] ").strip()


def is_chatter(text: str) -> bool:
    """A whole message with no statement in it."""
    return not states_something(text)


def states_something(text: str) -> bool:
    """Some sentence of `text` is a statement (read until the first one)."""
    return any(classify_sentence(piece) == "statement" for piece in sentences(text))
