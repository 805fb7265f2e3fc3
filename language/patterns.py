"""The regexes that read a user's message, in one place.

Three readers share them: the offline engine's clause classifier (Python `re`, one clause at a
time), the gather pass and the stream worker's signal extraction (polars, whose regexes are Rust's
`regex` crate, over whole columns).
So every pattern here is written in the subset both dialects accept: no look-around, no
backreferences, flags inline (`(?i)`) rather than as `re` flags. Each constant is the pattern's
source; `compiled()` gives the Python form. Splitting into clauses needs look-around in Python,
so the clause comma comes in two forms built from one word list (`CLAUSE_COMMA_WORDS`): one that
captures the next word (polars) and one that looks ahead at it (Python only). Each cue's word
lists live here once and its regexes are built from them.
"""

from __future__ import annotations

import re
from functools import cache

# --- clause boundaries: a comma starts a new clause when a new subject or a question/request follows it.
CLAUSE_COMMA_WORDS: tuple[str, ...] = tuple(
    """
i i'm i've i'll i'd we we're we'll we've can could would will should please what when where why how who which do
does did is are my our so but
""".split()
)
CLAUSE_COMMA_ALTERNATION = "|".join(re.escape(word) for word in CLAUSE_COMMA_WORDS)
CLAUSE_COMMA_CAPTURING = rf"(?i),\s+((?:{CLAUSE_COMMA_ALTERNATION})\b)"
"""The comma and, captured, the word that starts the new clause (polars: replace with a line break)."""
CLAUSE_COMMA_BEFORE = rf"(?i),\s+(?=(?:{CLAUSE_COMMA_ALTERNATION})\b)"
"""The same comma in Python only (a look-ahead): split there, keeping the word."""

LEAD_INS = (
    r"(?i)^(?:(?:and|also|so|but|oh|well|btw|by the way|fyi|plus|anyway|ok|okay|hi|hello|hey)(?:\s+there)?[,!.]?\s+"
    r"|(?:please\s+)?(?:also\s+)?(?:note|remember|keep in mind|bear in mind|don't forget)(?:\s+that)?[,:]?\s+"
    r"|(?:for the record|just so you know|for your information)[,:]?\s+)"
)
SO_AS_DEGREE = r"(?i)^so\s+(?:far|long)\b"
""""So far it's fine", "so long as it's dry": "so" opens a phrase of its own, no lead-in."""
LEFT_AN_INFINITIVE = r"(?i)^to\s"
"""What a lead-in left is a deed to do ("remember to pack water" -> "to pack water"): it was no lead-in."""
GREETING = (
    r"(?i)^(?:hi|hello|hey|good (?:morning|afternoon|evening)|thanks|thank you|cheers|bye|goodbye|ok|okay|sure"
    r"|great|perfect|got it|sounds good|no worries|noted|cool|awesome|yes|no|yep|nope|nice)"
    r"(?:\s+(?:there|so much|a lot|again|you))*[\s!.,]*$"
)
QUESTION_START = (
    r"(?i)^(?:(?:what|when|where|why|how|who|which|whose)(?:'s|\s+(?:is|are|was|were|do|does|did|can|could|should"
    r"|would|will|has|have|much|many|long|about))"
    r"|(?:do|does|did|is|are|was|were|should|shall|have|has)\s+(?:you|i|we|it|there|this|that|the|my|our)\b)"
)
REQUEST_START = (
    r"(?i)^(?:please|kindly|let's|let us|help me|i need you to|i want you to|i'd like you to"
    r"|(?:can|could|would|will)\s+you)\b"
)
IMPERATIVE_VERBS = frozenset(
    """
add analyse analyze ask book bring buy calculate call cancel check compare compile compose confirm
continue convert create define delete describe design draft draw edit email estimate explain find fix
forget generate get give go help implement improve include keep list look make move open order outline
plan prepare print put read recommend remind remove rename reply reschedule reserve review rewrite run
save schedule search send set show sort start stop suggest summarise summarize switch take tell
translate try turn update upgrade write
""".split()
)
FIRST_WORD = r"^\W*(\w+)"

