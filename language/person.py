"""Who the user is, and first-person statements rewritten about them.

A memory is read later, out of context, by an agent: "my flight is on 2026-03-10" must become
"Ava's flight is on 2026-03-10" (or "The user's ..." when no name was given). The name is only
taken from an explicit introduction ("my name is Ava", "call me Ava", "Hi, I'm Ava"), never
guessed from "I'm Italian".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from language import patterns
from language.companions import we_who_talk
from language.generic_you import generic_in_sentence
from language.patterns import compiled
from language.verb_forms import INVARIANT_FORMS, is_regular_past

_NAME_WORD = patterns.NAME_WORD
# Case-insensitive lead-ins, case-sensitive names: "I'm vegetarian" is not an introduction.
_INTRODUCTIONS = (
    re.compile(rf"\b(?i:my name is|my name's|call me)\s+(?P<name>{_NAME_WORD})\b"),
    re.compile(rf"^\s*(?i:hi|hello|hey)(?i:\s+there)?[,!.]?\s+(?i:i'm|i am|this is)\s+(?P<name>{_NAME_WORD})\b"),
)
# "I'm Craig, a developer ...", "and I'm Dana Reyes, and I run a bakery": a capitalised word (a
# surname may follow) and then an apposition that describes a person, or the speaker going on about
# themselves. Nationalities and creeds ("I'm Irish, a ...", "I'm Canadian, and I ...") are not names.
_SELF_DESCRIBED = re.compile(
    rf"(?i:i'm|i am)\s+(?P<name>{_NAME_WORD})(?:\s+{_NAME_WORD})?"
    r",\s+(?:(?i:a|an|the)\s|(?i:and|so|but)\s+(?i:i|i'm|i've|i'd|my)\b)"
)
_OPENS_A_CLAUSE = re.compile(r"(?:^|[.!?]\s+|,\s+|\b(?i:and|so|but|well|also)\s+)$")
"""What comes before a self-description: a sentence's or a clause's start ("Tell him I'm Sam" is none)."""
_DEMONYM_ENDINGS = ("ese", "ish", "ic", "i", "ian", "ean", "can")
_NOT_NAMES = frozenset(
    "French Dutch German Greek Swiss Thai Welsh Muslim Hindu Buddhist Mormon Vegan Here Back".split()
)


def _is_name(word: str) -> bool:
    return word not in _NOT_NAMES and not word.endswith(_DEMONYM_ENDINGS)


def name_as_subject(text: str, name: str | None) -> str:
    """ "I'm Craig, a developer who ..." says "I'm a developer who ...", and "I'm Ilse, and I'm
    worried about ..." says "I'm worried about ...": in a self-description (`_SELF_DESCRIBED`)
    the name is who "I" is, not a value said of it, so the third-person rewrite makes it the
    subject ("Craig is a developer ...")."""
    if name is None or name not in text:
        return text
    introduction = rf"\b(I'm|I am|I\u2019m)\s+{re.escape(name)}(?:\s+{_NAME_WORD})?,\s+"
    # the "so" of "I'm Lena, so I'd like ..." may already be gone, as a lead-in of its clause
    text = re.sub(introduction + r"(?:(?:and|so|but)\s+)?(?=I\b|I'|I\u2019|[Mm]y\b)", "", text)
    return re.sub(introduction + r"(?=(?:a|an|the)\s)", r"\1 ", text)


INTRODUCTION_CLAUSE = compiled(patterns.INTRODUCTION_CLAUSE)

# Any word in -ly is an adverb ("truly", "genuinely") but the few verbs that end so ("apply", "rely").
_LY_VERBS = r"(?:ap|re|sup|com|im|multi)ply|rely|fly|(?:al|bul|tal|ral|sul|dal)ly"
_ADVERB = (
    rf"(?:(?!(?:{_LY_VERBS})\b)\w+ly|always|never|often|sometimes|also|still|just|only"
    r"|now|even|really|already|rarely|mostly|barely|hardly|definitely|honestly|probably|actually|usually|finally"
    r"|recently|totally|kinda|sorta|def|ever|once|first|then|too|again|soon|later)"
)
_VERB = r"(?:[a-z]+n't|[a-z]+n\u2019t|[a-z]+(?:-[a-z]+)*)"  # "co-hosted", "re-read": one verb
# "I" in any case ("i went", "Im", "Ive": chat is typed fast), but never "i.e.", a list marker "i)"
# or the I of "I/O".
_I = r"(?:I|i)(?![.)\w'\u2019]|/[A-Za-z])"
# "Im"/"Ive" without the apostrophe only where a verb form follows ("Im going", "Ive been").
_IM = r"Im|im(?=\s+(?:a|an|the|so|not|going|gonna|really|just|still|in|at|on|from|\w+ing)\b)"
_IVE = r"Ive|ive(?=\s+(?:been|got|had|never|always|just|done|seen|made|\w+ed)\b)"
_INVERTED_AUX = {"do": "does", "am": "is", "have": "has", "don't": "doesn't", "haven't": "hasn't", "aren't": "isn't"}
_FIRST_PERSON = re.compile(
    # "Do I ...?", "Am I ...?", "Can I ...?": the auxiliary agrees, the verb after it stays bare.
    r"\b(?P<inv_aux>[Dd]o|[Dd]on't|[Aa]m|[Hh]ave|[Hh]aven't|[Dd]id|[Cc]an|[Cc]ould|[Ss]hould|[Ww]ould|[Ww]ill|[Ss]hall"
    r"|[Mm]ay|[Mm]ight|[Mm]ust|[Ww]as|[Ss]houldn't|[Cc]ouldn't|[Ww]ouldn't|[Cc]an't|[Ww]on't|[Dd]idn't|[Ww]asn't"
    r"|[Aa]ren't)\s+(?:I|i)\b(?!\.\w|[)'\u2019])"
    rf"|\b(?P<i_be>(?:I|i)(?:'m|\u2019m| am)|{_IM})\b"
    r"|\b(?:I|i)(?P<i_aux>'ve|'ll|'d|\u2019ve|\u2019ll|\u2019d)\b"
    rf"|\b(?P<i_ve>{_IVE})\b"
    rf"|\b{_I}\s+(?P<i_adv>(?:{_ADVERB}\s+){{1,3}})?(?P<i_verb>{_VERB})\b"
    rf"|\b(?P<i_bare>{_I})"
    r"|\b(?P<my>[Mm]y|[Mm]ine)\b|\b(?P<myself>[Mm]yself)\b|\b(?P<me>[Mm]e)\b"
    r"|\b(?P<we_be>[Ww]e(?:'re|\u2019re| are))\b"
    r"|\b[Ww]e(?P<we_aux>'ve|'ll|'d|\u2019ve|\u2019ll|\u2019d)\b"
    r"|\b(?P<we>[Ww]e)\b(?:\s+(?P<we_verb>wanna|gonna|gotta|dont)\b)?"
    r"|\b(?P<our>[Oo]urs?)\b|\b(?P<us>[Uu]s|[Oo]urselves)\b"
)
_AUXILIARIES = {"'ve": "has", "'ll": "will", "'d": "would"}
_PLURAL_AUXILIARIES = {"'ve": "have", "'ll": "will", "'d": "would"}
# Past participles that are not also a bare verb: after one, "'d" is "had" ("I'd been", "I'd
# already left"). A form that is both ("read", "put", "come") keeps "would", the commoner reading.
_PARTICIPLES = frozenset(
    """
