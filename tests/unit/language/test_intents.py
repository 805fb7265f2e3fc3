"""`language.intents`: a wish, a plan, a supposition or a target is no value as it is, on
sentences written for this test."""

from __future__ import annotations

import pytest

from language.changes import values_in
from language.intents import intended


@pytest.mark.parametrize(
    ("sentence", "value", "expected"),
    [
        ("Let's hope the crew can push the pass rate to 91% by autumn", "91%", True),
        ("My aim is to bring the commute from 70 down to 45 minutes by spring", "45", True),
        ("I keep thinking of asking for a $2,500 bonus this year", "$2,500", True),
        # A modal after the value that says what it leads to leaves the value as it is...
        ("Pushing the dentist visit to May 9 might clash with my shift", "May 9", False),
        # ...one that judges it does not.
        ("Saving 4 months of rent would be enough for me", "4", True),
        ("I might move the dentist visit to May 9", "May 9", True),
        ("What if we only spend a third of the $2,400 on the garden this spring", "$2,400", True),
        ("My target for the spring term is 30 essays", "30", True),
        # An aim already met states what is.
        ("With the club's goals met, the choir has grown to 42 singers", "42", False),
        ("The sales targets were reached and we shipped 900 boxes", "900", False),
        ("I compare prices with the aim to keep the grocery bill under $90 a week", "$90", True),
        ("Please ensure the upload stays below 25 MB for the portal", "25", True),
        # A hedge makes it a supposition.
        ("I'll ask Omar about possibly raising the deposit to $700", "$700", True),
        ("Perhaps the fair moves to October 8 this year", "October 8", True),
        # An amount a deadline sets is due, a target; the deadline's day is when, a fact.
        ("I'm anxious about the lab deadline of 40 samples by March 9", "40", True),
        ("The lab deadline was raised to 45 samples", "45", True),
        ("I'm anxious about the lab deadline of 40 samples by March 9", "March 9", False),
        ("The lab deadline for the grant report moved to May 9", "May 9", False),
        ("I missed the deadline by 3 days and then shipped 40 boxes", "40", False),
        ("If the rent stays at $1,900, we'll shoot for $5,700 in the fund", "$5,700", True),
        ("I shot 40 photos for the fair", "40", False),
        # "considering" weighs a plan after a verb of being; opening a phrase it means "given".
        ("We are considering a $650 deposit for the hall", "$650", True),
        ("Still, considering the 300 page limit, the essay needs trimming", "300", False),
    ],
)
def test_a_hope_a_stated_aim_or_a_supposition_is_no_fact(sentence: str, value: str, expected: bool) -> None:
    found = next(v for v in values_in(sentence) if v.text == value)
    assert intended(sentence, found, sentence) is expected
