"""`language.changes`: the values a statement gives, and whether it says a value changed or
narrates an event, on sentences written for this test."""

from __future__ import annotations

import pytest

from language.changes import (
    Numbered,
    adds_to,
    changed_at,
    identifiers,
    is_delta,
    mask_values,
    modifiers_clash,
    narrates_past_event,
    period_of,
    says_changed,
    values_in,
)
from language.tokens import token_set


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("The snack budget went up to $75 on April 2, 2024.", ["$75", "April 2, 2024"]),
        ("Coverage is 78%, the API answers in 250ms and the stream runs at 1080p.", ["78%", "250ms", "1080p"]),
        ("Meet at 4:30 PM on March 22, or at 11am.", ["4:30 PM", "March 22", "11am"]),
        ("Python 3.11 and release v1.0.0 shipped with 1,200 tests.", ["3.11", "v1.0.0", "1,200"]),
        ("My gym sessions are on Mondays at 7 PM.", ["Mondays", "7 PM"]),
        ("I have two dogs and live on the fourth floor.", ["two", "fourth"]),
        ("One of them is the blue one.", []),
    ],
)
def test_values_a_statement_gives(text: str, values: list[str]) -> None:
    assert [v.text for v in values_in(text)] == values


def test_values_compare_without_separators_and_have_a_kind() -> None:
    one, two, day, clock = values_in("$1,200 and $1200 on 2024-03-01 at 9 AM")
    assert one.normal == two.normal == "$1200"
    assert (one.kind, day.kind, clock.kind) == ("amount", "day", "clock")


def test_masking_values_and_phrases() -> None:
    assert mask_values("The budget is $40 for the May 3 party.") == "The budget is # for the # party."
    assert mask_values("I sit by the window, not the windowsill.", ("window",)) == "I sit by the #, not the windowsill."


@pytest.mark.parametrize(
    ("text", "changed"),
    [
        ("we raised the budget to #", True),
        ("the deadline was pushed back to #", True),
        ("the call moved to # at #", True),
        ("my rating went up to #", True),
        ("the new deadline is #", True),
        ("the budget is #", False),
        ("the movie starts at #", False),  # "movie" is not "move"
    ],
)
def test_says_changed(text: str, changed: bool) -> None:
    assert says_changed(text) is changed


@pytest.mark.parametrize(
    ("text", "event"),
    [
        ("I ran # km on Saturday", True),
        ("she bought # books at the fair", True),
        ("we visited # countries last year", True),
        ("I have visited # countries", False),  # a state: how many so far
        ("the report is due on #", False),
        ("I am interested in # courses", False),
        ("the library was tagged by theme", False),
    ],
)
def test_narrates_past_event(text: str, event: bool) -> None:
    assert narrates_past_event(text) is event


def test_numbers_that_say_which_thing_a_sentence_is_about() -> None:
    assert identifiers("The user's Phase 2 review is on May 3.") == {Numbered("phas", "2", named=True)}  # stems
    assert identifiers("The first phase ends on May 3.") == {Numbered("phas", "1", named=False)}
    assert identifiers("The 3 kids start school on May 3.") == frozenset()  # a count, not a name
    assert identifiers("Since March 3 the user has 12 plants.") == frozenset()  # a day


def test_the_period_a_rate_is_given_per() -> None:
    assert period_of("reads 30 pages a day", "30") == "day"
    assert period_of("saves $400 per month", "$400") == "month"
    assert period_of("swims 3 km weekly", "3") == "week"
    assert period_of("sleeps 7 hours a night", "7") == "day"
    assert period_of("has a budget of $50 for books", "$50") == ""
    assert period_of("pays the gardener $250 per quarter", "$250") == "quarter"
    assert period_of("logs 40 km/week on the bike", "40") == "week"
    # a value joined to its unit by a hyphen is still the rate's
    assert period_of("beat my daily 500-word target", "500") == "day"
    assert period_of("keeps a 3-mile daily walk", "3") == "day"


def test_the_period_said_in_the_noun_phrase_before_the_value() -> None:
    assert period_of("set a weekly grocery budget of $120", "$120") == "week"
    assert period_of("the annual membership fee is now $89", "$89") == "year"
    assert period_of("raised the Sept-Nov travel allowance to $600", "$600") == "span"
    assert period_of("our Q2 target: 30 signups", "30") == "span"
    # a period said far from the value, or of something else in the sentence, is not its period
    assert period_of("after my weekly swim with my old school friends I paid $12", "$12") == ""
    # words that only begin like a month name no span
    assert period_of("maybe to junior staff we pay $40", "$40") == ""


