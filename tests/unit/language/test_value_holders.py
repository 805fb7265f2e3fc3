"""What a value belongs to (`language.value_holders`), on sentences written for this test: the
counted noun, what an amount or a percentage is for, the event a day or a time schedules; and
when two holders are one noun qualified alike or two things."""

from __future__ import annotations

import pytest

from language.changes import values_in
from language.value_holders import Holder, counts_the_same_people, holder_of, holders_clash, same_holder


def _holder(sentence: str, value: str) -> Holder | None:
    found = [v for v in values_in(sentence) if v.text == value]
    assert found, f"{value!r} is not a value of {sentence!r}"
    return holder_of(sentence, found[0].start, found[0].end)


@pytest.mark.parametrize(
    ("sentence", "value", "head", "modifiers"),
    [
        ("I have lined up 4 job offers from design studios so far.", "4", "offer", {"job"}),
        ("The number of piano pupils I teach has grown to 11.", "11", "pupil", {"piano"}),
        ("My monthly allowance for groceries went up to $420 last week.", "$420", "allowanc", {"monthly", "grocery"}),
        ("I reached 64% coverage of the billing module.", "64%", "coverag", {"bill", "modul"}),
        ("The user's snack budget for the party is $40.", "$40", "budget", {"snack", "party"}),
        ("The user has raised the party snack budget to $55.", "$55", "budget", {"party", "snack"}),
        ("The deadline for the grant application was pushed back to October 19.", "October 19", "deadlin", None),
        ("Ana has a call with the landlord on March 3 at 9 AM.", "9 AM", "call", {"landlord"}),
        ("I spent 5 hours of overtime on the report.", "5", "overtim", None),
        ("He set aside $1,200 for the conference trip.", "$1,200", "trip", {"conferenc"}),
        ("The user's daily API quota is 500 requests.", "500", "quota", None),
        ("She has allocated $2,000 for initial trademark filing fees.", "$2,000", "fee", None),
        ("The gallery now shows 9 paintings using a new frame style.", "9", "paint", set()),
        ("The user has added two new rooms to the plan.", "two", "room", set()),
        ("The water bill was lowered to $64 monthly last spring.", "$64", "bill", {"water"}),
        ("The yoga retreat costs $310 per person.", "$310", "retreat", {"yoga"}),
        # a relative clause with its own subject between the holder and its value
        ("The number of volunteers I have coordinated with has grown to 12.", "12", "volunteer", set()),
        ("The number of students the user has tutored went up to 9.", "9", "student", set()),
        ("The clients Priya looks after rose to 9.", "9", "client", set()),
    ],
)
def test_the_holder_is_what_the_value_belongs_to(
    sentence: str, value: str, head: str, modifiers: set[str] | None
) -> None:
    found = _holder(sentence, value)
    assert found is not None
    assert found.head == head
    if modifiers is not None:
        assert found.modifiers == modifiers


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("It was moved to Friday at 10.", "Friday"),  # a pronoun names nothing
        ("Priya has budgeted $90 for it.", "$90"),  # a name is whose value it is, not what it is of
        ("The gym is open until 9 PM.", "9 PM"),
        ("Ten years already.", "Ten"),  # a word of time is no holder
        ("She is 4 years old.", "4"),  # an age is its being's, and a pronoun names none
        ("We chip in $25 weekly towards the choir.", "$25"),  # how often is not what of
    ],
)
def test_no_holder_when_the_words_name_none(sentence: str, value: str) -> None:
    assert _holder(sentence, value) is None


def _pair(one: tuple[str, str], other: tuple[str, str]) -> tuple[Holder, Holder]:
    a, b = _holder(*one), _holder(*other)
    assert a is not None and b is not None
    return a, b


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (("I have 3 job offers so far.", "3"), ("How should I weigh the 5 job offers I got?", "5")),
        (("The user's snack budget for the party is $40.", "$40"), ("I raised the party snack budget to $55.", "$55")),
        (
            ("The dentist appointment with Dr. Lee is on June 3.", "June 3"),
            ("Shifting the dentist appointment with Dr. Lee to June 5 could clash with work.", "June 5"),
        ),
        (("My book budget is $30 a month.", "$30"), ("I worry the budget for books at $45 is too high.", "$45")),
    ],
)
def test_one_noun_qualified_alike_is_one_holder(one: tuple[str, str], other: tuple[str, str]) -> None:
    a, b = _pair(one, other)
    assert same_holder(a, b, one[0], other[0])


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (("I reached 64% coverage of the billing module.", "64%"), ("I hit 80% coverage of the search module.", "80%")),
        (("The user's parking fee is $40.", "$40"), ("The user's gym fee went up to $55.", "$55")),
        (
            ("The call with the landlord is on March 3.", "March 3"),
            ("The call with the plumber was moved to March 5.", "March 5"),
        ),
    ],
)
def test_one_noun_qualified_otherwise_is_two_things(one: tuple[str, str], other: tuple[str, str]) -> None:
    a, b = _pair(one, other)
    assert holders_clash(a, b, one[0], other[0])
    assert not same_holder(a, b, one[0], other[0])


def test_another_noun_is_not_the_same_holder() -> None:
    a, b = _pair(("I have 3 job offers.", "3"), ("I have 3 interviews lined up, and 5 rejections.", "5"))
    assert not same_holder(a, b, "I have 3 job offers.", "I have 3 interviews lined up, and 5 rejections.")


@pytest.mark.parametrize(
    ("derived", "counted", "same"),
    [
        (("The number of trainees rose to 9.", "9"), ("I trained 6 new hires in March.", "6"), True),
        (
            ("The number of mentees grew to 6.", "6"),
            ("I enjoy mentoring those 4 girls from the robotics club.", "4"),
            True,
        ),
        (("The number of nominees went up to 5.", "5"), ("We nominated 3 colleagues for the award.", "3"), True),
        (
            ("The number of mentees in the robotics program grew to 6.", "6"),
            ("I enjoy mentoring those 4 girls from the robotics club.", "4"),
            True,
        ),
        # "mentioned" is not the verb "mentee" comes from, models are no people, another verb's "-ee"
        (("The number of mentees grew to 6.", "6"), ("I mentioned those 4 girls from the robotics club.", "4"), False),
        (("The number of trainees rose to 9.", "9"), ("I trained 6 models in March.", "6"), False),
        (("The number of interviewees rose to 9.", "9"), ("I trained 6 new hires in March.", "6"), False),
    ],
)
def test_an_ee_noun_counts_the_people_its_verb_names(
    derived: tuple[str, str], counted: tuple[str, str], same: bool
) -> None:
    one, other = _holder(*derived), _holder(*counted)
    assert one is not None and other is not None
    assert counts_the_same_people(one, other, derived[0], counted[0]) is same
    assert counts_the_same_people(other, one, counted[0], derived[0]) is same