# Two shapes of "the answer is empty", each a property of the clause rather than one sentence:
# - generic: anyone at all could have produced it ("anybody could have written this", "any
#   intern can tell you that"): an unspecified producer, a modal, a verb of producing words, and
#   the answer itself (a pronoun) or nothing after it. "Anyone can write code" says something else.
GENERIC_ANSWER = (
    r"(?i)\b(?:anyone|anybody|everyone|everybody|any\s+\w+)\s+(?:could|can|would|might)\s+(?:have\s+)?"
    r"(?:say|said|write|written|tell|told|come\s+up\s+with|came\s+up\s+with)(?:\s+(?:you|us|me))?"
    r"(?:\s+(?:that|this|it|these|those)\b|[\s.!]*$)"
)
# - lacking: it has none of a quality a good answer has ("it has no depth", "there's no soul in
#   it", "lacks originality"). The quality noun must end the clause or be followed by a
#   preposition or conjunction, so "I have no depth perception" (a fact) is not caught.
LACKING_QUALITY = (
    r"(?i)\b(?:lacks|lacked|lacking|(?:has|have|had|there's|there\s+is|with)\s+no)\s+(?:real\s+|any\s+)?"
    r"(?:soul|depth|substance|personality|originality|nuance|spark|flair)"
    r"(?:\s+(?:to|in|and|or|but|at\s+all|whatsoever)\b|[\s.!]*$)"
)
# The words the dissatisfaction shapes are made of, kept once: the gather pass also reads them, as
# words that say "I am unhappy" rather than what about (never a complaint's theme).
BELITTLING_WORDS = ("just", "only", "merely", "still", "too", "not")
""""That's just ...", "it's still ...": what follows them is judged as falling short."""
FAILING_VERBS = ("say", "explain", "answer", "address", "help", "work", "make sense", "tell", "show")
"""What an answer "doesn't" do."""
TOO_WHAT = (
    "generic",
    "vague",
    "long",
    "short",
    "shallow",
    "abstract",
    "general",
    "complicated",
    "technical",
    "basic",
    "simple",
)
"""What an answer is "too"."""
COMPLAINT_WORDS: tuple[str, ...] = (
    *BELITTLING_WORDS,
    *TOO_WHAT,
    *FAILING_VERBS,
    *"either right useful helpful soul point missing wrong good enough again sound".split(),
)
"""Every word of a complaint that says how it falls short, not about what."""
DISSATISFACTION: tuple[str, ...] = (
    r"(?i)^(?:that|this|it|these|those)(?:'s|\u2019s|\s+is|\s+are|\s+was|\s+were)\s+"
    rf"(?:{'|'.join(BELITTLING_WORDS)})\b",
    r"(?i)^(?:it|this|that|these|those|the \w+)\s+(?:has|have|had)\s+no\b",
    r"(?i)^(?:it|this|that|they|these|those)\s+(?:doesn't|does not|didn't|did not|don't|do not)\s+"
    rf"(?:{'|'.join(FAILING_VERBS)})\b",
    r"(?i)^too\s+\w+[.!]*$",
    rf"(?i)\btoo\s+(?:{'|'.join(TOO_WHAT)})\b",
    r"(?i)\b(?:not\s+(?:helpful|useful|what i (?:asked|wanted|meant|needed))|still not (?:right|it|good)"
    r"|not quite right|missing the point|useless)\b",
    GENERIC_ANSWER,
    LACKING_QUALITY,
)
CORRECTION_MARKER = (
    r"(?i)^(?:actually|correction|to be clear|i meant|sorry,? i meant|no,)\b|\b(?:changed my mind|no longer)\b"
)
DECISION_MARKER = (
    r"(?i)\b(?:we|i)(?:'ll|\s+will|\s+are going to|'re going to|\s+have decided|'ve decided|\s+decided|\s+chose"
    r"|\s+picked|\s+agreed|\s+settled on)\b|\bdecided to\b|\bdecision is\b|\bgoing with\b|\blet's (?:go with|use)\b"
)
PREFERENCE_MARKER = (
    r"(?i)\b(?:i|we)\s+(?:\w+ly\s+|always\s+)?(?:prefer|like|love|hate|dislike|enjoy|would rather|'d rather)\b"
    r"|\bfavou?rite\b|\bi (?:always|never)\b"
)
NAME_WORD = r"[A-Z][a-z]+(?:[-'][A-Z][a-z]+)?"
INTRODUCTION_CLAUSE = rf"^(?i:my name is|my name's|call me|i'm|i am)\s+(?P<name>{NAME_WORD})[.!]?$"
"""A clause that only says who the user is ("I'm Ava"); lead-ins are case-insensitive, the name is not."""
DEICTIC_START = r"(?i)^(?:it|it's|its|this|that|that's|these|those|there|here|they|no|yes)\b"
WORD = r"\w+"
MIN_STATEMENT_WORDS = 3  # "I'm vegetarian" counts as three: I, m, vegetarian

