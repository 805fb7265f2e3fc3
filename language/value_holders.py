"""What a value belongs to: its *holder*, the noun phrase a count counts ("5 offers"), an amount or
a percentage is for ("the budget for books", "78% test coverage"), a day or a time schedules ("the
call with my mentor on May 3"). Two values of one attribute have one holder however differently the
sentences around them are framed (a worry, a request, a question); a similar quantity of another
thing has another ("coverage of the API module" / "coverage of the UI module").

Read from the words beside the value, no tagger: a noun run right after a count ("10 practice
problems"), a phrase after a measure or an amount ("4 hours of overtime", "$900 for the venue"),
else the noun run before it once the linking words and words of change are passed ("the deadline
was pushed back to #", "the number of mentees has grown to #").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from language.changes import MASK, Value, mask_values, says_changed
from language.dates import WEEKDAYS
from language.text_caches import text_cache
from language.tokens import MONTHS, STOPWORDS, looks_plural, stem


@dataclass(frozen=True)
class Holder:
    head: str
    """The stem of the noun the value belongs to ("budget", "interview", "call")."""
    modifiers: frozenset[str]
    """Stems of the words that say which one ("book", "monthly"; "creative", "director")."""
    phrase: str
    """The holder as said, for a reader or an embedder ("the video call with my landlord")."""


_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*|#|[,;:!?()/\u2013\u2014\"]")
"""Words, masked values and the punctuation that ends a phrase (a full stop is mostly an abbreviation's
here: "Dr. Lee"; sentences are split before)."""
_LINKS = frozenset(
    "of to at on by for from is are was were be been being has have had get gets got it it's its now currently "
    "just only about around nearly almost roughly approximately over under up down back a an the set aside away "
    "already still also even finally officially recently new newly latest current revised updated due".split()
)
"""Words between a holder and its value that say nothing of what the value is of."""
_MOVES = frozenset(
    "went came grew rose fell hit stood stands stays stayed remains spent paid put kept made won lost sold"
    " bought cost costs weighs lasts earns pays charges".split()
)
"""Verbs of a value's movement not read as words of change ("went up to #"), and verbs that give a
value to the noun before them ("the class costs #": the class's price, not a noun "costs")."""
_PREPOSITIONS = frozenset(
    "of with for in on at to from by about between during per after before toward towards".split()
)
"""Words that end a noun run; some of them join it to a phrase that qualifies it."""
_QUALIFYING = frozenset("of with for in".split())
"""Prepositions that join a qualifying phrase to a holder ("the call with my mentor", "budget for books")."""
_NOT_NOUNS = frozenset(
    """
i me you we us they them he him she her it this that these those there here what which who whom whose whether how why
user
my our your their his its and or but so if than then when while because since though although
not no never very too really just only also kinda sorta pretty quite
can could would should might must will shall may do does did don't doesn't didn't is are was were
be been am has have had get got make made need want try trying going think feel know see
went came grew rose fell hit stood last next every spent paid put kept made won lost sold bought
already now ago old long later earlier yet still
""".split()
)
_PERIODIC = frozenset("daily nightly weekly monthly yearly annually hourly quarterly biweekly".split())
"""How often, never what of: a noun run's last word only when it is not one of these ("$80 monthly
toward the club" names no holder; "the monthly allowance" is an allowance)."""
_TIME_WORDS = frozenset(MONTHS) | frozenset(WEEKDAYS) | frozenset(f"{day}s" for day in WEEKDAYS)
_ADVERB = re.compile(r"(?:ally|ively|ously|fully|ently|antly|ately|edly|arly|ectly)$")
"""Manner words ("specifically", "currently"), not "monthly", "supply" or "family"."""
_SUBJECTS = frozenset("i we you they he she".split())
"""A pronoun before a word makes it a verb ("the pupils I teach"), the verb of a relative clause
when it comes between a holder and its value ("the pupils I teach has grown to #")."""
_VERB_MARKERS = _SUBJECTS | frozenset("to can could will would should might must don't didn't".split())
"""...and so do "to" and a modal ("to manage", "can manage")."""
_PASSED_ADJECTIVES = frozenset("new more extra additional other different whole full".split())
_DETERMINERS = frozenset("the a an my our your their his her its this that these those each every some any".split())
_MEASURES = frozenset(
    stem(w) for w in "hour minute second day week month year night time percent dollar euro pound point step".split()
)
"""Units a value is measured in: what the measure is *of* lies in a phrase beside it ("4 hours of overtime")."""
_COUNT_WORDS = frozenset(stem(w) for w in "number amount count total quantity".split())
"""Nouns that only say a count is meant: "the number of mentees" counts mentees."""
MAX_RUN = 4
"""Most words a noun run takes ("initial patent filing fees")."""
WINDOW_CHARS = 160
"""How far either side of a value its holder is looked for: a few words, never the whole sentence."""
MAX_SKIP = 6
"""Most linking words and words of change passed between a value and the holder before it."""


@text_cache(maxsize=65536)
def holder_of(sentence: str, start: int, end: int) -> Holder | None:
    """The holder of the value at `sentence[start:end]`, or None when the words beside it name none
    (a pronoun, "it was moved to #")."""
    value = Value(sentence[start:end], start, end)
    after = _tokens(sentence[end : end + WINDOW_CHARS])
    while after and after[0].lower() in _PERIODIC:
        after = after[1:]  # "$550 monthly for groceries": how often it is paid says nothing of what for
    before = _tokens(sentence[max(start - WINDOW_CHARS, 0) : start])
    if value.kind != "amount":
        return _backward(before)  # a day or a time: the event it schedules comes first
    named = _run_forward(after)  # "5 job offers", "$50 budget", "78% coverage"
    if named and stem(named[-1].lower()) not in _MEASURES:
        rest = after[len(named) :]
        counted = _holder(named, _qualifier(rest), rest[0].lower() if rest else "")
        subject = _backward(before) if _predicate(before) else None
        if counted is None or (subject is not None and subject.head not in _COUNT_WORDS):
            if subject is None or counted is None:
                return subject
            # "the API quota is 500 requests": the quota's value, counted in requests
            return Holder(subject.head, subject.modifiers | {counted.head}, f"{subject.phrase} ({counted.phrase})")
        return counted
    rest = after[len(named) :]  # past a measure: "4 hours of overtime"
    qualifier = _qualifier(rest) or (_run_forward(_undetermined(rest[1:])) if rest[:1] == ["on"] else [])
    found = _backward(before)  # "the budget limit of #", "the deadline was pushed back to #"
    if found is not None:
        if not qualifier:
            return found
        return Holder(
            found.head, found.modifiers | _stems(" ".join(qualifier)), f"{found.phrase} {' '.join(qualifier)}"
        )
    if qualifier:  # "spent # on concert tickets", "allocated # for the venue": the verb says which amount
        verb = before[-1].lower() if before else ""
        said = (
            frozenset({stem(verb)}) if verb.isalpha() and verb not in _LINKS and verb not in STOPWORDS else frozenset()
        )
        found = _holder(qualifier, [])
        return found and Holder(found.head, found.modifiers | said, found.phrase)
    return None


def counted_noun(sentence: str, end: int) -> str | None:
    """The noun a count ending at `end` counts, when words before it say which ones: the first
    plural of the noun run after it ("12 evening yoga classes" -> "classes", "2 new rooms" ->
    "rooms"); None when the run has none ("48 MB right now", "the 400 upload limit": the word
    right after the count is then all there is)."""
    run = _run_forward(_tokens(sentence[end : end + WINDOW_CHARS]))
    return next((word for word in run if looks_plural(word.lower()) and word.lower() not in _PERIODIC), None)


_HAVING = frozenset("has have had get gets got set".split())
_COPULAS = frozenset("is are was were be been of".split())
_ADVERBS = frozenset(
    "about around nearly almost only just now currently roughly approximately over under still".split()
)


def _predicate(before: list[str]) -> bool:
    """The value is said of the noun before it ("the quota is #", "a quota of #")."""
    for token in reversed(before):
        lower = token.lower()
        if lower in _COPULAS:
            return True
        if lower not in _ADVERBS and token != MASK:
            return False
    return False


def _self_measured(text: str) -> bool:
    """The value carries its own unit ("$50", "78%", "250ms", "20km")."""
    return bool(re.search(r"[$\u20ac\u00a3%]|\d[a-z]+$|percent$", text, re.IGNORECASE))


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(mask_values(text))


@text_cache(maxsize=16384)
def _changes(word: str) -> bool:
    return says_changed(word)


def _is_noun_like(word: str, previous: str = "", following: str = "") -> bool:
    lower = word.lower()
    if previous.lower() in _VERB_MARKERS:
        return False
    if lower in _NOT_NOUNS or lower in _PREPOSITIONS or lower in _DETERMINERS or lower in STOPWORDS:
        return False
    if lower in _TIME_WORDS:  # "in November", "on Sunday": when, not which one
        return False
    if lower.endswith(("'s", "\u2019s")) or _ADVERB.search(lower) or _changes(lower):
        return False  # a possessive, a manner word ("specifically"), a word of change
    if lower.endswith("ed") and len(lower) > 4:
        return False  # a verb or a participle ("allocated", "moved")
    if lower.endswith("ing") and len(lower) > 5 and previous.lower() not in _DETERMINERS:
        # "using", but "the meeting", "the billing module", "filing fees"
        if not following or not _is_noun_like(following, word):
            return False
    return word.isalpha() or "-" in word


def _run_forward(tokens: list[str]) -> list[str]:
    """The noun run opening `tokens` (a leading "new", "more", "extra" passed: "2 new projects")."""
    while tokens and tokens[0].lower() in _PASSED_ADJECTIVES:
        tokens = tokens[1:]
    run: list[str] = []
    for index, token in enumerate(tokens[:MAX_RUN]):
        following = tokens[index + 1] if index + 1 < len(tokens) else ""
        if index and token.lower().endswith("ing") and not (following.islower() and _is_noun_like(following)):
            break  # after a noun an -ing word opens a clause ("8 cards using Bootstrap"), unless a compound goes on
        if not _is_noun_like(token, tokens[index - 1] if index else "", following):
            break
        run.append(token)
    return run


def _qualifier(tokens: list[str]) -> list[str]:
    """The noun run of a phrase right after the holder ("for initial patent filing fees")."""
    if not tokens or tokens[0].lower() not in _QUALIFYING:
        return []
    return _run_forward(_undetermined(tokens[1:]))


def _undetermined(tokens: list[str]) -> list[str]:
    """`tokens` without the determiners (and values) that open them."""
    while tokens and (tokens[0].lower() in _DETERMINERS or tokens[0] == MASK):
        tokens = tokens[1:]
    return tokens


def _backward(tokens: list[str]) -> Holder | None:
    """The noun run before the value once linking words, other values and words of change are passed."""
    index = len(tokens) - 1
    skipped = 0
    linked = False
    while index >= 0 and skipped <= MAX_SKIP:
        token = tokens[index]
        lower = token.lower()
        linked = linked or lower in _PREPOSITIONS or lower in _COPULAS
        if not linked and lower in _HAVING:
            return None  # "Ava has set aside #": the value is the verb's object, the name its agent
        verb = index > 0 and tokens[index - 1].lower() in _SUBJECTS  # "the pupils I teach has grown to #"
        if (
            token in ("(", ")")
            or token == MASK
            or lower in _LINKS | _MOVES
            or lower in _SUBJECTS
            or verb
            or _changes(lower)
        ):
            index -= 1
            skipped += 1
            continue
        if lower.endswith("ed") and len(lower) > 4 and lower not in _NOT_NOUNS:
            if not linked:
                return None  # "Ava has allocated #": the value is the verb's object, the name its agent
            index -= 1  # "was rated at #", "got extended to #"
            skipped += 1
            continue
        break
    index = _before_relative_clause(tokens, index)
    run: list[str] = []
    while index >= 0 and len(run) < MAX_RUN:
        previous = tokens[index - 1] if index else ""
        if not _is_noun_like(tokens[index], previous, run[0] if run else ""):
            break
        run.insert(0, tokens[index])
        index -= 1
    if not run:
        return None
    # "the call with my mentor", "the number of mentees": the run may qualify a noun before it
    while index >= 0 and (tokens[index].lower() in _DETERMINERS or tokens[index].lower().endswith(("'s", "\u2019s"))):
        index -= 1
    joint = tokens[index].lower() if index >= 0 else ""
    if joint in _QUALIFYING:
        head_end = index - 1
        while head_end >= 0 and tokens[head_end].lower() in _DETERMINERS:
            head_end -= 1
        head_run: list[str] = []
        while head_end >= 0 and len(head_run) < MAX_RUN:
            previous = tokens[head_end - 1] if head_end else ""
            if not _is_noun_like(tokens[head_end], previous, head_run[0] if head_run else ""):
                break
            head_run.insert(0, tokens[head_end])
            head_end -= 1
        if head_run and stem(head_run[-1].lower()) in _COUNT_WORDS:
            return _holder(run, [])
        if head_run:
            return _holder(head_run, run, joint)
    return _holder(run, [])


MAX_RELATIVE = 5
"""Most words of a relative clause passed between a holder and its value ("the mentees I have
worked with | has grown to #")."""
_AUXILIARY_WORDS = frozenset("has have had 've is are was were 's been".split())


def _before_relative_clause(tokens: list[str], index: int) -> int:
    """Where the holder's noun run ends when `tokens[: index + 1]` ends on a relative clause with
    its own subject ("the number of mentees Ana has worked with", "… the user has worked with"):
    the index before that subject; else `index`. The clause is a subject (a pronoun, "the user", a
    name) and at most `MAX_RELATIVE` lower-case words after it: auxiliaries, one verb, a stranded
    preposition; a noun must come right before the subject. The words before the value may have
    been passed already ("the students the user | has tutored went up to #")."""
    if index >= 2 and tokens[index].lower() == "user" and tokens[index - 1].lower() == "the":
        before = index - 2  # "the user" is never a holder: here, the subject of the clause passed
        if _is_noun_like(tokens[before], tokens[before - 1] if before else "", "the"):
            return before
    for start in range(index, max(index - MAX_RELATIVE, 0), -1):
        words = [t.lower() for t in tokens[start + 1 : index + 1]]
        if not words or not all(t.isalpha() or "'" in t for t in tokens[start + 1 : index + 1]):
            continue
        if any(t[:1].isupper() for t in tokens[start + 1 : index + 1]):
            break
        verbs = [w for w in words if w not in _AUXILIARY_WORDS and w not in _PREPOSITIONS]
        if len(verbs) != 1 or (words[-1] not in _PREPOSITIONS and words[-1] != verbs[0]):
            continue
        if words[-1] not in _PREPOSITIONS and not _AUXILIARY_WORDS & set(words):
            continue  # "the daily API quota is #": a noun after a name, no clause
        subject = tokens[start]
        if subject.lower() in _SUBJECTS - {"you"} or (subject[:1].isupper() and subject.isalpha()):
            before = start - 1
        elif subject.lower() == "user" and start > 0 and tokens[start - 1].lower() == "the":
            before = start - 2
        else:
            continue
        if before >= 0 and _is_noun_like(tokens[before], tokens[before - 1] if before else "", subject):
            return before
    return index


def _holder(run: list[str], qualifier: list[str], joint: str = "") -> Holder | None:
    while run and run[-1].lower() in _PERIODIC:
        run = run[:-1]
    if not run or not run[-1].islower():
        return None  # a name ("Ava has budgeted #"): whose value it is, not what it is of
    head = stem(run[-1].lower())
    modifiers = frozenset(stem(w.lower()) for w in [*run[:-1], *qualifier]) - {head}
    phrase = " ".join(run)
    if qualifier:
        phrase = f"{phrase} {joint} {' '.join(qualifier)}"
    return Holder(head, modifiers, phrase)


def holders_clash(one: Holder, other: Holder, one_sentence: str, other_sentence: str) -> bool:
    """One noun qualified otherwise on each side ("coverage of the billing module" / "coverage of
    the search module", "the parking fee" / "the gym fee"): two things. A qualifier one side lacks
    but the other sentence says elsewhere does not count ("the budget for books" / "the book budget
    is now #" is one budget)."""
    if one.head != other.head:
        return False
    mine, theirs = one.modifiers - other.modifiers, other.modifiers - one.modifiers
    if not mine or not theirs:
        return False
    return not (mine & _stems(other_sentence)) and not (theirs & _stems(one_sentence))


def same_holder(one: Holder, other: Holder, one_sentence: str, other_sentence: str) -> bool:
    """Both values belong to one noun, qualified alike or not at all on one side."""
    return one.head == other.head and not holders_clash(one, other, one_sentence, other_sentence)


_PEOPLE = frozenset(
    stem(w)
    for w in """
women men people persons students kids children girls boys members clients volunteers interns employees staff
colleagues teens teenagers adults candidates players patients customers participants learners parents friends
writers artists founders entrepreneurs professionals youths juniors graduates apprentices recruits hires
""".split()
)
"""Nouns that count people: who a verb's "-ee" noun can count ("mentoring 5 women": 5 mentees)."""
_COUNT_BEFORE = re.compile(
    r"\b(?P<verb>[A-Za-z]+)\s+(?:(?:those|these|the|my|our|his|her|their|about|over|around|some)\s+)?"
    r"(?:\d[\d,]*|#)\s+(?P<nouns>[A-Za-z]+(?:\s+[A-Za-z]+){0,2})"
)


def counts_the_same_people(one: Holder, other: Holder, one_sentence: str, other_sentence: str) -> bool:
    """One count is of "-ee" people ("mentees", "trainees", "interviewees") and the other counts
    people its verb's object ("mentoring 5 women", "trained 12 new hires" counts 12 trainees):
    English forms the "-ee" noun from the verb's stem. Either way round."""
    return _ee_of(one, other, other_sentence) or _ee_of(other, one, one_sentence)


def _ee_verb_stems(base: str) -> frozenset[str]:
    """The stems of the verb an "-ee" noun comes from: "trainee" train, "mentee" mentor, "invitee"
    invite, "nominee" nominate (not "mentioned" for "mentee": the stem must be the verb's whole)."""
    return frozenset({base, f"{base}or", f"{base}e", f"{base}ate", f"{base}at"})


EE, COUNTED = "ee", "counted"
"""The two parts of `counts_the_same_people`: the "-ee" noun's count, and the count of the people a
verb's object names."""


def people_roles(holder: Holder) -> frozenset[str]:
    """The parts a holder could play in `counts_the_same_people` (none for most holders): a count
    of one part is one count only with a count of the other."""
    roles = set()
    if _ee_base(holder):
        roles.add(EE)
    if holder.head in _PEOPLE:
        roles.add(COUNTED)
    return frozenset(roles)


def _ee_base(holder: Holder) -> str:
    """The stem an "-ee" noun holder is made from ("train" for "trainees"), or "" for another noun."""
    word = _head_word(holder)
    base = word.removesuffix("s").removesuffix("ee")
    return base if word.rstrip("s").endswith("ee") and len(base) >= 4 else ""


def _ee_of(derived: Holder, counted: Holder, counted_sentence: str) -> bool:
    """`derived` counts "-ee" people of the verb whose object `counted`'s noun is in its sentence."""
    base = _ee_base(derived)
    if not base or counted.head not in _PEOPLE:
        return False
    noun = _head_word(counted)
    return any(
        noun in found.group("nouns").lower().split() and stem(found.group("verb").lower()) in _ee_verb_stems(base)
        for found in _COUNT_BEFORE.finditer(counted_sentence)
    )


def _head_word(holder: Holder) -> str:
    """The holder's head as said ("mentees" in "mentees in the program"), lower case."""
    return next((w for w in holder.phrase.lower().split() if stem(w) == holder.head), "")


@text_cache(maxsize=16384)
def _stems(text: str) -> frozenset[str]:
    return frozenset(stem(w.lower()) for w in re.findall(r"[A-Za-z][A-Za-z'-]*", text))
