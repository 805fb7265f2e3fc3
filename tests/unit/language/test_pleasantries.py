"""Thanks and sign-offs are social glue, not memory (`language.chatter.is_pleasantry`), on sentences
written for this test; a sentence that opens the same way and goes on to say something stays."""

from __future__ import annotations

import pytest

from language.chatter import classify_sentence, is_acknowledgement, is_pleasantry, is_small_talk_question, says_nothing

PLEASANTRIES = [
    "Thanks for the help with my tax questions!",
    "Thanks so much for walking me through the loan maths.",
    "Okay, thank you for the detailed comparison of the two phones.",
    "I really appreciate the breakdown of the schedule!",
    "I'll keep practising and come back if I get stuck.",
    "I'll get back to you later!",
    "Sure, I'll check back when I have the numbers.",
    # taking leave, with the wishes that go with it
    "I have to run, have a lovely evening.",
    "Okay, I should get going now. Talk soon!",
    "Gotta head out, see you later, Priya!",
    "Good night and take care.",
    "Have a wonderful day today!",
    "Enjoy your evening, Tomas!",
]
NOT_PLEASANTRIES = [
    "Thanks to my coach, I finally ran a marathon.",  # a cause, not thanks
    "Thanks for the tip, I bought the blue kettle yesterday.",  # goes on to a fact of the speaker's
    "Thank you for recommending the book club; we now meet every Tuesday.",
    "Thanks for checking, the invoice was 3 days late.",  # a value
    "I will reach out to my landlord about the leak tomorrow.",  # to someone else, about something
    "OK, I'll let you know how the interview goes.",  # says there is an interview
    "I'll come back to the garden plan once the quotes arrive.",
    "I have to go to the clinic on Monday.",  # where the speaker has to go
    "I have to run 12 km for the qualifier.",
    "I need to go now, see you at the climbing wall on Friday.",
    "Gotta run, my night shift starts at 9.",
    "Enjoy your weekend in Lisbon with the kids!",  # where the listener will be
]


@pytest.mark.parametrize("sentence", PLEASANTRIES)
def test_thanks_and_sign_offs_are_chatter(sentence: str) -> None:
    assert is_pleasantry(sentence)
    assert classify_sentence(sentence) == "chatter"


@pytest.mark.parametrize("sentence", NOT_PLEASANTRIES)
def test_sentences_that_say_something_are_not_pleasantries(sentence: str) -> None:
    assert not is_pleasantry(sentence)


ACKNOWLEDGEMENTS = [
    "Got it, Bruno.",
    "Understood, thanks!",
    "Sure, I'll keep that in mind for you going forward.",
    "Okay, I've noted it down (ticket 88-1).",
    "I will remember that, Mira.",
    "Will do!",
    "Yeah, that makes total sense now.",
    "It made sense.",
    "That sounds like a really workable plan.",  # the proposal judged, nothing added
    "This seems a sensible approach, thanks.",
    "Sounds like a plan!",
]
NOT_ACKNOWLEDGEMENTS = [
    "Got it, the ferry leaves at 7:40.",  # goes on to a value
    "Noted: your lease ends on 30 June.",
    "I'll remember that you take oat milk.",  # says what is kept
    "I'll keep that in mind when I plan the 3-day hike.",
    "Understood, so the budget is now $900?",
    "It makes sense that the bus is faster on Sundays.",  # says what makes sense
    "A bank loan seems a good plan for the new roof.",  # says what the plan is
    "That sounds like a plan to save 400 pounds.",
]


@pytest.mark.parametrize("sentence", ACKNOWLEDGEMENTS)
def test_a_receipt_of_what_was_said_is_chatter_whatever_aside_it_carries(sentence: str) -> None:
    assert is_acknowledgement(sentence)
    assert classify_sentence(sentence) == "chatter"


@pytest.mark.parametrize("sentence", NOT_ACKNOWLEDGEMENTS)
def test_a_receipt_that_goes_on_to_say_what_was_kept_is_not_mere_acknowledgement(sentence: str) -> None:
    assert not is_acknowledgement(sentence)
    assert classify_sentence(sentence) != "chatter"


def test_a_message_says_nothing_only_when_every_sentence_is_glue() -> None:
    assert says_nothing("Thanks, that helps. I'll keep that in mind for you, Bruno (ref 3.9).")
    assert not says_nothing("Thanks, that helps. My train leaves at six.")
    assert not says_nothing("Got it. Which platform does it leave from?"), "a question says something"
    assert not says_nothing("")


@pytest.mark.parametrize("sentence", ["I'm kinda curious.", "Just wondering!", "Hmm, I'm really curious."])
def test_announcing_a_question_says_nothing(sentence: str) -> None:
    assert classify_sentence(sentence) == "chatter"


@pytest.mark.parametrize("sentence", ["I'm curious about glass blowing.", "I was wondering about the lease all week."])
def test_what_the_speaker_is_curious_about_is_said(sentence: str) -> None:
    assert classify_sentence(sentence) == "statement"


@pytest.mark.parametrize(
    ("question", "small_talk"),
    [
        ("Guess what?", True),
        ("Hey Priya, how are you doing?", True),
        ("How have you been, Tomas?", True),
        ("So, how's everything going?", True),
        ("How was your weekend?", False),  # sets the time the reply speaks of
        ("How is the new studio going?", False),
        ("What's new with the bakery?", False),
    ],
)
def test_a_question_that_only_greets_or_teases_is_small_talk(question: str, small_talk: bool) -> None:
    assert is_small_talk_question(question) is small_talk