been gone done seen had got gotten made known taken given begun broken chosen driven eaten fallen
forgotten forgiven found heard left lost met paid said sent spent thought told understood won
written bought brought caught felt kept taught fought held built learnt sold slept stood grown
flown drawn shown thrown worn torn sworn woken spoken stolen frozen hidden ridden risen shaken
better
""".split()
)
_AFTER_D = re.compile(rf"\s+(?:{_ADVERB}\s+){{0,3}}(?P<word>[a-z]+)\b")


def _contracted_aux(contraction: str, statement: str, end: int, *, plural: bool = False) -> str:
    """What "'ve", "'ll" or "'d" stands for: "'d" before a past participle is "had" ("I'd been",
    "you'd already left", "I'd better"), else "would" ("I'd love", "I'd go")."""
    contraction = contraction.replace("\u2019", "'")
    if contraction == "'d":
        after = _AFTER_D.match(statement, end)
        if after and (after.group("word") in _PARTICIPLES or is_regular_past(after.group("word"))):
            return "had"
    return (_PLURAL_AUXILIARIES if plural else _AUXILIARIES)[contraction]


_IRREGULAR = {
    "have": "has",
    "do": "does",
    "don't": "doesn't",
    "dont": "doesn't",
    "haven't": "hasn't",
    "havent": "hasn't",
    "go": "goes",
    "be": "is",
    "am": "is",
    "are": "is",
    "aren't": "isn't",
    "wanna": "wants to",
    "gonna": "is going to",
    "gotta": "has to",
    "cant": "can't",
    "wont": "won't",
    "didnt": "didn't",
    "couldnt": "couldn't",
    "wouldnt": "wouldn't",
    "shouldnt": "shouldn't",
    "wasnt": "wasn't",
}


def detect_user_name(user_texts: Iterable[str]) -> str | None:
    """The name the user most recently introduced themselves with, if any."""
    name: str | None = None
    for text in user_texts:
        for pattern in _INTRODUCTIONS:
            for match in pattern.finditer(text):
                name = match.group("name").capitalize()
        for match in _SELF_DESCRIBED.finditer(text):
            opens = _OPENS_A_CLAUSE.search(text, max(0, match.start() - 8), match.start())
            if opens and _is_name(match.group("name")):
                name = match.group("name")
    return name


def third_person_verb(verb: str) -> str:
    head, hyphen, last = verb.rpartition("-")
    if hyphen:
        return f"{head}-{third_person_verb(last)}"  # "co-host" -> "co-hosts", "co-hosted" stays
    lower = verb.lower().replace("\u2019", "'")
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower in INVARIANT_FORMS or lower.endswith("n't") or is_regular_past(lower):
        return verb
    return _with_s(verb)


def _with_s(verb: str) -> str:
    """A regular verb's third person singular: "tries", "fixes", "reads"."""
    lower = verb.lower()
    if lower.endswith("y") and len(lower) > 2 and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    return verb + "s"


