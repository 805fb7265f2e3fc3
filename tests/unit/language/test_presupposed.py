"""What a question takes as given (`language.presupposed`), and the statement units it yields."""

from __future__ import annotations

import pytest

from language.presupposed import presupposed_clauses, without_trigger
from language.statements import statement_units


@pytest.mark.parametrize(
    ("text", "clauses"),
    [
        ("How do I plan around the fact that my lease now ends on 30 June?", ["my lease now ends on 30 June"]),
        ("Now that the gym moved my class to 7 PM, how should I shift dinner?", ["the gym moved my class to 7 PM"]),
        ("Given that I have already saved $4,000, how long until the goal?", ["I have already saved $4,000"]),
        ("How do I budget since my rent went up to $1,450?", ["my rent went up to $1,450"]),
        # the purpose of the request is not part of the fact; "to" before a thing or a value is
        ("Can I use the fact that I won 3 grants to ask for a raise?", ["I won 3 grants"]),
        ("Is it wise, seeing that we switched to the night shift?", ["we switched to the night shift"]),
        # "due to", "thanks to", "according to" are prepositions inside the clause, not a purpose
        (
            "How do I rework the plan since the tiling got pushed to May 9 due to extra inspections?",
            ["the tiling got pushed to May 9 due to extra inspections"],
        ),
        # an embedded question or a new request ends the clause
        ("What now, considering that she booked 12 rooms and how do I tell the others?", ["she booked 12 rooms"]),
        # "that" left out, and "especially" before the trigger
        ("Is the van big enough, considering we've packed 40 boxes?", ["we've packed 40 boxes"]),
        ("Which tent should I buy, especially given my trip is now 9 days?", ["my trip is now 9 days"]),
    ],
)
def test_the_clause_a_question_takes_as_given(text: str, clauses: list[str]) -> None:
    assert presupposed_clauses(text) == clauses


@pytest.mark.parametrize(
    "text",
    [
        "What should I pack since May is rainy there?",  # "since" + a month: no clause of a person or a thing
        "Can you help me since the move?",  # a noun phrase, no verb
        "Which bike suits me, especially considering the hills near Porto?",  # a noun phrase, no verb
        "Is 3 hours of sleep enough, given my age?",
        "Should I stay home because of the rain?",
        "Should I move the visit now that it was pushed to April 14?",  # "it" would lose what it stands for
        "How was your weekend?",
    ],
)
def test_nothing_given(text: str) -> None:
    assert presupposed_clauses(text) == []


def test_a_value_taken_as_given_is_a_statement() -> None:
    units = statement_units("What is a good way to use the fact that I sold 40 prints at the fair last week?")
    assert ("statement", "I sold 40 prints at the fair last week") in [(u.kind, u.text) for u in units]
    # a fact without a value adds nothing the question as asked does not hold
    assert all(u.kind != "statement" for u in statement_units("How do I cope now that I moved out?"))
    # said again beside the question, it is kept once
    [unit] = statement_units("Can you check the route, since the race got moved to the 12th?")
    assert unit.kind == "statement" and unit.text.count("the 12th") == 1


def test_a_piece_opening_on_a_trigger_is_said_as_its_clause() -> None:
    assert without_trigger("now that I've planted 30 bulbs") == "I've planted 30 bulbs"
    assert without_trigger("since the ferry got moved to 9 AM") == "the ferry got moved to 9 AM"
    assert without_trigger("since 2019") == "since 2019", "no clause: the piece as it is"
    assert without_trigger("because of the storm on May 2") == "because of the storm on May 2"
    unit, *_ = statement_units("How should I store them, now that I've planted 30 bulbs in the front bed?")
    assert unit == ("I've planted 30 bulbs in the front bed", "statement", False)
    assert without_trigger("considering we've saved 12 jars") == "we've saved 12 jars", "'that' left out"
    unit, *_ = statement_units("Which route is best, especially given my ride is now 40 km, and what should I pack?")
    assert unit == ("my ride is now 40 km", "statement", False)
