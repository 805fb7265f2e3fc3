"""What an amount is to its sentence: spent, or allowed.

"Spent $61 on games" and "a $50 monthly budget" are two attributes of one person's money, however
alike the clauses read: what went out and what may go out. A later budget does not replace an
earlier spending, nor a later spending an earlier budget; a budget replaces a budget. The role is
read from the words next to the amount: a verb of spending just before it ("spent", "paid", "cost
me") or a noun of it ("our outgoings come to about $2,800 a month", "$90 in bills"), or a noun
of allowance just before or after it ("a budget of $70", "$50 monthly budget", "the limit is 800
requests").
"""

from __future__ import annotations

import re
from typing import Literal

from language.changes import period_of
from language.text_caches import text_cache
from language.values import said_at

Role = Literal["spent", "allowed"]

_SPENT_BEFORE = re.compile(
    r"\b(?:spen[dt]|spending|spends|paid|pay|paying|pays|cost|costs|costing|charged|used|wasted|blew)"
    r"(?:\s+(?:me|us|him|her|them|only|just|about|around|nearly|almost|over|under|another))*\s+$",
    re.IGNORECASE,
)
_ALLOWED_NOUN = r"(?:budgets?|limits?|allowances?|caps?|quotas?|ceilings?|allotments?)"
_SPENT_NOUN = r"(?:expenses?|expenditures?|spending|costs?|bills?|outgoings)"
# "a budget of", "the limit is", "budget was raised to", "budget for May of": the noun governs the amount.
_ALLOWED_BEFORE = re.compile(
    rf"\b{_ALLOWED_NOUN}\s+(?:[\w'-]+\s+){{0,3}}?(?:of|is|was|at|to|now)\s+(?:about\s+|around\s+|only\s+|just\s+)?$",
    re.IGNORECASE,
)
# "$50 monthly budget", "800 daily request limit", "500 rows/day cap": the amount names the allowance it sets.
_ALLOWED_AFTER = re.compile(rf"^\s*(?:[\w/-]+\s+){{0,2}}{_ALLOWED_NOUN}\b", re.IGNORECASE)
# "our outgoings come to about $2,800", "$2,800 in monthly costs": what goes out.
_SPENT_NOUN_BEFORE = re.compile(
    rf"\b{_SPENT_NOUN}\s+(?:[\w'-]+\s+){{0,2}}?(?:of|is|are|was|were|at|to|around|about|now)\s+"
    r"(?:about\s+|around\s+|roughly\s+|nearly\s+)?$",
    re.IGNORECASE,
)
_SPENT_NOUN_AFTER = re.compile(rf"^\s*(?:in\s+)?(?:[\w-]+\s+){{0,1}}{_SPENT_NOUN}\b", re.IGNORECASE)


@text_cache(maxsize=65536)
def role_of(sentence: str, said: str) -> Role | None:
    """The role of the amount `said` (as written) at its first place in `sentence`; None when the
    words next to it name neither."""
    at = said_at(sentence, said)
    if at is None:
        return None
    before, after = sentence[: at.start()], sentence[at.end() :]
    if _ALLOWED_BEFORE.search(before) or _ALLOWED_AFTER.match(after):
        return "allowed"
    if _SPENT_BEFORE.search(before) or _SPENT_NOUN_BEFORE.search(before) or _SPENT_NOUN_AFTER.match(after):
        return "spent"
    return None


def roles_clash(first: str, said_first: str, second: str, said_second: str) -> bool:
    """One amount was spent and the other is allowed: two attributes, whatever else they share."""
    roles = {role_of(first, said_first), role_of(second, said_second)}
    return roles == {"spent", "allowed"}


def same_allowance(first: str, said_first: str, second: str, said_second: str) -> bool:
    """Both amounts are allowed per one period ("the 400 daily upload limit" / "the new daily quota of
    550 uploads per day"): a limit, a quota and a cap of one period are one attribute under two names."""
    if not role_of(first, said_first) == role_of(second, said_second) == "allowed":
        return False
    period = period_of(first, said_first)
    return period != "" and period == period_of(second, said_second)