def plural_verb(verb: str) -> str:
    """The verb after a plural subject ("Ava and Sam"): "we wanna" -> "want to", else as said."""
    lower = verb.lower().replace("\u2019", "'")
    return {"wanna": "want to", "gonna": "are going to", "gotta": "have to", "dont": "don't"}.get(lower, verb)


PERSONAL_WORD = re.compile(r"\b(?:i|i'm|i've|we|we're|my|our|he|she|they|his|her|their)\b", re.IGNORECASE)
"""A word that names a person (the speaker, a third person): "I moved to Oslo" is about someone."""
_SECOND_PERSON = re.compile(
    r"\b(?P<you_be>[Yy]ou(?:'re|\u2019re| are))\b|\b(?P<you_were>[Yy]ou were)\b"
    r"|\b[Yy]ou(?P<you_aux>'ve|'ll|'d|\u2019ve|\u2019ll|\u2019d)\b"
    r"|(?<![Dd]o )(?<![Dd]id )(?<![Ww]ould )(?<![Cc]ould )(?<![Ss]hould )(?<![Ww]ill )(?<![Cc]an )"
    r"\b(?P<you_have>[Yy]ou have)\b(?!\s+to\b)"
    r"|\b(?P<your>[Yy]our)\b|\b(?P<yours>[Yy]ours)\b|\b(?P<yourself>[Yy]ourself)\b"
    rf"|\b(?P<you>[Yy]ou)\b(?:\s+(?P<you_adv>(?:{_ADVERB}\s+){{1,3}})?(?P<you_verb>[a-z]*n['\u2019]t|{_VERB})\b)?"
)
_JUDGED_YOU = ("you", "you_were")
"""The forms of "you" whose reading `generic_you` judges: a bare "you" and a past one ("you were
there" is the listener's). "you're", "you've", "you'd" are not judged: in chat they are the
listener's even after "if" ("a good game if you're into co-op", "I can share it if you'd like")."""
# Words after "you" that are not its verb ("you guys", "you two", "you and Sam").
_NOT_VERBS = frozenset({"guys", "all", "two", "both", "and", "or", "too", "alone", "there", "here", "in", "on", "at"})
_SEVERAL = ("guys", "two", "both")
"""After "you", the listeners, not the one listener ("you all" too, unless "all" is of what follows)."""


