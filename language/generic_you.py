"""Which "you" means anyone ("if you train daily, you get faster") and which the listener ("I was
wondering if you could help me"): read from the words around it, before any rewrite.

A chat's "you" is the listener unless the sentence says otherwise; `language.person` leaves a
sentence with a generic "you" in the second person, and names the listener in any other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from language.verb_forms import is_plain_past, is_regular_past

# "you" meaning anyone: after a condition ("if you", "when you"), before a modal of advice or
# ability ("you can", "you have to", "you never know"), as the object of a general effect ("it
# makes you think"), and the fillers "you know" / "you see".
_GENERIC_BEFORE = re.compile(
    r"(?i)(?:\b(?:if|when|whenever|once|unless|until|before|after|as long as|makes?|made|helps?|lets?|gives?|"
    r"keeps?|teach(?:es)?|reminds?)\s+)$"
)
_GENERIC_AFTER = re.compile(
    r"(?i)^\s+(?:(?:always|just|really|sometimes|usually|often)\s+)?(?:can|can't|cannot|could|must|might|may"
    r"|need to|have to|had to|got to|gotta|never know|'ve got to"
    # "you know" / "you see" as a filler ("it's hard, you know?"), not "you know my cousin"
    r"|(?:know|see)(?=\s*(?:[,.!?;]|$)|\s+what\s+i\s+mean|\s+how\s+it\s+(?:is|goes)))\b"
)

# The speaker as subject, with a modal or a negation and an adverb: "I", "I'll", "we won't just".
_SPEAKER_SUBJECT = (
    r"\b(?:i|we)(?:\s+(?:can|could|will|would|might|may|should|shall|must|do|did)(?:n['\u2019]t|not)?"
    r"|\s+(?:won['\u2019]t|never)|'ll|'d|\u2019ll|\u2019d)?"
    r"(?:\s+(?:also|just|always|definitely|totally|really|gladly|happily))?"
)
# "I can help you", "I'll let you know", "I won't let you down": the speaker acts on the listener.
_SPEAKER_ACTS = re.compile(
    rf"(?i){_SPEAKER_SUBJECT}\s+\w+\s+$"
    # "I'll do my best to make you proud", "I wanted to let you know": the speaker's aim
    r"|\b(?:i|we)\b[^.!?,;:]{0,40}\bto\s+\w+\s+$"
)

# "any help you can give", "the tips you could share": a noun before "you", not a verb of effect.
_DETERMINED = re.compile(
    r"(?i)\b(?:any|the|all|some|much|my|our|his|her|their)\s+(?:other\s+|more\s+)?"
    r"(?:help|tips?|advice|ideas?|support|time|feedback|info|information|insights?|thoughts?|suggestions?"
    r"|recommendations?)\s+$"
)
# "I was wondering if you could …", "I'm hoping you can …": the speaker asks the listener.
_FAVOUR_FRAME = re.compile(
    r"(?i)\b(?:wonder(?:s|ed|ing)?|curious)\s+(?:if|whether)\s+$|\bhop(?:e|es|ed|ing)\s+(?:that\s+)?$"
)
# "you can help me", "you could show us": a "you" that does something for the speaker is the listener.
_ACTS_FOR_SPEAKER = re.compile(
    r"(?i)\s+(?:can|could|would|will|might)\s+(?:please\s+|maybe\s+|also\s+|possibly\s+)?[a-z]+\s+(?:me|us)\b"
)
# "you must have been tired": what the speaker infers of the listener's past.
_INFERRED_OF_LISTENER = re.compile(r"(?i)^\s+must(?:\s+have|['\u2019]ve)\b")
# "I'd appreciate it if you could …", "it would be great if you can …": a favour asked of the listener.
_ASKS_A_FAVOUR = re.compile(
    r"(?i)\b(?:appreciate\s+it|be\s+(?:great|grateful|helpful|nice|awesome|amazing)|love\s+it|thankful)\s+if\s+$"
)


# "I haven't talked to you", "I'm here for you", "I'm so proud of you", "we miss you": the
# speaker's clause, a few words on, does something to or for the listener.
_SPEAKER_TO_LISTENER = re.compile(
    r"(?i)\b(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll)(?:\s+(?!(?:if|when|whenever|once|unless|make|makes|help"
    r"|helps|let|lets)\b)[\w'\u2019]+){0,3}\s+(?:to|for|with|about|of|from|miss|missed|thank|thanked|owe|tell|told"
    r"|ask|asked|remind|invite|invited|admire|envy|trust|believe|congratulate)\s+$"
)
# "(I) wanted to let you know", "just so you know": telling the listener, never anyone.
_TELLING_BEFORE = re.compile(r"(?i)\b(?:to\s+let|just\s+so)\s+$")
_KNOW_AFTER = re.compile(r"(?i)^\s+know\b")
# "If you need a hand, let me know", "whenever you want to talk, I'm around": an offer the speaker
# makes the listener (the speaker is in the sentence); "if you want strong roots, you water less"
# is no offer.
_OFFER_BEFORE = re.compile(r"(?i)\b(?:if|whenever|when|in\s+case)\s+$")
_OFFER_AFTER = re.compile(
    r"(?i)^\s+(?:ever\s+)?(?:need|want|wanna|feel\s+like|have\s+any|['\u2019]d\s+like|would\s+like)\b"
)
_SPEAKER = re.compile(r"(?i)\b(?:i|i'm|i'll|i'd|i've|me|my|we|we're|we'll|us)\b")


def _an_offer(before: str, after: str) -> bool:
    offered = _OFFER_BEFORE.search(before) and _OFFER_AFTER.match(after)
    return bool(offered and (_SPEAKER.search(before) or _SPEAKER.search(after)))


# "Tell me how you like it", "be sure to send us a photo when you get there", "let me know when
# you land": asked of the listener.
_ASKED_OF_THE_LISTENER = re.compile(
    r"(?i)\b(?:(?:tell|show|send|give|text|call|ping)\s+(?:me|us)|(?:let\s+(?:me|us)|lemme)\s+know)\b"
)
# "I'll send you the photos when you get back", "I'll show you the studio when you visit": the
# speaker gives or does something to the listener, whose "you" it is throughout.
_SPEAKER_GIVES = re.compile(
    rf"(?i){_SPEAKER_SUBJECT}\s+(?:send|show|give|bring|buy|get|make|teach|lend|pay|call|text|email|ping|join|meet"
    r"|visit|owe|cook|bake|save|grab|pick|drive|take|introduce|help|hug|tell)\s+$"
)
# "I remember when you started", "do you remember when you won": the listener's own past.
_REMEMBERED = re.compile(r"(?i)\bremember(?:s|ed)?\s+(?:when|how)\s+$")


# The verb right after "you", past an adverb: "you found", "you really went"; the word after it.
_VERB_AFTER_YOU = re.compile(
    r"(?i)^\s+(?:(?:just|finally|really|already|actually|totally|even|also)\s+)?([a-z']+)(\s+to\b)?(?:\s+([a-z']+))?"
)
# After a regular past, what shows it is the verb of "you" and not a word describing "you" ("keeps
# you motivated", "got you excited about it"): its object or a time.
_AFTER_ITS_PAST = frozenset(
    """the a an my your his her our their its this that these those some such so it them him me us
    there here home back up out off yesterday today last every""".split()
)


# A condition that makes even a past anyone's: "if you tried it", "once you got the hang of it".
_CONDITIONS = r"if|unless|once|until|whenever|as\s+long\s+as"
_CONDITION_BEFORE = re.compile(rf"(?i)\b(?:{_CONDITIONS})\s+$")


def _did_or_was(before: str, after: str) -> bool:
    """ "Cool you found a class", "you were amazing", "how did it feel when you won?": what the
    listener did or was, once; anyone's "you" is a habit or an ability. Not after a condition ("if
    you tried it") nor before "to" ("you had to be there", "you used to")."""
    verb = _VERB_AFTER_YOU.match(after)
    if verb is None or verb.group(2) or _CONDITION_BEFORE.search(before):
        return False
    word = verb.group(1).lower()
    if is_regular_past(word):
        return (verb.group(3) or "").lower() in _AFTER_ITS_PAST
    return is_plain_past(word)


