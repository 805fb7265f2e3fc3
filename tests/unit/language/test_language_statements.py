"""What a message states (`language.statements`, `language.markup`, `language.values`), on sentences
written for these tests: nothing here is taken from the fixtures or the evaluation sets."""

from __future__ import annotations

import pytest

from language.markup import plain_text
from language.statements import (
    Unit,
    announces,
    is_fragment,
    leans_back,
    requested_action,
    statement_units,
    without_tag,
)
from language.values import carries_value, new_values


def texts(text: str, **kwargs) -> list[str]:
    return [u.text for u in statement_units(text, **kwargs)]


def test_a_statement_is_kept_whole_when_the_rest_carries_values() -> None:
    said = "I have two dogs, Pepper who is 3 and Miso who is 9, and they sleep in the barn."
    assert texts(said) == [said]
    aside = "My uncle Farid, who's 61 and a ferry captain, retired in Tromso on March 2, 2021."
    assert texts(aside) == [aside], "a relative clause inside a statement is not a question"


def test_only_the_asking_pieces_are_set_aside() -> None:
    assert texts("My train leaves at 7:40, can you set an alarm?") == ["My train leaves at 7:40"]
    units = statement_units(
        "I'm planning the party, can you help me pick a cake, my sister booked the hall for June 8?"
    )
    assert [u.kind for u in units] == ["statement"]
    assert units[0].text == "I'm planning the party, my sister booked the hall for June 8"


def test_a_statement_before_a_should_question_is_kept() -> None:
    units = statement_units(
        "I've booked the dyeing studio for June 3-5 in Ghent, with 3 sessions at $90 each, should I ask for a discount?"
    )
    assert [(u.kind, u.text) for u in units] == [
        ("statement", "I've booked the dyeing studio for June 3-5 in Ghent, with 3 sessions at $90 each"),
    ]  # the question itself carries no value of its own


def test_a_value_stated_inside_a_question_is_kept_as_asked() -> None:
    [unit] = statement_units("Should I move my dentist visit now that it was pushed to April 14?")
    assert unit.kind == "asked" and "April 14" in unit.text
    assert statement_units("How was your weekend?") == [], "a question without a value states nothing"
    assert statement_units("Have you ever been to Lisbon?") == [], "nothing of the speaker's own world"


def test_what_is_asked_keeps_values_the_statement_lacks() -> None:
    units = statement_units("I'm nervous about the audit, so can you explain why it moved to 3 weeks from now?")
    assert [(u.kind, u.text.split(",")[0]) for u in units] == [
        ("statement", "I'm nervous about the audit"),
        ("asked", "can you explain why it moved to 3 weeks from now?"),
    ]


def test_a_request_of_ones_own_keeps_its_topic() -> None:
    """What was asked for, with its topic, not only that help was asked for."""
    units = statement_units("Could you help me plan the move of my pottery studio into the old granary?")
    assert [(u.kind, u.text) for u in units] == [
        ("asked", "Could you help me plan the move of my pottery studio into the old granary?")
    ]
    beside = statement_units("My choir sings on Friday, can you help me rehearse the alto harmonies for those songs?")
    assert [u.kind for u in beside] == ["statement", "asked"]
    assert statement_units("Can you help me with that?") == [], "no topic"
    assert texts("My train leaves at 7:40, can you set an alarm?") == ["My train leaves at 7:40"], "too little"
    assert statement_units("Could you help me plan the move of my pottery studio?", to_person=True) == [], (
        "to a person, a request is not the speaker's own record"
    )


def test_a_tag_question_is_a_statement() -> None:
    assert without_tag("Lilies stand for renewal, right?") == "Lilies stand for renewal"
    assert without_tag("Where is the key?") is None
    assert texts("Lilies stand for renewal, don't they?") == ["Lilies stand for renewal"]


def test_the_speakers_own_world_said_with_a_rising_tone_is_a_statement() -> None:
    said = "It has really got me into sailing and maybe even diving? The sea calms me."
    assert [u.text for u in statement_units(said, to_person=True)][:1] == [
        "It has really got me into sailing and maybe even diving"
    ]
    assert statement_units("You've been to Lyon?", to_person=True) == [], "it asks the listener"
    assert statement_units("I should pack a raincoat?", to_person=True) == [], "it asks what to do"
    assert statement_units("My question is how I fix the tap?", to_person=True) == []