# "your" in what a work or a lesson is about, after a verb in -ing: anyone's ("a story about
# sisterhood and reaching for your dreams", "the book is all about finding your voice"), not the
# listener's ("thanks for sharing your story", "the story about your trip").
_ABOUT_ANYONE = re.compile(
    r"(?i)\b(?:story|stories|book|film|movie|song|show|series|novel|poem|lesson|message|theme|talk|podcast"
    r"|article|quote|saying|importance|art)\b(?:\s+(?:is|was|are|'s))?(?:\s+(?:all|really|mostly|basically))?"
    r"\s+(?:about|of)\s+[^.!?;]{0,80}?\b[a-z]+ing\s+(?:[a-z'-]+\s+){0,2}$"
)


_AUX_YOU = re.compile(
    r"(?:\b([Aa]re|[Ww]ere|[Dd]o|[Hh]ave|[Aa]ren't|[Ww]eren't|[Dd]on't|[Hh]aven't)"
    r"|\b([Hh]ow|[Ww]hat|[Ww]here|[Ww]hy|[Ww]ho|[Ww]hen)['\u2019]re)\s+you\b"
)
_SINGULAR_AUX = {"are": "is", "were": "was", "do": "does", "have": "has", "aren't": "isn't", "weren't": "wasn't"}
_SINGULAR_AUX.update({"don't": "doesn't", "haven't": "hasn't"})


def _agreed_aux(aux: str) -> str:
    """ "Are you ...?" asked of one person named: "Is Bo ...?"."""
    agreed = _SINGULAR_AUX[aux.lower()]
    return agreed[:1].upper() + agreed[1:] if aux[:1].isupper() else agreed


# "glad to have you here", "it would do you good": "have"/"do" is the verb and "you" its object,
# not a question's auxiliary before its subject.
_VERB_NOT_AUX = re.compile(r"(?i)\b(?:to|can|could|will|would|should|shall|must|might|may|'d|\u2019d|'ll|\u2019ll)\s+$")
_SEVERAL_AFTER = re.compile(rf"\s+(?:{'|'.join(_SEVERAL)})\b", re.I)


def _asked_of(match: re.Match[str], other: str) -> str:
    """An auxiliary before "you" agrees with the one listener named ("Are you free?" -> "Is Bo
    free?"), unless it is a verb with "you" as its object or "you" are several ("are you guys")."""
    statement = match.string
    if _VERB_NOT_AUX.search(statement, 0, match.start()) or _SEVERAL_AFTER.match(statement, match.end()):
        return match.group(0)
    if match.group(2):
        return f"{match.group(2)} is {other}"  # "How're you doing?" -> "How is Bo doing?"
    return f"{_agreed_aux(match.group(1))} {other}"


# "you" is a subject where a clause starts: the text's start, after punctuation or a conjunction.
_SUBJECT_SLOT = re.compile(
    r"(?:^|[,;:.!?\-\u2013\u2014(\"]\s*|\b(?:and|but|so|because|if|when|that|since|as|or|then|while"
    # a clause of its own: "wherever you go", "how you feel"; a "that" left out after hoping,
    # guessing or making sure: "I hope you get it", "make sure you don't quit" (not after "know"
    # or "trust", whose "you" is as often their object: "people who know you well")
    r"|wherever|whenever|how|where|why|once|until|unless|though|although|whether"
    r"|hope|hopes|hoped|hoping|bet|guess|sure|ensure|glad|think|thought|said|says|saying)\s+)$",
    re.I,
)
_AUX_BEFORE = re.compile(
    r"(?i)\b(?:are|were|do|does|did|can|could|will|would|should|shall|have|had|may|might|must"
    r"|(?:aren|don|didn|can|won|haven|wouldn|couldn|shouldn)['\u2019]t)\s+$"
)


