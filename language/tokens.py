"""Tokens of general English text, for lexical search (BM25) and for comparing what two texts say.

Lowercase; accents and curly quotes straightened; contractions expanded ("don't" -> "do not", the "'s" of a
possessive dropped); stopwords out; a light suffix stripper so plurals and tenses meet ("dropping",
"dropped" -> "drop"). Names, numbers and dates are what memory questions turn on, so they are kept:
"1,500" -> "1500", "7th" -> "7", "3.5", "v2", "ax3000" and "14:30" stay whole, a month name or its
abbreviation becomes the full month ("Sept" -> "september"; "may" only next to a number, where it is
not the modal verb), and a full date written as digits is kept whole and also split into its
year, month name and day, so "2023-05-07" meets "7 May 2023". No domain lexicon, no paraphrases.
"""

from __future__ import annotations

import re
import unicodedata

from language.text_caches import text_cache

_ASCII_DIGIT = re.compile(r"[0-9]")


def has_digit(text: str) -> bool:
    """Any character of `text` is a digit (`str.isdigit`: "²" and "①" too), at the speed of one
    regex search on ASCII text, where a per-character loop was a hot spot of the offline engine."""
    if text.isascii():
        return _ASCII_DIGIT.search(text) is not None
    return any(ch.isdigit() for ch in text)


STOPWORDS = frozenset(
    """
a about above after again against all am an and any are as at be been before being below between both
but by could did do does doing down during each few for from further had has have having he her here
hers herself him himself his how i if in into is it its itself just let me more most my myself of off
on once only or other our ours ourselves out over own same shall she should so some such than that the
their theirs them themselves then there these they this those through to too under until up very was
we were what when where which while who whom why will with would you your yours yourself yourselves
also please really still always usually actually now yes ok okay oh well hi hello hey thanks thank
can may might must either
""".split()
)

NEGATIONS = frozenset({"no", "not", "never", "nor"})
"""All become the one token "not": negation is content ("likes jazz" vs "does not like jazz")."""

MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH_NAMES: dict[str, str] = {name: name for name in MONTHS}
_MONTH_NAMES.update({name[:3]: name for name in MONTHS if name != "may"})
_MONTH_NAMES["sept"] = "september"
_AMBIGUOUS_MONTHS = frozenset({"may", "mar"})  # modal verb, "to mar": a month only beside a number

# US -> UK spellings, so spelling alone never makes two texts look different.
SPELLING: dict[str, str] = {
    "color": "colour",
    "favorite": "favourite",
    "favor": "favour",
    "center": "centre",
    "organization": "organisation",
    "summarize": "summarise",
    "analyze": "analyse",
}

_CONTRACTIONS = (
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"\bcan't\b"), "can not"),
    (re.compile(r"\bcannot\b"), "can not"),
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"'re\b"), " are"),
    (re.compile(r"'m\b"), " am"),
    (re.compile(r"'ll\b"), " will"),
    (re.compile(r"'ve\b"), " have"),
    (re.compile(r"'d\b"), " would"),
    (re.compile(r"'s\b"), ""),  # possessive or "is": neither carries content
)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_TOKEN = re.compile(r"\d+(?:[./:\-]\d+)+|[^\W_]+(?:[.\-+#][^\W_]+)*\+*")  # letters of any script
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_DAY_FIRST_DATE = re.compile(r"^(\d{1,2})\.(\d{1,2})\.(\d{4})$")  # 14.01.2024: dots are day-first
_SLASH_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")  # day or month first: only when one is > 12


def normalise(text: str) -> str:
    """Lowercased, accents and quotes straightened ("José's café" -> "jose cafe"), contractions
    expanded, thousands separators dropped."""
    lowered = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    if not lowered.isascii():
        lowered = "".join(ch for ch in unicodedata.normalize("NFKD", lowered) if not unicodedata.combining(ch))
    for pattern, replacement in _CONTRACTIONS:
        lowered = pattern.sub(replacement, lowered)
    return _THOUSANDS.sub("", lowered)


def looks_plural(word: str) -> bool:
    """A lowercase word ending in a plural "-s" ("drills", "classes"; not "class", "bus", "this")."""
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


@text_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stripper: enough to make plurals and tenses meet, never a full stemmer."""
    word = SPELLING.get(word, word)
    if len(word) <= 3 or has_digit(word):
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "shes", "ches", "xes", "zes")):
        word = word[:-2]
    elif looks_plural(word):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # dropping -> drop
            break
    if word.endswith("e") and len(word) >= 5:
        word = word[:-1]  # decide / decided -> decid
    return SPELLING.get(word, word)


def _date_parts(word: str) -> tuple[str, str, str] | None:
    """(year, month name, day) of a full numeric date, or None when it is not one (or ambiguous)."""
    if match := _ISO_DATE.match(word):
        year, month, day = match.groups()
    elif match := _DAY_FIRST_DATE.match(word):
        day, month, year = match.groups()
    elif match := _SLASH_DATE.match(word):
        first, second, year = match.groups()
        if int(first) > 12:
            day, month = first, second
        elif int(second) > 12:
            month, day = first, second
        else:
            return None
    else:
        return None
    if not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
        return None
    return year, MONTHS[int(month) - 1], str(int(day))


def _beside_number(words: list[str], index: int) -> bool:
    return any(0 <= i < len(words) and words[i][:1].isdigit() for i in (index - 1, index + 1))


@text_cache(maxsize=16384)
def terms(text: str, stopwords: frozenset[str] = STOPWORDS) -> tuple[tuple[str, str], ...]:
    """(token, surface word) pairs in text order; the surface word is what a reader would see.
    A numeric date gives its whole form and then its parts, all with the date as surface."""
    words = _TOKEN.findall(normalise(text))
    out: list[tuple[str, str]] = []
    for index, word in enumerate(words):
        if word in NEGATIONS:
            out.append(("not", word))
        elif (ordinal := _ORDINAL.match(word)) is not None:
            out.append((ordinal.group(1), word))
        elif word in _MONTH_NAMES and (word not in _AMBIGUOUS_MONTHS or _beside_number(words, index)):
            out.append((_MONTH_NAMES[word], word))
        elif (parts := _date_parts(word)) is not None:
            out.append((word, word))
            out.extend((part, word) for part in parts)
        elif word not in stopwords:
            out.append((stem(word), word))
    return tuple(out)


def tokens(text: str) -> list[str]:
    """The tokens of `text` in order, repeats kept (term frequencies for BM25)."""
    return [token for token, _ in terms(text)]


def token_set(text: str) -> frozenset[str]:
    """The content of `text` as a set of tokens, for overlap and duplicate checks."""
    return frozenset(token for token, _ in terms(text))
