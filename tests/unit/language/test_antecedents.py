"""What a bare "it" stands for: the noun phrases said before it, cut to their heads; on sentences
written for this test."""

from __future__ import annotations

import pytest

from language.antecedents import Reading, noun_phrases_before, pronoun_at, resolved, with_antecedent


@pytest.mark.parametrize(
    ("before", "phrases"),
    [
        ("I checked my phone plan again and ", ["the phone plan"]),
        ("I'm anxious about Theo's swim meet, so ", ["Theo's swim meet"]),
        ("I emailed the landlord about the broken heater and ", ["the broken heater", "the landlord"]),
        # a phrase qualifying another is part of it, and the head is what "it" can stand for
        ("I bought a frame for my niece's painting and ", ["a frame"]),
        ("I called the clinic in Leith, and ", ["the clinic"]),
        ("I double-checked the call with Dr. Patel, and ", ["the call with Dr. Patel"]),
        ("I looked up the cost of the ferry again and ", ["the cost of the ferry"]),
        ("Honestly, ", []),
    ],
)
def test_noun_phrases_before_a_pronoun_nearest_first(before: str, phrases: list[str]) -> None:
    assert noun_phrases_before(before, len(before)) == phrases


def test_the_pronoun_and_its_contraction_are_replaced_as_one_verb() -> None:
    text = "They said it's been pushed to noon and it'll run late."
    pronoun = pronoun_at(text)
    assert pronoun is not None and pronoun.group(0) == "it's"
    assert with_antecedent(text, pronoun, "the vet visit") == (
        "They said the vet visit has been pushed to noon and it'll run late."
    )
    assert pronoun_at("Kit and Brit itemised the bill.") is None  # "it" inside a word is no pronoun


def test_a_reworded_clause_takes_its_antecedent_from_the_message() -> None:
    message = "I looked at the kayak rental again. It was raised to $55 a day, is that normal?"
    statement = "It was raised to $55 a day."
    assert [r.text for r in resolved(statement, message)] == ["The kayak rental was raised to $55 a day."]
    # the third-person clause of a first-person message
    message = "Can you remind me about my piano lesson with Ines, it moved to 4 PM on Tuesdays."
    statement = "The user asked to be reminded that it moved to 4 PM on Tuesdays."
    assert resolved(statement, message) == [
        Reading(
            "the piano lesson with Ines",
            "The user asked to be reminded that the piano lesson with Ines moved to 4 PM on Tuesdays.",
        )
    ]


def test_no_reading_without_a_pronoun_or_when_the_message_does_not_say_it() -> None:
    assert resolved("The lease ends in May.", "The lease ends in May, it says.") == []
    assert resolved("It was moved to Friday.", "The demo was cancelled.") == []


@pytest.mark.parametrize(
    "text",
    [
        "We started on May 2 and it's now June 30.",
        "It's been 3 weeks since the move.",
        "It was 9 PM by then.",
        "It's been a few months, honestly.",
    ],
)
def test_the_it_of_a_time_or_a_span_stands_for_nothing(text: str) -> None:
    assert pronoun_at(text) is None
    assert resolved(text, f"I talked to my landlord about the lease. {text}") == []