def _subject_verb(statement: str, match: re.Match[str]) -> str | None:
    """The verb after a "you" that is its subject: not after an auxiliary ("Did you go?": the
    auxiliary agrees), not an object ("sending you the recipe"), not "you guys"."""
    verb = match.group("you_verb")
    before = statement[: match.start()]
    if verb is None or verb in _NOT_VERBS or _AUX_BEFORE.search(before) or _is_participle(verb):
        return None
    if _SUBJECT_SLOT.search(before):
        return verb
    # "the details you need", "anything else you think", "how you use it": a clause inside, its
    # subject "you" before a verb of thinking or wanting; not "let you know", "makes you feel".
    if _MAKES_BEFORE.search(before):
        return None
    if verb in _INNER_CLAUSE_VERBS:
        return verb
    # "the people you work with", "the songs you play": a clause opening inside a noun phrase.
    return verb if verb in _JOINED_VERBS and _NOUN_PHRASE_BEFORE.search(before) else None


_NOUN_PHRASE_BEFORE = re.compile(
    r"(?i)\b(?:(?:the|a|an|any|every|all|those|these|some|my|your|his|her|our|their)\s+(?:[a-z'-]+\s+){0,2}[a-z'-]+"
    r"|something|anything|everything|nothing|someone|anyone|everyone|somewhere|anywhere|whatever)\s+$"
)


_BET_ON = re.compile(r"\s+(?:on\b|against\b|\$|\d|everything\b|it all\b)", re.I)
"""After "I bet", what a wager names (it may be past: "I bet on the wrong horse")."""

_VERBS_ENDING_IN_ING = frozenset("bring cling fling ring sing sling spring sting string swing wring".split())


def _is_participle(word: str) -> bool:
    """ "how you doing": a participle whose "are" was left out, no verb of "you" to agree."""
    return word.endswith("ing") and word not in _VERBS_ENDING_IN_ING


_INNER_CLAUSE_VERBS = frozenset(
    "want need think mean prefer like love know use do don't care deserve matter belong".split()
)
_MAKES_BEFORE = re.compile(
    r"(?i)\b(?:let|lets|make|makes|made|making|help|helps|helped|helping|have|has|had|see|saw|watch|hear|heard"
    r"|bid|want|wanted|need|needed|would|'d|\u2019d|to|for|than|thank|thanks)\s+$"
)


_ALL_OF = re.compile(r"\s+(?:the|of|this|that|these|those|my|your|our|his|her|their)\b", re.IGNORECASE)


def _several(statement: str, match: re.Match[str]) -> bool:
    """ "you guys", "you two", "you both", "you all" (not "wishing you all the best"): the
    listeners, not the one listener the chat's "you" is."""
    word = match.group("you_verb")
    if word in _SEVERAL:
        return True
    return word == "all" and not _ALL_OF.match(statement, match.end())


_COUNTED_YOU = re.compile(r"(?i)\b(?:all|both|each|some|none|any|either|neither)\s+of\s+$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\ue000\"'\u201c])")


def _second_person(statement: str, other: str, generic_you: bool = True) -> str:
    """In a two-person chat, "you" is the other person, unless it is anyone ("if you ...": then
    every "you" and "your" of the sentence is anyone's, "you always need to keep your ego small").
    Each sentence is read on its own (`generic_you.generic_in_sentence`): "I get how you feel. It's
    hard when you doubt yourself." Carrying a generic reading into a sentence that does not say
    was tried: on LoCoMo it made more listeners anyone's ("That photo of you") than it mended."""
    if not generic_you:
        return _to_listener(statement, other)
    if not _SECOND_PERSON.search(statement):
        return statement
    cuts = [0, *(m.end() for m in _SENTENCE_END.finditer(statement)), len(statement)]
    rewritten: list[str] = []
    for start, end in zip(cuts, cuts[1:], strict=False):
        sentence = statement[start:end]
        yous = [m.start() for m in _SECOND_PERSON.finditer(sentence) if any(m.group(g) for g in _JUDGED_YOU)]
        anyone = generic_in_sentence((sentence[:start], sentence[start + 3 :]) for start in yous)
        rewritten.append(sentence if anyone else _to_listener(sentence, other))
    return "".join(rewritten)