@pytest.mark.parametrize(
    ("sentence", "value", "expected"),
    [
        ("The landlord increased the rent to $1,250 from March", "$1,250", True),
        ("the island ferry was moved to 8:05 AM", "8:05 AM", True),
        ("I can't make the new June 9 exam date", "June 9", True),
        ("the parking fee is now $90", "$90", True),
        ("the number of volunteers has grown to 12", "12", True),
        ("the rowing club has 52 members now", "52", True),
        ("I am switching to a lighter racket after June 14", "June 14", False),
        ("The museum tour is on August 4", "August 4", False),
        ("I paid $43 for vinyl records, more than the $35 club fee", "$35", False),
        ("I moved to Lisbon in 2019 and saved $500", "$500", False),
        ("I printed two more, so now the stall holds a total of 11 posters", "11", True),
    ],
)
def test_a_value_is_said_to_be_the_new_one_only_by_the_words_that_lead_to_it(
    sentence: str, value: str, expected: bool
) -> None:
    found = next(v for v in values_in(sentence) if v.text == value)
    assert changed_at(sentence, found) is expected


def test_one_noun_modified_otherwise_on_each_side_names_two_things() -> None:
    assert modifiers_clash("the parking fee is $40", "the gym fee went up to $55", token_set("fee"))
    assert modifiers_clash("the tram pass of $30 a month", "the bus pass went up to $38", token_set("pass"))
    # The same modifier, or one the other sentence says elsewhere, or none: one thing.
    assert not modifiers_clash("my climbing gym fee is $48", "the climbing gym fee rose to $55", token_set("fee gym"))
    assert not modifiers_clash("the fee for the hall is $80", "the hall fee went up to $95", token_set("fee hall"))
    assert not modifiers_clash("my fee is $30", "the new fee is $35", token_set("fee"))
    # A word of the change ("increased") is no modifier, nor a word of another phrase ("gifts in July").
    assert not modifiers_clash("the gift budget is $80", "my increased budget is $120", token_set("budget"))
    assert not modifiers_clash("I spent $90 on gifts in July", "my festival July budget is $120", token_set("july"))


@pytest.mark.parametrize(
    ("sentence", "value", "expected"),
    [
        ("I'm hoping for a $1,500 pay bump next spring", "$1,500", True),
        ("They gave me a 6% rise, so the wage is $52,000 now", "6%", True),
        ("My wage is $52,000 now", "$52,000", False),
        ("The rent went up by $75 this year", "$75", True),
        ("I paid $12 more than last time for the tickets", "$12", True),
        ("The tickets cost $12 each", "$12", False),
        # What was taken away from something is the size of the cut, not what is left of it.
        ("I trimmed 800 words from the essay before sending it", "800", True),
        ("The shop took $15 off the bill for the late delivery", "$15", True),
        ("We removed 40 tests out of the nightly suite", "40", True),
        ("They cut the reading list to 12 books", "12", False),
        ("Last spring I dropped 6 kg by cycling to work", "6", True),
        ("It took 3 hours to assemble the bookshelf", "3", False),
        # How far past an allowance is a difference; an amount over a stretch of time is a level.
        ("The party ran $30 over our catering budget", "$30", True),
        ("We came in 2 days under the agreed quota", "2", True),
        ("I saved $700 over the winter", "$700", False),
    ],
)
def test_the_size_of_a_change_is_not_the_level_it_changed(sentence: str, value: str, expected: bool) -> None:
    found = next(v for v in values_in(sentence) if v.text == value)
    assert is_delta(sentence, found.start, found.end) is expected


def test_a_ratio_is_one_value_and_no_day() -> None:
    found = values_in("the odds were 5/48 at the start, 2:7 at noon and 7/30 later at 10:15")
    assert [(v.text, v.kind) for v in found] == [
        ("5/48", "amount"),
        ("2:7", "amount"),
        ("7/30", "day"),
        ("10:15", "clock"),
    ]


def test_a_word_of_addition_beside_no_value_adds_nothing() -> None:
    assert adds_to("I also put $40 into the jar")
    assert adds_to("I read 3 more chapters")
    assert not adds_to("explain more about why the wait was cut to 4 weeks")