def test_a_sentence_leaning_on_the_one_before_joins_it() -> None:
    [unit] = statement_units("I finally watched the new documentary about glaciers. It was long but moving.")
    assert unit.text == "I finally watched the new documentary about glaciers. It was long but moving."
    first, *_ = statement_units("It lasted about an hour, then we drove home.")
    assert first.leans_back, "at the start of a message it leans on the message it answers"


@pytest.mark.parametrize(
    "answer",
    [
        "I sold it last spring, the garage was too full.",  # what was sold is in the question
        "Haven't been there yet, maybe in June.",
        "We planted them along the fence.",
        "I tried it once.",
        "I'm a huge fan of them, so I started collecting them.",  # a fan of them: not what "them" is
        "Took a photo of it on the pier.",
        "They've been a huge help with the bees.",  # read before the contraction
        "He'd already left by then.",
        "That'll take a week at least.",
    ],
)
def test_a_statement_doing_something_to_a_thing_it_does_not_name_leans_back(answer: str) -> None:
    assert leans_back(answer)


@pytest.mark.parametrize(
    "statement",
    [
        "I sold my old piano last spring and it went to a school.",  # the piano is named before "it"
        "I think it is going to snow.",  # "it" with a verb of its own is no thing done to
        "My neighbour repaired the boiler, so we are warm again.",  # a clause after the first: not read
        "I moved to Lyon, and I love it there.",
        "I keep practising easy chess openings so I can use them in club games.",  # far into the clause
        "Theirs is the blue boat by the pier.",  # a word beginning like one that points back
    ],
)
def test_a_statement_naming_what_it_is_about_does_not_lean_back(statement: str) -> None:
    assert not leans_back(statement)


def test_the_name_of_whom_one_addresses_is_left_out() -> None:
    people = ["Odile", "Ravi"]
    assert texts("Hey Odile, I restored the old radio myself.", ignore_names=people) == [
        "I restored the old radio myself."
    ]
    assert texts("Yeah, Ravi, those were my favourite summers.", ignore_names=people) == [
        "Yeah, those were my favourite summers."
    ]
    # the lead keeps the comma the name took, so it reads (and is dropped later) as a lead
    assert texts("Sure Ravi, I'll bring the tent.", ignore_names=people) == ["Sure, I'll bring the tent."]
    assert texts("Nope Odile, the ferry left at noon.", ignore_names=people) == ["Nope, the ferry left at noon."]
    assert texts("Odile, Ravi and I went sailing.", ignore_names=people) == ["Odile, Ravi and I went sailing."]
    # a name closing the sentence after its last comma addresses too; one inside it is left
    assert texts("The ferry to Hvar leaves at noon, Ravi.", ignore_names=people) == [
        "The ferry to Hvar leaves at noon."
    ]
    assert texts("I sailed with Marta, Odile!", ignore_names=people) == ["I sailed with Marta!"]
    assert texts("Hold on, Ravi, the ferry left at noon.", ignore_names=people) == [
        "Hold on, Ravi, the ferry left at noon."
    ]
    assert texts("I sailed with Marta and Odile.", ignore_names=people) == ["I sailed with Marta and Odile."]
    assert texts("Odile, my aunt, taught me to sail.", ignore_names=["Ravi"]) == ["Odile, my aunt, taught me to sail."]


def test_glue_is_not_a_unit() -> None:
    for glue in ("Thanks so much, Odile!", "Haha, so true.", "That's a gorgeous scarf!", "You're the best."):
        assert statement_units(glue, ["Odile"]) == [], glue
    assert texts("Thanks, Odile! I repaired the old radio myself.", ignore_names=["Odile"]) == [
        "I repaired the old radio myself."
    ]


def test_a_judgement_that_says_something_is_a_statement() -> None:
    said = "It's important for new drivers to practise on quiet roads first."
    assert texts(said) == [said]
    assert texts("I'm so relieved and proud!") == ["I'm so relieved and proud!"], "the speaker's own feeling"
    assert texts("I'm so sorry to hear that.") == [], "sympathy for the listener is glue"


