"""A chat sentence that leaves out its subject: "Haven't been there yet", "Tried it once in Bali",
"Gotta fix the roof first", "Been training for a month".

Typed fast, a person drops the "I" before a verb that only they can be the subject of; read in the
third person, such a sentence has no one doing anything. `with_subject` puts the "I" back, so the
person rewrite (`language.person`) names the speaker. Only forms that cannot be an imperative or an
adjective are read that way: a negated auxiliary ("haven't", "didn't", "can't"), a past verb with
an object, a particle or a time after it ("Finished it last night", "Went home early"), "been"
before what the speaker is doing ("Been running a lot"), and "gotta"/"wanna"/"gonna" before a verb.
"Sounds great" (its subject is "it"), "Excited to go!" (an adjective) and "Let me know" (a base
form) keep their words. A question keeps its words too ("Got any plans?").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from language.person import INVARIANT_FORMS, is_regular_past

_ADVERB = r"(?:just|never|also|finally|already|really|actually|recently|totally|even|still|only)"
_NEGATED = frozenset(
    "haven't havent hadn't didn't didnt can't cant couldn't couldnt won't wont wouldn't wouldnt wasn't wasnt".split()
)
_MODALS_AND_BE = frozenset("can could will would shall should may might must was were did".split())
# Pasts whose base form is spelled the same read as an imperative as often ("Let me know", "Read this").
_SAME_AS_BASE = frozenset(
    "bet cost cut hit hurt lay let put quit read set shed shut split spread thrust upset wed".split()
)
_PASTS = INVARIANT_FORMS - _MODALS_AND_BE - _SAME_AS_BASE - _NEGATED - {"mustn't", "shouldn't"}
_OBJECT_OR_TIME = re.compile(
    r"(?:it|them|this|that|these|those|a|an|the|my|our|his|her|their|some|all|lots|loads|plenty|up|off|back|over"
    r"|down|home|here|there|last|yesterday|today|tonight|every|twice|again)\b",
    re.IGNORECASE,
)
# "Been a long week" / "Been ages" leave out "it has", not "I have".
_BEEN_FOR_IT = re.compile(r"(?:a|an|the|such|so|ages|forever|awhile|long|quite|way|too)\b", re.IGNORECASE)
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