# --- value changes: "aisle, not window", "DuckDB instead of PostgreSQL", "switched from X to Y".
# Values are short phrases; the named groups mark where the offline engine reads the values.
MAX_VALUE_WORDS = 3
VALUE_WORD = r"[\w.+#'\u2019-]+"
VALUE_PHRASE = rf"{VALUE_WORD}(?:\s+{VALUE_WORD}){{0,{MAX_VALUE_WORDS + 2}}}"
CHANGE_FROM_TO = (
    rf"(?i)\b(?:switch(?:ed|ing)?|chang(?:e|ed|ing)|mov(?:e|ed|ing)|went)\s+(?:{VALUE_WORD}\s+){{0,3}}?"
    rf"from\s+(?P<old>{VALUE_PHRASE}?)\s+to\s+(?P<new>{VALUE_PHRASE})"
)
CHANGE_INSTEAD = rf"(?i)\b(?:instead\s+of|rather\s+than)\s+(?P<old>{VALUE_PHRASE})"
CHANGE_COMMA_NOT = rf"(?i),\s*(?:and\s+|but\s+)?not\s+(?P<old>{VALUE_PHRASE})"
CHANGE_NOT_BUT = (
    rf"(?i)\bnot\s+(?P<old>{VALUE_WORD}(?:\s+{VALUE_WORD})?)\s*,\s*"
    rf"(?:it'?s|it\s+is|but|rather)\s+(?P<new>{VALUE_PHRASE})"
)
CHANGE_SWITCH_TO = (
    rf"(?i)\b(?:switch(?:ed|ing)?|chang(?:e|ed|ing)|mov(?:e|ed|ing))\s+(?:{VALUE_WORD}\s+){{0,3}}?"
    rf"to\s+(?P<new>{VALUE_PHRASE})"
)
_CHANGES = (CHANGE_FROM_TO, CHANGE_INSTEAD, CHANGE_COMMA_NOT, CHANGE_NOT_BUT, CHANGE_SWITCH_TO)


def _without_groups_or_flags(pattern: str) -> str:
    return re.sub(r"\(\?P<\w+>", "(?:", pattern.removeprefix("(?i)"))


CHANGE_CUE = "(?i)" + "|".join(f"(?:{_without_groups_or_flags(p)})" for p in _CHANGES)
"""Any of the value-change shapes, without capture groups: a clause that states a change."""

# --- entities: runs of capitalised words or model codes ("Project Falcon", "PostgreSQL 16", "AX3000").
ENTITY_RUN = r"\b[A-Z][\w+-]*(?:\s+(?:[A-Z][\w+-]*|\d[\w.+-]*))*"
SENTENCE_INITIAL_ENTITY_RUN = r"(?:^|[.!?\n])\s*" + ENTITY_RUN
"""The same runs when they open a sentence: capitalised by grammar, not necessarily a name."""

# --- the stream worker's cues (`streams.extract`): one regex each over a whole turn, no clause split.
# They only decide "worth a pass": a false positive costs one pass, where the gather pass and the
# clause classifier above then read the clause with the markers and change shapes.
STREAM_CORRECTION_CUE = (
    r"(?i)^\s*(?:no|nope|actually|correction|sorry,? i meant|i meant)\b"
    r"|\b(?:not \w+ but|instead of|changed my mind|no longer|that's wrong|that is wrong|rather than)\b"
    r"|\b\w+,\s*not\s+\w+"
)
STREAM_DECISION_CUE = (
    r"(?i)\b(?:we|i)\s*(?:'ve|'ll| have| will| are going to)?\s*"
    r"(?:decided|chose|chosen|picked|settled on|go(?:ing)? with)\b"
    r"|\b(?:let's|we'll|we will|i'll|i will)\s+(?:use|switch|go with|move to|adopt)\b"
    r"|\bswitch(?:ed|ing)?\s+(?:\w+\s+){0,3}to\b"
)
STREAM_ENTITY = r"(?:[.!?]\s)?\b(?:[A-Z][a-zA-Z]{2,}|[A-Za-z]+\d+[A-Za-z\d]*|\d+[A-Za-z]+[A-Za-z\d]*)\b"
"""A capitalised word or a letters-and-digits token; the optional sentence end before it marks a
sentence-initial word for the caller to drop (no look-behind in Rust's regex)."""
STREAM_COMMON_CAPS = frozenset({"The", "This", "That", "And", "But", "For", "With", "Please", "Thanks", "Yes", "Sure"})
"""Capitalised words that are never names, even mid-sentence."""

THREAD_GAP_MINUTES = 30
"""A new thread starts with a new session, or when nobody spoke for this long."""


@cache
def compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)
