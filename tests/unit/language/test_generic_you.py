"""Which "you" means anyone and which the listener (`language.generic_you`), on sentences written
for this test: the words before the "you" and after it."""

from __future__ import annotations

import pytest

from language.generic_you import generic_in_sentence, is_generic_you


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("If ", " practise daily, the scales get easy"),
        ("Cold water makes ", " feel awake"),
        ("", " can never tell with ferries"),
        ("It's a long climb, ", " know?"),
        ("On the ice ", " must be careful with every step"),
        ("If ", " tried it once, the taste stays"),  # a past after a condition is anyone's
        ("", " had to queue for hours back then"),  # "had to": a duty, anyone's
        ("The trick is a hobby that keeps ", " motivated."),  # "you" the object: "motivated" describes it
        ("A cold shower makes ", " energized for the day"),
        # an activity holding the "you", judged as a whole: what it is like for anyone
        ("Having neighbours who look out for ", " is a real comfort"),
        ("Cooking something ", " grow yourself can be so satisfying"),
        ("Waking up before the people around ", " is underrated"),
    ],
)
def test_anyone(before: str, after: str) -> None:
    assert is_generic_you(before, after)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("I was wondering if ", " could read my draft"),
        ("I'm hoping ", " can come on Friday"),
        ("Maybe ", " could help me with the move"),
        ("Thanks for any tips ", " can share"),
        ("I'd appreciate it if ", " could check the invoice"),
        ("I think ", " know my cousin Ana"),
        ("I'll let ", " know on Monday"),
        ("I won't let ", " down at the final"),  # a negated speaker acts on the listener too
        ("We never made ", " wait that long"),
        ("So cool ", " found a pottery class"),  # what the listener did, once
        ("Glad ", " were at the match"),
        ("I bet ", " can't wait to see the coast"),
        ("Does swimming make ", " hungry?"),  # a question of what it does to the listener
        ("Any apps that help ", " stay on budget?"),
        ("It'd be fun if ", " and the kids came too"),
        ("I bet ", " must have been exhausted after the race"),
        ("", " must've loved the view"),
        # a thing, or an activity done to or with the listener, is theirs
        ("Something ", " said is true"),
        ("Everything ", " baked was gone by noon"),
        ("Seeing ", " at the harbour was the best part"),
        ("Talking to ", " is always fun"),
    ],
)
def test_the_listener(before: str, after: str) -> None:
    assert not is_generic_you(before, after)


def yous(sentence: str) -> list[tuple[str, str]]:
    parts = sentence.split(" you")
    return [(" you".join(parts[: n + 1]) + " ", " you".join(parts[n + 1 :])) for n in range(len(parts) - 1)]


@pytest.mark.parametrize(
    "sentence",
    [
        "I hope you land the job soon so you can move out of the dorm",  # "so you can": the same listener
        "I'm always here for you whenever you want to talk",
        "Haven't spoken to you in ages but wanted to let you know I passed the bar exam",
        "I'm so proud of you, once you set a goal you reach it",
        "I remember when you started the choir",
        "If you need a lift to the station, just text me",  # an offer
        "Whenever you want to swap books, I'm around",
        "Just so you know, the shop closes at noon",
        "Do send us a photo when you reach the summit",  # asked of the listener
        "Does it cheer you up when you hear the band?",  # a question put to the listener
        "Do you have friends you can call at night?",  # a question put to the listener
        "How did it feel when you crossed the line?",  # what the listener did, once
        "Let me know when you land in Oslo",
        "I'll send you the photos when you get back",  # the speaker gives the listener something
        "When you visit, I'll show you the new kiln",
    ],
)
def test_a_sentence_that_plainly_speaks_to_the_listener_does_so_throughout(sentence: str) -> None:
    assert not generic_in_sentence(yous(sentence))


@pytest.mark.parametrize(
    "sentence",
    [
        "If you water them at night, you get mould",
        "I think if you warm up first you can't get hurt",  # the condition comes before the listener
        "A long walk makes you sleep better",
        "If you want strong roots, you water the tree less",  # no offer: "you" after the condition is anyone
        "When you cook rice, I always tell people to rinse it",  # the speaker tells others, not the listener
        "Then once you get the knack, it's all easy, right?",  # a question of anyone's habit
    ],
)
def test_a_sentence_about_anyone_stays_so(sentence: str) -> None:
    assert generic_in_sentence(yous(sentence))


def test_a_sentence_that_does_not_say_is_the_listeners() -> None:
    assert not generic_in_sentence(yous("It's like finding your own place in the world"))
