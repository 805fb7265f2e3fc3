"""Replies that answer the listener's news rather than tell the speaker's own
(`language.chatter.answers_the_listener`), and feelings said without "I'm" (`is_own_feeling`); on
sentences written for these tests, with look-alikes the rules must leave alone."""

from __future__ import annotations

import pytest

from language.chatter import classify_sentence, is_own_feeling
from language.statements import statement_units


@pytest.mark.parametrize(
    "text",
    [
        "Congrats on the new job at the bakery!",
        "Congratulations on finishing the marathon, what a day.",
        "Thanks so much for the tip about the night train.",
        "So glad you found a flat near the river.",
        "Sorry to hear about the flood in the basement.",
        "I'm thrilled for you about the puppy!",
        "That must have been exhausting.",
        "Must be so rewarding to teach those kids.",
        "You must be so proud of Leo.",
        "It must be hard living so far from your family.",
        "Sounds like the move went well.",
        "Sounds like Biscuit really is your shadow.",
        "That sounds so fun!",
        "Can't wait to see the photos of the garden.",
        "Can't wait to hear how the interview goes.",
        "Cool to hear about your pottery group!",
        "Great to see you back on the court.",
        "It's so good to hear the surgery went well.",
        "So cool you found a choir that rehearses on Sundays.",
        "Great that you're back on the bike.",
    ],
)
def test_a_reply_to_the_listeners_news_is_chatter(text: str) -> None:
    assert classify_sentence(text) == "chatter"


@pytest.mark.parametrize(
    "text",
    [
        "Thanks to the new coach, my serve is much faster now.",
        "Congrats to my brother, who passed the bar exam.",
        "I'm sorry I missed your call, I was at the dentist.",
        "Can't wait to see my sister in June.",
        "You must be 18 or older to join the climbing gym.",
        "The form must be signed by a parent.",
        "It sounds like a plan, I'll book the cabin for June 3.",
        "Sounds like the rent goes up to $950 in March.",
        "I'm glad I switched to the night shift.",
        "Glad to be part of the choir this year.",
        "Great that the bakery reopened, I missed their rye.",
        # a wish repeats the listener's plan ("kayaking and bungee jumping") in the words a question
        # may quote, where the listener said it with a "maybe": it is kept
        "Have fun with the kayaking and bungee jumping!",
    ],
)
def test_look_alikes_that_tell_something_stay_statements(text: str) -> None:
    assert classify_sentence(text) == "statement"


def test_a_feeling_said_without_im_is_the_speakers_own() -> None:
    assert is_own_feeling("Proud to be on the rowing team.")
    assert is_own_feeling("Yeah, excited to start at the clinic on Monday.")
    assert not is_own_feeling("Glad to help!"), "answers a thanks"
    assert not is_own_feeling("Glad to hear it."), "answers the listener's news"
    assert not is_own_feeling("Happy to see you guys."), "about the listener"


@pytest.mark.parametrize(
    "text",
    [
        "I'll keep you posted!",
        "Will keep you updated on the garden.",
        "Let me know how the exam goes.",
        "Keep me updated on the puppy.",
        "I'll always be here for you.",
        "Looking forward to our next chat!",
        "I'm really looking forward to the next catch-up.",
    ],
)
def test_keeping_in_touch_is_chatter(text: str) -> None:
    assert classify_sentence(text) == "chatter"


@pytest.mark.parametrize(
    "text",
    [
        "Let me know by Friday the 12th if you still want the bike.",
        "I'll keep working on the boat until the engine runs again next spring, whatever it takes and costs.",
        "I'll keep the spare key under the blue pot by the door.",
        "Looking forward to the next match against Leeds.",
    ],
)
def test_look_alikes_of_keeping_in_touch_stay_statements(text: str) -> None:
    assert classify_sentence(text) == "statement"


def test_saying_back_is_a_reaction_only_to_a_person() -> None:
    said = "It sounds like the evening course suits my schedule best."
    assert classify_sentence("Sounds like the move went well.") == "chatter"
    assert classify_sentence("Sounds like the move went well.", to_person=False) == "statement", (
        "to an assistant it is the speaker's own conclusion"
    )
    assert classify_sentence(said, to_person=False) == "statement"
    assert classify_sentence("Congrats on the new job!", to_person=False) == "chatter", (
        "thanks and congratulations alike"
    )


def test_a_reply_to_a_persons_news_is_no_advice() -> None:
    people = ("Ines", "Tariq")
    assert statement_units("Wow, it sounds like that cabin holds a lot of memories.", people, to_person=True) == []
    [advice] = statement_units("Find a tailor who can take in the jacket before Friday.", people, to_person=True)
    assert advice.kind == "suggested"


def test_good_to_see_ones_own_people_or_doing_says_something() -> None:
    assert classify_sentence("Great to see my cousins in Lyon after 5 years.") == "statement"
    [unit] = statement_units("So cool to dive into car restoration at the San Francisco workshop.")
    assert unit.text.lower().startswith("cool to dive into car restoration"), "the judgement's word is not cut"
