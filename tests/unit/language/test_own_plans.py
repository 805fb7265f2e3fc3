"""A user's "let's ..." to an assistant is the user's own plan (`language.own_plans`), on sentences
written for these tests: nothing here is taken from the fixtures or the evaluation sets."""

from __future__ import annotations

import pytest

from language.own_plans import as_own_plans
from language.statements import statement_units


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        ("Let's book the 9 AM slot with the plumber.", "I'll book the 9 AM slot with the plumber."),
        ("Okay, let's go with the cedar fence.", "Okay, I'll go with the cedar fence."),
        ("Sure, let's go ahead and cancel the gym membership.", "Sure, I'll cancel the gym membership."),
        ("Let's keep the weekly cap at 25 hours.", "I'll keep the weekly cap at 25 hours."),
        ("Let us move the recital to June 14.", "I'll move the recital to June 14."),
        ('Let\'s start with "Up" and "Coco" for movie night.', 'I\'ll start with "Up" and "Coco" for movie night.'),
        (
            "Let's switch to the annual plan, and let's invite Ramon to the kickoff.",
            "I'll switch to the annual plan, and I'll invite Ramon to the kickoff.",
        ),
    ],
)
def test_a_lets_that_settles_a_deed_is_the_speakers_plan(said: str, meant: str) -> None:
    assert as_own_plans(said) == meant


@pytest.mark.parametrize(
    "said",
    [
        "Let's see how it goes.",
        "Let's break it down step by step.",
        "Let's move on to the next chapter.",
        "Let's start with the basics.",
        "Let's start with the 2 easy exercises.",
        "Let's go over the second proof again.",
        "Let's keep it simple.",
        "Let's focus on the cover letter.",
        "Let's Encrypt gives the certificates.",
    ],
)
def test_a_lets_about_the_conversation_itself_is_left_as_said(said: str) -> None:
    assert as_own_plans(said) == said


def test_a_conversation_lets_joined_to_a_plan_is_set_apart() -> None:
    assert as_own_plans("Let's order the oak desk and let's see what the shop says.") == (
        "I'll order the oak desk - let's see what the shop says."
    )


def test_told_to_an_assistant_a_plan_is_kept_and_to_a_person_it_stays_a_proposal() -> None:
    said = "Let's repaint the porch on Saturday."
    assert [u.text for u in statement_units(said)] == ["I'll repaint the porch on Saturday."]
    assert [(u.text, u.kind) for u in statement_units(said, to_person=True)] == [
        ("Let's repaint the porch on Saturday.", "suggested")
    ]
    assert statement_units("Let's see how it goes.") == []