def _to_listener(statement: str, other: str) -> str:
    """Every "you" and "your" of `statement` as the listener, `other`."""
    statement = _AUX_YOU.sub(lambda m: _asked_of(m, other), statement)
    statement = _joined_verbs_agree(
        statement,
        ((m.end(), verb) for m in _SECOND_PERSON.finditer(statement) if (verb := _subject_verb(statement, m))),
    )

    def replace(match: re.Match[str]) -> str:
        if match.group("you_be"):
            return f"{other} is"
        if match.group("you_were"):
            return f"{other} was"
        if match.group("you_have"):
            return f"{other} has"
        if match.group("you_aux"):
            return f"{other} {_contracted_aux(match.group('you_aux'), statement, match.end())}"
        if match.group("your") and _ABOUT_ANYONE.search(statement, 0, match.start()):
            return match.group(0)
        if match.group("your") or match.group("yours"):
            return f"{other}'s"
        if match.group("yourself"):
            return "themself"
        if _COUNTED_YOU.search(statement, 0, match.start()):
            return match.group(0)  # "all of you care": several people, not the one listener
        if _several(statement, match):
            return f"{other} and others"  # "you guys", "you two": the listener and theirs, as "we" is
        verb = _subject_verb(statement, match)
        if verb is None:
            return other + match.group(0)[len(match.group("you")) :]
        return f"{other} {match.group('you_adv') or ''}{third_person_verb(verb)}"

    return _SECOND_PERSON.sub(replace, statement)


# "My husband and I are", "Sam and I were": a short noun phrase opening its clause, then "and I".
# Not "..., and I want" (two clauses) nor "I love dogs and I walk them".
_GONNA = re.compile(r"(?i)(\b(?:am|is|are|was|were)|['\u2019](?:m|re|s))\s+gonna\b")
_JOINT_SUBJECT = re.compile(
    r"(?:^|[,;:.!?]\s+|\b(?:but|so|because|when|while|since|that|then|if)\s+)"
    r"(?:(?:my|our|his|her|the)\s+)?[\w'\u2019-]+(?:\s+[A-Z][\w'-]+)?\s+(?:and|&)\s+$",
    re.IGNORECASE,
)


# A verb joined by "and" to the first verb of "I" (or of the listener's "you") shares its subject and
# agrees with it: "I watch tutorials and keep up with forums" -> "Noor watches tutorials and keeps up
# with forums". Only common verbs, only with a complement after them ("I love music and dance." may
# join two nouns), and only when nothing between the two could be a verb or an infinitive of its
# own ("I help kids read and write", "I want to rest and eat": the second goes with the word between).
_JOINED_VERB = re.compile(rf"\s*,?\s+and\s+(?:{_ADVERB}\s+)?(?P<verb>[a-z]+)(?=\s+[\w$'\u2019\ue000])")
_CLAUSE_END = re.compile(r"[.;:!?()\u2013\u2014]|,\s*(?:but|so|because|which|while|though)\b|\s+(?:but|so|because)\s")
_NOT_BETWEEN = frozenset(
    "to and or not never can could will would should must may might i i'm i'll i've i'd you we he she they it".split()
)
"""Between the two verbs: an infinitive or a modal the second may belong to, or another subject
("Once I find someone, I'll negotiate and get …")."""
_OBJECT_OPENERS = frozenset(
    """
the a an my your his her our their its this that these those some any every each all more much many
it them him me us everything something nothing anything one two three
up out on off in at to with for about into around over down back away through by from
how what why when where who whether if
""".split()
)
"""What a second verb's complement opens with; a bare singular noun ("I love the self-acceptance and
love theme") more often ends a noun joined by "and" than a verb's object."""
_JOINED_VERBS = frozenset(
    """
attend bake believe bring build buy call care carry catch chat check clean climb coach cook create
drink drive eat encourage enjoy explore feel find fix follow forget get give go grow handle hate help
hike hold hope host join keep knit know lead learn leave like listen live look love make manage meet
mentor miss move need organise organize paint pay pick plan play post practice practise pray prefer
put raise read remember ride run save see sell send share sing sketch sleep spend stand start stay
stop study support swim take talk teach tell think train travel try use visit volunteer walk want
wash watch wear work write
""".split()
)
"""Verbs common enough in chat to be read as a second verb after "and" (others are left as said)."""
_TAKE_GERUNDS = frozenset("love like enjoy hate prefer miss start stop keep try".split())