# A question is put to the listener: "Do you have friends you can call?", "Does running make you
# tired?", "What keeps you going?" (and its "you" is theirs throughout: "… when you hear it?"),
# unless the "you" follows a condition or a time ("Then once you get the knack, it's easy, right?").
_CONDITION_OR_TIME_BEFORE = re.compile(rf"(?i)\b(?:{_CONDITIONS}|when|before|after)\s+$")


# "It's a long climb, you know?": a filler tagged on, not a question put to anyone.
_TAG_BEFORE = re.compile(r",\s*$")
_TAG_AFTER = re.compile(r"(?i)\s+(?:know|see|feel\s+me)\b")


def _a_question_put_to_them(before: str, after: str) -> bool:
    return (
        after.rstrip().endswith("?")
        and not _CONDITION_OR_TIME_BEFORE.search(before)
        and not (_TAG_BEFORE.search(before) and _TAG_AFTER.match(after))
    )


# "Bet you can't wait", "if you and the pups could come": a wish or a party no one in general has.
_LISTENERS_OWN = re.compile(
    r"(?i)^\s+(?:(?:can['\u2019]?t|cannot)\s+wait\b|and\s+(?:the|your|my|our|his|her|their|i|me)\b)"
)


def is_plainly_the_listener(before: str, after: str) -> bool:
    """Whether the words around this "you" say it is the listener: a favour asked of them, what
    they give, what the speaker does to, for or gives them, what they did once, a question put to
    them, an offer made them."""
    return bool(
        _DETERMINED.search(before)
        or _FAVOUR_FRAME.search(before)
        or _ACTS_FOR_SPEAKER.match(after)
        or _INFERRED_OF_LISTENER.match(after)
        or _SPEAKER_TO_LISTENER.search(before)
        or _REMEMBERED.search(before)
        or _ASKED_OF_THE_LISTENER.search(before)
        or _SPEAKER_GIVES.search(before)
        or _did_or_was(before, after)
        or _LISTENERS_OWN.match(after)
        or _a_question_put_to_them(before, after)
        or _an_offer(before, after)
        or (_TELLING_BEFORE.search(before) and _KNOW_AFTER.match(after))
    )