def test_initials_and_titles_do_not_end_a_sentence() -> None:
    assert texts("I met Dr. Okafor and read T.S. Eliot last night.") == [
        "I met Dr. Okafor and read T.S. Eliot last night."
    ]


def test_advice_and_proposals_are_kept_for_a_person_only() -> None:
    advice = "Ask a farrier to check the hooves before the show."
    assert [(u.kind, u.text) for u in statement_units(advice, to_person=True)] == [("suggested", advice)]
    assert statement_units(advice) == [], "to an assistant an imperative is a request for work"
    [proposal] = statement_units("How about cycling to the lake on Sunday?", to_person=True)
    assert proposal.kind == "suggested"
    assert statement_units("Take care!", to_person=True) == []
    [dated] = statement_units("Let's do it next Friday.", to_person=True)
    assert dated.kind == "suggested", "a short proposal that names its day is a plan"
    assert statement_units("Let's do it!", to_person=True) == []


def test_showing_something_is_told_as_what_happened_not_advice() -> None:
    def told(said: str) -> list[tuple[str, str]]:
        return [(u.kind, u.text) for u in statement_units(said, to_person=True)]

    assert told("Check out my quilt for the county fair!") == [
        ("statement", "I showed you my quilt for the county fair")
    ]
    assert told("Look at this sourdough loaf I baked.") == [("statement", "I showed you the sourdough loaf I baked")]
    # recommending a thing of the world is still advice
    assert told("Check out the night market on Elm Street, it's great.")[0][0] == "suggested"


def test_code_and_markup_are_not_statements() -> None:
    message = (
        "## My setup\n"
        "I deploy with **Helm 3.14** on two nodes.\n\n"
        "```python\nimport os\nprint(os.environ)\n```\n"
        "- backups run nightly at 02:00\n"
        "Here's what I have so far:\n"
        "    retries = 3\n"
    )
    assert plain_text(message).splitlines() == [
        "My setup.",
        "I deploy with Helm 3.14 on two nodes.",
        "backups run nightly at 02:00.",
        "Here's what I have so far:",
    ]
    kept = texts(message)
    assert "I deploy with Helm 3.14 on two nodes." in kept and not any("import" in t or "print" in t for t in kept)
    assert not any(t.startswith("Here's") for t in kept), "a line presenting what follows says nothing"


def test_a_list_item_ending_inside_its_quotation_gets_no_second_stop() -> None:
    assert plain_text('- **Lighting**: set the dimmer to "Evening."\n- Watch "Paddington"') == (
        'Lighting: set the dimmer to "Evening."\nWatch "Paddington".'
    )


def test_an_unclosed_fence_drops_the_rest() -> None:
    assert plain_text("I use Rust 1.79.\n```rust\nfn main() {") == "I use Rust 1.79."


@pytest.mark.parametrize(
    ("text", "has_value"),
    [
        ("We moved to Ghent.", True),
        ("It costs $45 a month.", True),
        ("My router is an RT6600.", True),
        ('I reread "Blue Nights" twice.', True),
        ("The meeting is in October.", True),
        ("I feel much better now.", False),
        ("Maybe we can try later.", False),
    ],
)
def test_values(text: str, has_value: bool) -> None:
    assert carries_value(text) is has_value


def test_new_values_ignore_the_people_talking() -> None:
    assert new_values("Odile, the hall holds 120 people.", "The hall is big.", ["Odile"]) == {"120"}


def test_requested_action() -> None:
    assert requested_action("Can you book me a table for four?") == "book me a table for four"
    assert requested_action("Please check the tyre pressure.") == "check the tyre pressure"
    assert requested_action("Summarise the contract") == "summarise the contract"
    assert requested_action("The contract is signed.") is None


def test_units_are_plain_tuples() -> None:
    assert statement_units("I sold the blue van in May.") == [Unit("I sold the blue van in May.", "statement", False)]


