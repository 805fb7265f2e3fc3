"""An amount spent and an amount allowed are two attributes (`language.amount_roles`)."""

from __future__ import annotations

import pytest

from language.amount_roles import role_of, roles_clash, same_allowance

SPENDING = "Tomas spent $61 on board games in March, which is $11 over his $50 monthly budget."


@pytest.mark.parametrize(
    ("sentence", "said", "role"),
    [
        (SPENDING, "$61", "spent"),
        (SPENDING, "$50", "allowed"),
        (SPENDING, "$11", None),
        ("He wants to use his increased April game budget of $70 on a new title.", "$70", "allowed"),
        ("Tomas raised his game budget to $70.", "$70", "allowed"),
        ("The API limit is 800 requests a day.", "800", "allowed"),
        ("She put it off because of the 800 daily request limit.", "800", "allowed"),
        ("The tracker stays under the 500 rows/day import cap.", "500", "allowed"),
        ("The repair cost me about $300.", "$300", "spent"),
        ("I paid $45 for the tickets.", "$45", "spent"),
        ("Our outgoings come to about $2,800 a month.", "$2,800", "spent"),
        ("We pay $90 in bills every week.", "$90", "spent"),
        ("It comes to $120 in monthly costs.", "$120", "spent"),
        ("I saved $300 this month.", "$300", None),
        ("The tickets are $45 each.", "$45", None),
    ],
)
def test_the_role_of_an_amount(sentence: str, said: str, role: str | None) -> None:
    assert role_of(sentence, said) == role


def test_only_spent_against_allowed_clashes() -> None:
    budget = "Tomas raised his game budget to $70."
    assert roles_clash(SPENDING, "$61", budget, "$70")
    assert not roles_clash(SPENDING, "$50", budget, "$70"), "a budget replaces a budget"
    assert not roles_clash("I paid $45 for the tickets.", "$45", "I paid $52 for the tickets.", "$52")
    assert not roles_clash("I saved $300 this month.", "$300", budget, "$70"), "no role: other rules decide"


def test_a_limit_and_a_quota_of_one_period_are_one_allowance() -> None:
    limit = "Given the 400 daily upload limit, the crew batches its photos."
    assert same_allowance(limit, "400", "The new daily quota is 550 uploads per day.", "550")
    assert not same_allowance(limit, "400", "The new weekly quota is 2,500 uploads.", "2,500"), "another period"
    assert not same_allowance(limit, "400", "The crew uploaded 550 photos per day.", "550"), "not an allowance"
    slashed = "How do I keep the sync under the 20 uploads/hour and 400 uploads/day limits?"
    assert same_allowance(slashed, "400", "The new daily quota is 550 uploads per day.", "550"), (
        "a period after a slash"
    )
    assert not same_allowance(slashed, "20", "The new daily quota is 550 uploads per day.", "550"), "per hour"