def generic_in_sentence(yous: Iterable[tuple[str, str]]) -> bool:
    """Whether the "you" of one sentence (each as the words before and after it) mean anyone: one
    of them does and none is plainly the listener ("I hope you find a flat soon so you can settle
    in" speaks of the listener throughout)."""
    readings = list(yous)
    return not any(is_plainly_the_listener(b, a) for b, a in readings) and any(_anyone(b, a) for b, a in readings)


def is_generic_you(before: str, after: str) -> bool:
    """Whether the "you" between `before` and `after` (the words of its sentence, in the
    speaker's own person) means anyone rather than the listener."""
    return not is_plainly_the_listener(before, after) and _anyone(before, after)


# A sentence whose subject is an activity holding the "you", judged by what follows: "Having
# people who support you is so important", "Doing something you love can be exhausting". Not a
# thing ("Something you said is true", "Everything you cooked was great"), nor an activity done
# to or with the listener ("Seeing you there was great", "Talking to you is always fun").
_ACTIVITY_SUBJECT = re.compile(r"(?i)^\s*(?!\w*thing\b|during\b|morning\b|evening\b)[a-z]{2,}ing\b[^,;:!?]*$")
_WITH_THE_LISTENER = re.compile(r"(?i)^\s*[a-z]+ing\s+(?:(?:to|with|for|about|from|at|on|by|beside|near)\s+)?$")
_JUDGED_AFTER = re.compile(r"(?i)^[^,;:!?]*?\b(?:is|are|was|were|can\s+be|could\s+be|must\s+be)\b")


def _anyone(before: str, after: str) -> bool:
    """The words around the "you" make it anyone's, once it is not plainly the listener."""
    if _GENERIC_BEFORE.search(before):
        return not (_SPEAKER_ACTS.search(before) or _ASKS_A_FAVOUR.search(before))
    if _ACTIVITY_SUBJECT.match(before) and not _WITH_THE_LISTENER.match(before) and _JUDGED_AFTER.match(after):
        return True
    return bool(_GENERIC_AFTER.match(after))