def test_a_wish_about_oneself_is_no_reaction() -> None:
    said = "Wish I had more time, but I've started baking bread on Sundays and it's been a great escape."
    assert texts(said) == ["Wish I had more time, I've started baking bread on Sundays and it's been a great escape."]
    assert texts("It's a wooden whistle to remind you of the good summer.") != [], "it says what the gift is"


def test_an_announcement_stays_with_what_it_announces() -> None:
    said = (
        "On Saturday I tried something new that really stayed with me. I volunteered at the river "
        "clean-up with my cousins and we pulled out two shopping carts."
    )
    assert texts(said) == [said], "the first sentence alone would say nothing"
    assert texts("I have some big news. Our bakery got a stall at the Sunday market.") == [
        "I have some big news. Our bakery got a stall at the Sunday market."
    ]


def test_a_sentence_naming_its_something_is_no_announcement() -> None:
    units = texts(
        "There's something calming about the harbour at dawn with the fishing boats heading out. "
        "My grandmother painted the lighthouse there in watercolours for forty years."
    )
    assert len(units) == 2, "the first says what the something is"
    assert not announces("I bought something called a pasta maker.")
    assert not announces("Something like 40 people came to the reading.")
    assert not announces("Starting with something kind before the criticism works best."), "no news to tell"
    assert not announces("We have big news about the allotment."), "it says what the news is about"
    assert announces("Something great happened at work!")
    assert announces("We have some exciting news!")


def test_a_fragment_stays_with_the_statement_it_follows() -> None:
    units = texts(
        "Climbing twice a week helps me unwind after the long shifts at the "
        "hospital, and the wall near the station is open late. Building strength!"
    )
    assert len(units) == 1 and units[0].endswith("Building strength!")
    assert is_fragment("Building strength!")
    assert not is_fragment("Chapter Two Notes."), "a heading belongs with what follows"
    assert not is_fragment("[Your Name]"), "a placeholder"
    assert not is_fragment("Step 3 done."), "a value stands on its own"


def test_a_question_opened_by_an_interjection_still_asks() -> None:
    # "Hmm, what if …?" was read as the statement "What if … ." once "Hmm," was cut.
    units = statement_units("Hmm, what if the ferry is cancelled and I miss my connection in Bergen?")
    assert [(u.kind, u.text) for u in units] == [
        ("asked", "What if the ferry is cancelled and I miss my connection in Bergen?")
    ]
    assert texts("Oh, I moved to Leeds in May.") == ["I moved to Leeds in May."]


def test_the_options_closing_a_question_are_asked_not_stated() -> None:
    question = "Which stroller fits in my car better, the Bugaboo or the Joolz?"
    assert [(u.kind, u.text) for u in statement_units(question)] == [("asked", question)]
    # Not the last item of a list whose other items were stated: the list stays whole.
    units = statement_units("Can you set a call for one of my sessions on May 20, 21, or 23 at 6 PM?")
    assert ("statement", "21, or 23 at 6 PM") in [(u.kind, u.text) for u in units]
    # A tail with a fact of its own is still stated.
    units = statement_units("Can you help me plan the week, especially since I met Ana on May 3?")
    assert ("statement", "I met Ana on May 3") in [(u.kind, u.text) for u in units], "said as its clause"


@pytest.mark.parametrize(
    ("said", "stated"),
    [
        ("Given the bus fare went up to 3 euros, can you plan my commute?", ["The bus fare went up to 3 euros"]),
        ("Now that I joined the rowing club, which gloves should I buy?", ["I joined the rowing club"]),
        ("Given my savings of 2,000 euros, which laptop should I get?", ["My savings of 2,000 euros"]),
        ("Considering the traffic, should I leave early?", []),  # it frames the question, it states nothing
        ("Given the growing appeal of handmade goods, what should I sell?", []),
    ],
)
def test_what_frames_a_question_states_its_clause_or_nothing(said: str, stated: list[str]) -> None:
    assert [u.text for u in statement_units(said) if u.kind == "statement"] == stated


def test_a_later_piece_of_a_question_opening_on_a_wh_word_asks() -> None:
    units = statement_units("Since I took up chess in March, which openings suit beginners?")
    assert [(u.kind, u.text) for u in units if u.kind == "statement"] == [("statement", "I took up chess in March")]
