"""A chat sentence that leaves out its "I" (`language.ellipsis`), on sentences written for these tests."""

from __future__ import annotations

import pytest

from language.ellipsis import with_subject
from language.person import to_third_person


@pytest.mark.parametrize(
    ("said", "restored"),
    [
        ("Haven't seen the new stadium yet.", "I haven't seen the new stadium yet."),
        ("Couldn't find the charger anywhere.", "I couldn't find the charger anywhere."),
        ("Painted it blue last weekend.", "I painted it blue last weekend."),
        ("Rode the ferry twice, loved it.", "I rode the ferry twice, loved it."),
        ("Also sold my old kayak.", "I also sold my old kayak."),
        ("Been knitting every evening.", "I've been knitting every evening."),
        ("Gotta renew my passport soon.", "I gotta renew my passport soon."),
        ("Gonna repaint the fence.", "I'm gonna repaint the fence."),
        ("Appreciate the ride home.", "I appreciate the ride home."),
        ("Really hope the ferry runs on Sunday.", "I really hope the ferry runs on Sunday."),
        ("Miss those long dinners at Nana's.", "I miss those long dinners at Nana's."),
        ("Need a new tent for the festival.", "I need a new tent for the festival."),
        ("Thrilled to be here!", "I'm thrilled to be here!"),
        ("Worried about the exam.", "I'm worried about the exam."),
        ("Proud of my brother for finishing the marathon.", "I'm proud of my brother for finishing the marathon."),
        ("Looking forward to the reunion in May.", "I'm looking forward to the reunion in May."),
        ("Hoping to move out by autumn.", "I'm hoping to move out by autumn."),
        ("Hoping Lena's novel makes the shortlist.", "I'm hoping Lena's novel makes the shortlist."),
        ("Thinking of learning the cello.", "I'm thinking of learning the cello."),
        ("Wanted to say the quilt arrived.", "I wanted to say the quilt arrived."),
        ("Got to meet the author after the reading.", "I got to meet the author after the reading."),
        # each sentence on its own: the second one leaves its "I" out too
        ("The bus was late. Walked home in the rain.", "The bus was late. I walked home in the rain."),
    ],
)
def test_the_left_out_i_is_put_back(said: str, restored: str) -> None:
    assert with_subject(said) == restored


@pytest.mark.parametrize(
    "said",
    [
        "Sounds lovely!",  # its subject is "it"
        "Looks like rain.",
        "Thrilled!",  # a feeling with nothing it is about
        "Love and patience go a long way.",  # a noun before "and"
        "Hope is a good breakfast.",
        "Guess what, the bakery reopened.",  # a set phrase
        "Wish me luck!",  # an order
        "Miss Lee teaches piano.",  # a title
        "Love, Grandma",  # a closing
        "Thinking about the trip keeps me awake.",  # the opening phrase is the subject
        "Started to rain after lunch.",  # what started need not be the speaker
        "Let me know when you land.",  # a base form as often as a past
        "Put the kettle on.",
        "Been a long month.",  # "it has been"
        "Gonna be a busy day.",  # "it's gonna be"
        "Got any tips for a beginner?",  # a question keeps its words
        "Haven't you heard?",
        "Relaxed.",  # nothing after the verb says it was done
        "Bought by a collector in 1990.",  # a participle before "by": no object, no time
        "thanks, took a while though.",  # a line typed in lower case is not read as a sentence start
    ],
)
def test_other_openings_keep_their_words(said: str) -> None:
    assert with_subject(said) == said


def test_the_restored_subject_is_named_in_the_third_person() -> None:
    assert to_third_person(with_subject("Haven't tried it yet."), "Rosa") == "Rosa hasn't tried it yet."
    assert to_third_person(with_subject("Finished my thesis draft."), "Rosa") == "Rosa finished Rosa's thesis draft."
    assert to_third_person(with_subject("Been swimming a lot."), "Rosa") == "Rosa has been swimming a lot."
    assert to_third_person(with_subject("Hope the ferry runs on time."), "Rosa") == "Rosa hopes the ferry runs on time."
    assert to_third_person(with_subject("Glad to be back in Lisbon."), "Rosa") == "Rosa is glad to be back in Lisbon."
    assert to_third_person(with_subject("Looking forward to June."), "Rosa") == "Rosa is looking forward to June."


def test_only_the_sentences_a_caller_accepts_get_their_subject_back() -> None:
    text = "Been to Porto twice. Can't wait to go back."
    assert with_subject(text) == "I've been to Porto twice. I can't wait to go back."
    assert with_subject(text, only=lambda sentence: "Porto" in sentence) == (
        "I've been to Porto twice. Can't wait to go back."
    )
