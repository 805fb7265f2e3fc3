"""The language layer on sentences written for these tests (not taken from the fixtures or the
evaluation sets): who speaks, what is chatter, what is a statement."""

from __future__ import annotations

from collections import Counter
from datetime import UTC

import pytest

from language.chatter import caption_subject, classify_sentence, read_sentences, sentences
from language.dates import said_on, stamp_day, stamped, without_stamp
from language.speakers import other_participant, participants, split_speaker


@pytest.mark.parametrize(
    "text",
    [
        "Hiya Tom!",
        "Thanks so much, that means a lot.",
        "Congrats, you totally deserve it!",
        "Haha, so true.",
        "Take care and talk soon!",
        "That's wonderful news.",
        "You're so brave.",
        "Glad to hear it went well.",
        "Aww, I'm so sorry to hear that.",
        "Good luck!",
        "Sounds amazing!",
        "Love that.",
    ],
)
def test_social_glue_is_chatter(text: str) -> None:
    assert classify_sentence(text) == "chatter"


@pytest.mark.parametrize(
    "text",
    [
        "My brother moved to Denver in March.",
        "I started volunteering at the animal shelter.",
        "We adopted a second cat named Pixel.",
        "The bakery on Fifth Street closed last year.",
        "Tom is allergic to peanuts.",
        "I finished my first marathon in 4 hours 12 minutes.",
    ],
)
def test_facts_are_statements(text: str) -> None:
    assert classify_sentence(text) == "statement"


@pytest.mark.parametrize("text", ["Where did you grow up?", "Have you ever tried climbing?"])
def test_questions_are_never_facts(text: str) -> None:
    assert classify_sentence(text) == "question"


def test_code_is_not_a_fact() -> None:
    assert classify_sentence("result = compute_total(items)") == "code"
    assert classify_sentence("for item in basket: total += item.price") == "code"


def test_sentences_split_and_captions_stand_apart() -> None:
    text = "I repainted the kitchen. It took all weekend! [shares a photo: a photo of a yellow kitchen]"
    assert sentences(text) == [
        "I repainted the kitchen.",
        "It took all weekend!",
        "[shares a photo: a photo of a yellow kitchen]",
    ]
    kinds = [s.kind for s in read_sentences(text)]
    assert kinds == ["statement", "statement", "caption"]
    assert caption_subject("[shares a photo: a photo of a yellow kitchen]") == "a yellow kitchen"


def test_speaker_prefix_names_the_speaker_only_when_it_is_a_name() -> None:
    assert split_speaker("Priya: I passed the bar exam.") == ("Priya", "I passed the bar exam.")
    assert split_speaker("Mary Ann: We sold the boat.").name == "Mary Ann"
    assert split_speaker("Note: the meeting moved.").name is None
    assert split_speaker("I said: no more.").name is None
    assert split_speaker("priya: lower case is not a name prefix").name is None


def test_two_person_chat_you_is_the_other() -> None:
    names = participants(["Priya: hi", "Omar: hello", "Priya: how are you?"])
    assert names == ("Priya", "Omar")
    assert other_participant("Priya", names) == "Omar"
    assert other_participant("Omar", names) == "Priya"
    assert other_participant("Priya", ("Priya", "Omar", "Lee")) is None  # three people: "you" is ambiguous


def test_statement_stamp_round_trips() -> None:
    from datetime import date, datetime

    text = stamped("Priya passed the bar exam.", datetime(2024, 2, 3, 10, tzinfo=UTC))
    assert text == "[2024-02-03] Priya passed the bar exam." and said_on(date(2024, 2, 3)) == "[2024-02-03]"
    assert without_stamp(text) == "Priya passed the bar exam."
    assert stamp_day(text) == date(2024, 2, 3)
    older = "Priya passed the bar exam. (said on 2024-02-03)"  # memories written before the stamp led
    assert without_stamp(older) == "Priya passed the bar exam." and stamp_day(older) == date(2024, 2, 3)


def test_who_the_two_people_call_each_other() -> None:
    from language.speakers import addressed_names, addressee

    said_to_her = ["Hey Rosalind! How was Crete?", "Thanks, Ros!", "Morning Rosalind, any news?", "Hi Ros."]
    assert addressee(addressed_names(said_to_her)) == "Rosalind", "a short form counts as the full name"
    assert addressee(addressed_names(["Hey Tom!"])) is None, "once is not yet a name"


def test_short_names_are_the_shortened_names_people_are_called_by() -> None:
    from language.speakers import short_names

    people = ("Rosalind", "Theodore")
    called = Counter({"Ros": 2, "Theo": 3, "Roz": 4, "Rosalind": 5, "Th": 1, "Al": 6})
    assert short_names(people, called) == ("Ros", "Theo"), "twice, and the start of a person's name"
    assert short_names((), called) == (), "no names known, no short forms"
    assert short_names(("Rosalind",), Counter({"Ros": 2, "Rosa": 2})) == ("Ros", "Rosa")


def test_an_assistant_that_writes_like_a_person_is_one() -> None:
    from language.speakers import speaks_as_person

    user = ["How was the weekend?", "We painted the fence.", "Any plans for the summer?"] * 4
    person = ["My sister visited and we went to the lake.", "I bought a kayak last week!", "Not much, work."] * 4
    bot = ["## Plan\n- Step one: check the fence for rot before painting it.\n- Step two: sand it."] * 12
    assert speaks_as_person(person, user)
    assert not speaks_as_person(bot, user), "markup"
    long_plain = [" ".join(["The fence needs two coats of stain and a day to dry between them."] * 6)] * 12
    assert not speaks_as_person(long_plain, user), "answers far longer than the user's turns"
    assert not speaks_as_person(["Your ticket 4411 is open.", "The router was reset remotely."] * 6, user)