def _joined_verbs_agree(statement: str, subject_verbs: Iterable[tuple[int, str]]) -> str:
    """`statement` with the verbs joined by "and" to each of `subject_verbs` (where a verb the
    rewrite will make agree ends, and the verb) in agreement too (above)."""
    edits: list[tuple[int, int, str]] = []
    for end, verb in subject_verbs:
        if third_person_verb(verb) == verb:
            continue
        stop = _CLAUSE_END.search(statement, end)
        joined = _JOINED_VERB.search(statement, end, stop.start() if stop else len(statement))
        if joined is None or joined.group("verb") not in _JOINED_VERBS:
            continue
        following = statement[joined.end("verb") :].split(maxsplit=1)[0].lower().strip(",.;:!?")
        takes_gerund = joined.group("verb") in _TAKE_GERUNDS and following.endswith("ing")  # "and love making …"
        if (
            following not in _OBJECT_OPENERS
            and not takes_gerund
            and not (following.endswith("s") and not following.endswith("ss"))
        ):
            continue
        between = {w.lower() for w in re.findall(r"[A-Za-z']+", statement[end : joined.start()])}
        if between & (_JOINED_VERBS | _NOT_BETWEEN):
            continue
        if verb == "am" and any(w == "to" or w.endswith("ing") for w in between):
            continue  # "I'm going to the shop and buy milk": joined to the verb after "to"
        # Joined to a present verb, a bare form is present too: "and read" -> "reads", not a past.
        second = joined.group("verb")
        edits.append((joined.start("verb"), joined.end("verb"), _IRREGULAR.get(second) or _with_s(second)))
    for start, end, agreed in reversed(edits):
        statement = f"{statement[:start]}{agreed}{statement[end:]}"
    return statement


# A quotation is words as said: a title ("Tell Me Your Secrets"), a sign, a line someone spoke.
# Double or curly quotes; single quotes only around words (an apostrophe inside a word is not one).
_QUOTATION = re.compile(
    r'"[^"\n]{1,120}"|\u201c[^\u201d\n]{1,120}\u201d'
    r"|(?<![\w'\u2019])'[^'\n]{1,80}'(?![\w'\u2019])"
)
_QUOTE_MARK = re.compile("\ue000(\\d+)\ue001")


def _set_quotes_aside(statement: str) -> tuple[str, list[str]]:
    """The statement with each quotation replaced by a placeholder no rule reads, and the quotations."""
    quotes: list[str] = []

    def mark(match: re.Match[str]) -> str:
        quotes.append(match.group(0))
        return f"\ue000{len(quotes) - 1}\ue001"

    return _QUOTATION.sub(mark, statement), quotes


def _put_quotes_back(statement: str, quotes: list[str]) -> str:
    return _QUOTE_MARK.sub(lambda m: quotes[int(m.group(1))], statement) if quotes else statement


# "all of us", "both of us", "us all", "we both": the group counted, which its name already says
# ("an inspiration to Ava and others", not "to Ava and others all").
_COUNTED_WE = re.compile(r"\b(?:(?:[Aa]ll|[Bb]oth|[Ee]ach)\s+of\s+(?P<us>us)|(?P<we>[Ww]e|us)\s+(?:all|both))\b")

_OPENING_THE = re.compile(r"([.!?]\s+)the(?= user\b)")
"""A sentence that opens on the speaker rewritten ("... makes sense. I'll ask" -> "The user will ask")."""


