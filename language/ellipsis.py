"""A chat sentence that leaves out its subject: "Haven't been there yet", "Tried it once in Bali",
"Gotta fix the roof first", "Been training for a month".

Typed fast, a person drops the "I" before a verb that only they can be the subject of; read in the
third person, such a sentence has no one doing anything. `with_subject` puts the "I" back, so the
person rewrite (`language.person`) names the speaker. Only forms that cannot be an imperative or an
adjective are read that way: a negated auxiliary ("haven't", "didn't", "can't"), a past verb with
an object, a particle or a time after it ("Finished it last night", "Went home early"), "been"
before what the speaker is doing ("Been running a lot"), "gotta"/"wanna"/"gonna" before a verb, a
verb of the speaker's own attitude before what it is about ("Appreciate the help", "Hope it went
well"), a feeling before what it is about ("Glad to hear it", "Proud of the team"), what the speaker
is in the middle of ("Looking forward to June", "Thinking of selling it") and a past before its "to"
("Wanted to tell you"). "Sounds great" (its subject is "it"), "Excited!" (nothing it is about),
"Let me know" and "Wish me luck" (orders) keep their words. A question keeps its words too ("Got any
plans?").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from language.verb_forms import INVARIANT_FORMS, PASTS_LIKE_BASE, is_regular_past

_ADVERB = r"(?:just|never|also|finally|already|really|actually|recently|totally|even|still|only)"
_NEGATED = frozenset(
    "haven't havent hadn't didn't didnt can't cant couldn't couldnt won't wont wouldn't wouldnt wasn't wasnt".split()
)
_MODALS_AND_BE = frozenset("can could will would shall should may might must was were did".split())
# Pasts whose base form is spelled the same read as an imperative as often ("Let me know", "Read this").
_PASTS = INVARIANT_FORMS - _MODALS_AND_BE - PASTS_LIKE_BASE - _NEGATED - {"mustn't", "shouldn't"}
_OBJECT_OR_TIME = re.compile(
    r"(?:it|them|this|that|these|those|a|an|the|my|our|his|her|their|some|all|lots|loads|plenty|up|off|back|over"
    r"|down|home|here|there|last|yesterday|today|tonight|every|twice|again)\b",
    re.IGNORECASE,
)
# "Been a long week" / "Been ages" leave out "it has", not "I have".
_BEEN_FOR_IT = re.compile(r"(?:a|an|the|such|so|ages|forever|awhile|long|quite|way|too)\b", re.IGNORECASE)
# Verbs of the speaker's own attitude: opening a chat sentence, with what they are about after them,
# they are "I love …", "I hope …" far more often than an order.
_ATTITUDES = frozenset("love appreciate hope wish miss need adore reckon doubt guess".split())
# What follows such a word when it is a noun or a set phrase ("Love and patience …", "Hope is …",
# "Guess what") or an order ("Wish me luck").
_NOT_ITS_OBJECT = re.compile(r"(?:and|or|is|was|are|were|of|for|what|can|will|me|us)\b", re.IGNORECASE)
_FEELINGS = frozenset(
    "glad happy excited stoked thrilled proud grateful thankful lucky sorry sad nervous worried curious eager"
    " relieved".split()
)
_WHAT_IT_IS_ABOUT = re.compile(r"(?:to|that|for|about|of|with|it)\b", re.IGNORECASE)
_IN_THE_MIDDLE_OF = re.compile(
    r"(?:looking\s+forward|hoping|planning|thinking\s+(?:of|about)\s+\w+ing)\b", re.IGNORECASE
)
# "Thinking about the move keeps me up": the opening phrase is the subject of a verb after it.
# Only "thinking" opens such a subject in chat; "Hoping Ana's book gets noticed" hopes a clause.
_VERB_AFTER = re.compile(
    r"\b(?:is|was|has|means|meant|makes|made|gives|gave|helps|helped|keeps|kept|brings|brought)\b", re.IGNORECASE
)
_PASTS_BEFORE_TO = frozenset("wanted decided managed tried planned needed hoped meant used forgot got had".split())
_SENTENCE = re.compile(r"(?:^|(?<=[.!?])\s+)(?=[A-Z])")
_WORD = re.compile(r"[A-Za-z'\u2019]+")


def _left_out_subject(sentence: str) -> str | None:
    """What goes before `sentence` to give it its subject ("I", "I've", "I'm"), or None."""
    if sentence.rstrip().endswith("?"):
        return None
    words = _WORD.findall(sentence[:80])
    if not words:
        return None
    at = 1 if len(words) > 1 and re.fullmatch(_ADVERB, words[0], re.IGNORECASE) else 0
    verb = words[at].lower().replace("\u2019", "'")
    following = " ".join(words[at + 1 : at + 3])
    if verb in _NEGATED:
        return "I" if following else None
    if verb == "been":
        return "I've" if following and not _BEEN_FOR_IT.match(following) else None
    if verb in ("gotta", "wanna"):
        return "I" if following else None
    if verb == "gonna":
        return "I'm" if following and not following.lower().startswith("be ") else None
    if (verb in _PASTS or is_regular_past(verb)) and _OBJECT_OR_TIME.match(following):
        return "I"
    return _left_out_by_meaning(sentence, words[at:], verb, following)


def _left_out_by_meaning(sentence: str, words: list[str], verb: str, following: str) -> str | None:
    """The forms read by the opening word's meaning: attitudes, feelings, what the speaker is in the
    middle of, a past before its "to". Each needs a word after it, and the opening word must not
    end on a comma ("Love, Mom")."""
    opening = sentence[sentence.lower().find(verb) :]
    if not following or opening[len(verb) :].startswith(","):
        return None
    if verb in _ATTITUDES and not _NOT_ITS_OBJECT.match(following):
        return None if verb == "miss" and words[1][:1].isupper() else "I"  # "Miss Lee" is a title
    if verb in _FEELINGS and _WHAT_IT_IS_ABOUT.match(following):
        return "I'm"
    if verb in _PASTS_BEFORE_TO and following.lower().startswith("to "):
        return "I"
    if _IN_THE_MIDDLE_OF.match(opening) and not (verb == "thinking" and _VERB_AFTER.search(opening)):
        return "I'm"  # "Hoping Ana's book gets noticed": the clause after "hoping" has its own verb
    return None


def with_subject(text: str, only: Callable[[str], bool] | None = None) -> str:
    """`text` with the "I" put back before each sentence that leaves it out (the module's forms);
    a sentence opening on a word that is not a verb of the speaker's is left as written, and so
    is one `only` (when given) turns down."""
    starts = [m.start() for m in _SENTENCE.finditer(text)]
    if not starts:
        return text
    out: list[str] = [text[: starts[0]]]
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(text)
        chunk = text[start:end]
        body = chunk.lstrip()
        subject = _left_out_subject(body)
        if subject is not None and (only is None or only(body)):
            chunk = f"{chunk[: len(chunk) - len(body)]}{subject} {body[:1].lower()}{body[1:]}"
        out.append(chunk)
    return "".join(out)