def to_third_person(
    statement: str,
    name: str | None,
    *,
    other: str | None = None,
    we: str | None = None,
    ours: str | None = None,
    generic_you: bool = True,
) -> str:
    """Rewrite first-person references ("I", "my", "we", "our") about the speaker.

    `other` is whom "you" means (the other person of a two-person chat, or the listener whoever
    they are), and the "we" who talk are the speaker and them; with `generic_you` a
    "you" that means anyone ("if you", "you can") stays. `we` is who "we" are
    (`language.companions`: "Ava and Sam", "Ava's team"); unknown, "we" is the speaker and others
    and "our" the speaker's. `ours` is whose "our" is when it is not the group's ("Craig's": an
    assistant's "our schema" is the user's)."""
    subject = name or "the user"
    possessive = f"{subject}'s"
    group = we or f"{subject} and others"
    group_possessive = ours or ((f"{group}'" if group.endswith("s") else f"{group}'s") if we else possessive)
    statement, quotes = _set_quotes_aside(statement)
    if other:
        statement = _second_person(statement, other, generic_you)
        statement = we_who_talk(statement, subject, other)  # "since we last talked": the two talking

    def replace(match: re.Match[str]) -> str:
        if match.group("inv_aux"):
            aux = match.group("inv_aux")
            agreed = _INVERTED_AUX.get(aux.lower(), aux.lower())
            return f"{agreed[:1].upper() + agreed[1:] if aux[:1].isupper() else agreed} {subject}"
        if match.group("i_be"):
            return f"{subject} is"
        if match.group("i_aux"):
            return f"{subject} {_contracted_aux(match.group('i_aux'), statement, match.end())}"
        if match.group("i_ve"):
            return f"{subject} has"
        if match.group("i_verb"):
            verb = match.group("i_verb")
            if _JOINT_SUBJECT.search(statement[: match.start()]):  # "Sam and I are": the verb stays plural
                return f"{subject} {match.group('i_adv') or ''}{plural_verb(verb)}"
            if verb.lower() == "bet" and not _BET_ON.match(statement, match.end()):
                return f"{subject} {match.group('i_adv') or ''}bets"  # "I bet they love it": a guess, now
            return f"{subject} {match.group('i_adv') or ''}{third_person_verb(verb)}"
        if match.group("i_bare"):
            return subject
        if match.group("my"):
            return possessive
        if match.group("me"):
            return subject
        if match.group("myself"):
            return "themself"  # "I taught myself": the name twice ("Jo taught Jo") misreads
        if match.group("we_be"):
            return f"{group} are"
        if match.group("we_aux"):
            return f"{group} {_contracted_aux(match.group('we_aux'), statement, match.end(), plural=True)}"
        if match.group("we"):
            return f"{group} {plural_verb(match.group('we_verb'))}" if match.group("we_verb") else group
        if match.group("our"):
            following = statement[match.end() :].split(maxsplit=1)[:1]
            if we and following and following[0].strip(",.;:!?").lower() == group.split()[-1].lower():
                return possessive  # "our team standup": the team's own, not "Ava's team's team standup"
            return group_possessive
        if match.group("us"):
            return group
        raise AssertionError(f"unhandled first-person form {match.group(0)!r}")

    statement = _GONNA.sub(r"\1 going to", statement)
    statement = _COUNTED_WE.sub(lambda m: m.group("us") or m.group("we"), statement)
    statement = _joined_verbs_agree(
        statement,
        (
            (m.end(), m.group("i_verb") or "am")  # "I'm into cars and love …": "loves"
            for m in _FIRST_PERSON.finditer(statement)
            if (m.group("i_verb") or m.group("i_be")) and not _JOINT_SUBJECT.search(statement[: m.start()])
        ),
    )
    rewritten = _OPENING_THE.sub(lambda m: f"{m.group(1)}The", _FIRST_PERSON.sub(replace, statement))
    for named in (subject, other) if other else (subject,):
        rewritten = _not_twice(rewritten, named)
    rewritten = _put_quotes_back(rewritten, quotes)
    return rewritten[:1].upper() + rewritten[1:]


_PREPOSITION = re.compile(r"(?i)\b(?:for|to|with|about|like|as|from)\s+$")


def _not_twice(statement: str, name: str) -> str:
    """ "reminding me I'm not alone" is "reminding Maria that Maria is not alone" and "For me, I
    just …" without its comma is "For Nate, Nate just …": a name is never written twice in a row."""
    if f"{name} {name}" not in statement:  # the common case, on every statement: no pattern built
        return statement

    def split(match: re.Match[str]) -> str:
        if _PREPOSITION.search(statement, 0, match.start()):
            return f"{name}, "
        return f"{name} that "

    return re.sub(rf"\b{re.escape(name)} (?={re.escape(name)}\b)", split, statement)
