"""First-person statements rewritten about their speaker (`language.person`, `language.companions`,
the "nowadays" sense of "today" in `language.dates`), on sentences written for these tests."""

from __future__ import annotations

from datetime import date

import pytest

from language.companions import Companion, companion_of
from language.dates import rewrite_relative_time
from language.person import detect_user_name, third_person_verb, to_third_person


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ("i dont like olives", "Noor doesn't like olives"),
        ("Im going to Porto and ive booked a room", "Noor is going to Porto and Noor has booked a room"),
        ("I wanna learn the cello", "Noor wants to learn the cello"),
        ("I'm gonna paint the fence", "Noor is going to paint the fence"),
        ("I sold my bike and I need a new one", "Noor sold Noor's bike and Noor needs a new one"),
        ("I taught myself to knit", "Noor taught themself to knit"),
        ("I, for one, agree", "Noor, for one, agree"),
        ("if I ever get to row the lake", "If Noor ever gets to row the lake"),
    ],
)
def test_no_first_person_left_and_verbs_agree(said: str, written: str) -> None:
    assert to_third_person(said, "Noor") == written


def test_verb_forms() -> None:
    assert [third_person_verb(v) for v in ("need", "agreed", "try", "fix", "go", "dont", "sold", "embed")] == [
        "needs",
        "agreed",
        "tries",
        "fixes",
        "goes",
        "doesn't",
        "sold",
        "embeds",
    ]


def test_a_joint_subject_keeps_a_plural_verb() -> None:
    assert to_third_person("My brother and I are twins", "Noor") == "Noor's brother and Noor are twins"
    assert to_third_person("I feed the cats and I walk them", "Noor") == "Noor feeds the cats and Noor walks them"


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ("I fix bikes and sell them at the market", "Noor fixes bikes and sells them at the market"),
        ("I study late, and read articles on the bus", "Noor studies late, and reads articles on the bus"),
        ("I go out and put the bins out", "Noor goes out and puts the bins out"),
        ("I'm into boats and love sailing them", "Noor is into boats and loves sailing them"),
        ("I knit and enjoy spinning wool", "Noor knits and enjoys spinning wool"),
        ("I'm going to the market and buy plums", "Noor is going to the market and buy plums"),
        ("I love painting and travel writing", "Noor loves painting and travel writing"),
        # the second verb goes with a word between: an infinitive, a verb after its object
        ("I want to rest and eat something", "Noor wants to rest and eat something"),
        ("I help kids read and write stories", "Noor helps kids read and write stories"),
        # no complement: "dance" may be a noun joined to "music"; a past keeps every verb as said
        ("I love music and dance.", "Noor loves music and dance."),
        ("I painted the shed and fixed the gate", "Noor painted the shed and fixed the gate"),
        # "and" before another subject, or a noun
        ("I drive and Sam navigates the route", "Noor drives and Sam navigates the route"),
        ("I love my sister and her kids", "Noor loves Noor's sister and her kids"),
        ("I like the trust and care theme", "Noor likes the trust and care theme"),
        ("I adore the colour and love story", "Noor adores the colour and love story"),
        # another subject between the two
        (
            "When I land, I'll rent a car and drive to the coast",
            "When Noor lands, Noor will rent a car and drive to the coast",
        ),
    ],
)
def test_a_verb_joined_by_and_agrees_with_the_first(said: str, written: str) -> None:
    assert to_third_person(said, "Noor") == written


def test_several_listeners_are_the_listener_and_others() -> None:
    # as "we" is the speaker and others: a memory read alone says whose group it was
    assert to_third_person("Looks like you all had fun at the lake!", "Noor", other="Ivo") == (
        "Looks like Ivo and others had fun at the lake!"
    )
    assert to_third_person("What was it like for you both?", "Noor", other="Ivo") == (
        "What was it like for Ivo and others?"
    )
    assert to_third_person("I hope you guys are settling in", "Noor", other="Ivo") == (
        "Noor hopes Ivo and others are settling in"
    )
    assert to_third_person("Knowing all of you care means a lot", "Noor", other="Ivo") == (
        "Knowing all of you care means a lot"
    )
    assert to_third_person("Wishing you all the best with the move", "Noor", other="Ivo") == (
        "Wishing Ivo all the best with the move"
    )


def test_a_verb_joined_to_the_listeners_agrees_too() -> None:
    assert to_third_person("You fix bikes and sell them online", "Noor", other="Ivo") == (
        "Ivo fixes bikes and sells them online"
    )
    assert to_third_person("Did you fix it and sell it?", "Noor", other="Ivo") == "Did Ivo fix it and sell it?"


def test_questions_keep_their_auxiliary_in_agreement() -> None:
    assert to_third_person("How do I renew my passport?", "Noor") == "How does Noor renew Noor's passport?"
    assert to_third_person("Am I late for the ferry?", None) == "Is the user late for the ferry?"


def test_you_is_the_listener_unless_it_is_anyone() -> None:
    assert to_third_person("You went to Oslo and your sister came too", "Noor", other="Ivo") == (
        "Ivo went to Oslo and Ivo's sister came too"
    )
    assert to_third_person("You prefer tea", "Noor", other="Ivo") == "Ivo prefers tea"
    generic = "If you water it weekly, your fern will thrive"
    assert to_third_person(generic, "Noor", other="Ivo") == generic, "anyone's 'you', and so anyone's 'your'"
    assert to_third_person("You can freeze the dough for a month", "Noor", other="Ivo").startswith("You can")
    assert to_third_person("You can book it now", "Noor", other="Ivo", generic_you=False) == "Ivo can book it now"
    assert to_third_person("You guys were great", "Noor", other="Ivo") == "Ivo and others were great"


def test_your_in_what_a_work_is_about_is_anyone_s() -> None:
    kept = [
        "The film is about grief, friendship and finding your way home.",
        "The book is all about trusting your own judgement",
        "That song was about chasing your dreams, and it moved me.",
    ]
    for said in kept:
        assert "your" in to_third_person(said, "Noor", other="Ivo"), said
    assert to_third_person("Thanks for lending me your book about sailing", "Noor", other="Ivo") == (
        "Thanks for lending Noor Ivo's book about sailing"
    )
    assert to_third_person("I loved the story about your trip", "Noor", other="Ivo") == (
        "Noor loved the story about Ivo's trip"
    )
    assert to_third_person("The film is about finding your way home, enjoy your weekend", "Noor", other="Ivo") == (
        "The film is about finding your way home, enjoy Ivo's weekend"
    )


def test_we_is_who_we_are() -> None:
    assert to_third_person("We met in 2015 and our cat is old", "Noor", we="Noor and Sam") == (
        "Noor and Sam met in 2015 and Noor and Sam's cat is old"
    )
    assert (
        to_third_person("We rented a cabin, our favourite", "Noor")
        == "Noor and others rented a cabin, Noor's favourite"
    )
    assert "team" not in to_third_person("We cooked dinner for our kids", "Noor")
    # "our team …" said by a team is the team's own thing, not the team's team's
    assert (
        to_third_person("Our team retro is on Fridays", "Noor", we="Noor's team") == "Noor's team retro is on Fridays"
    )
    assert to_third_person("Our team won", "Noor", we="Noor's team") == "Noor's team won"
    assert to_third_person("Our budget grew", "Noor", we="Noor's team") == "Noor's team's budget grew"


def test_a_past_you_is_read_before_it_is_rewritten() -> None:
    # "you were" is judged too, not only a bare "you"; "you're" and "you'd" are the listener's
    assert to_third_person("Great you were there, it makes you feel welcome", "Noor", other="Ivo") == (
        "Great Ivo was there, it makes Ivo feel welcome"
    )
    assert to_third_person("It's a fun game if you're into puzzles", "Noor", other="Ivo") == (
        "It's a fun game if Ivo is into puzzles"
    )
    assert to_third_person("I can send the pattern if you'd like", "Noor", other="Ivo") == (
        "Noor can send the pattern if Ivo would like"
    )


def test_a_name_is_never_written_twice_in_a_row() -> None:
    assert to_third_person("The letters remind me I'm loved", "Noor") == "The letters remind Noor that Noor is loved"
    assert to_third_person("For me I just bake", "Noor") == "For Noor, Noor just bakes"
    assert to_third_person("Ivo, that race showed Ivo is tough", "Noor", other="Ivo") == (
        "Ivo, that race showed Ivo is tough"
    ), "a name once is left alone"


def test_the_i_of_i_o_is_nobody() -> None:
    assert to_third_person("I batch the I/O-bound calls", "Noor") == "Noor batches the I/O-bound calls"


def test_the_group_counted_is_the_group() -> None:
    assert to_third_person("The quiz was a laugh for all of us", "Noor") == "The quiz was a laugh for Noor and others"
    assert to_third_person("We both signed up for the relay", "Noor", we="Noor and Sam") == (
        "Noor and Sam signed up for the relay"
    )
    assert to_third_person("The coach is a hero to us all", "Noor") == "The coach is a hero to Noor and others"


def test_companions() -> None:
    assert companion_of("My partner Sam and I adopted a dog") == Companion("Sam", "partner")
    assert companion_of("Lea and I went sailing") == Companion("Lea", None)
    assert companion_of("My wife loves the coast") == Companion(None, "wife")
    assert companion_of("Our team shipped it") == Companion(None, "team", collective=True)
    assert companion_of("We went out with Tariq") == Companion("Tariq", None)
    assert companion_of("We went out") is None
    assert Companion(None, "wife").who_we_are("Noor") == "Noor and Noor's wife"
    assert Companion(None, "team", collective=True).who_we_are("Noor") == "Noor's team"


@pytest.mark.parametrize(
    ("said", "means"),
    [
        ("So long since we spoke! I hiked with Tariq in May.", "So long since Noor and Lin spoke!"),
        ("We've chatted about kayaks before.", "Noor and Lin have chatted about kayaks before."),
        ("We haven't caught up since March.", "Noor and Lin haven't caught up since March."),
        ("Since we last talked my brother and I moved.", "Since Noor and Lin last talked my brother and I moved."),
        ("We discussed the lease with Omar.", "Noor and Lin discussed the lease with Omar."),
        ("I treasure our friendship.", "I treasure Noor and Lin's friendship."),
        ("Our chat last week helped a lot.", "Noor and Lin's chat last week helped a lot."),
    ],
)
def test_the_we_who_talk_are_the_two_people_talking(said: str, means: str) -> None:
    from language.companions import we_who_talk

    assert we_who_talk(said, "Noor", "Lin").startswith(means)


@pytest.mark.parametrize(
    "said",
    ["We hiked with Tariq in May.", "We're talking to a lawyer.", "We walked and talked.", "Our team chat is noisy."],
)
def test_a_we_doing_something_else_is_left_to_the_companions(said: str) -> None:
    from language.companions import we_who_talk

    assert we_who_talk(said, "Noor", "Lin") == said


@pytest.mark.parametrize(
    ("said", "means"),
    [
        ("You don't owe me anything.", "Lin doesn't owe Noor anything."),
        ("You haven't tried the ramen there yet.", "Lin hasn't tried the ramen there yet."),
        ("I hope you bring the lanterns.", "Noor hopes Lin brings the lanterns."),
        ("Just make sure you don't skip the warm-up.", "Just make sure Lin doesn't skip the warm-up."),
        ("I bet you miss the coast.", "Noor bets Lin misses the coast."),
        ("I bet the bakery sells out by noon.", "Noor bets the bakery sells out by noon."),
        ("I bet on the grey horse and lost.", "Noor bet on the grey horse and lost."),
        ("The crowd follows you wherever you play.", "The crowd follows Lin wherever Lin plays."),
        ("I love how you find time for it.", "Noor loves how Lin finds time for it."),
        ("I'm glad you liked the bread.", "Noor is glad Lin liked the bread."),
        ("Ask people who know you well.", "Ask people who know Lin well."),
        ("I trust you completely.", "Noor trusts Lin completely."),
        ("How you doing?", "How Lin doing?"),
    ],
)
def test_the_listeners_verbs_agree_in_clauses_of_their_own(said: str, means: str) -> None:
    assert to_third_person(said, "Noor", other="Lin").endswith(means)


def test_names_come_from_introductions_only() -> None:
    assert detect_user_name(["Hi, I'm Noor. I need a hand."]) == "Noor"
    assert detect_user_name(["I'm Tobias, a night nurse who loves maps"]) == "Tobias"
    assert detect_user_name(["I'm Irish, a proud one", "I'm Danish, an old hand"]) is None
    assert detect_user_name(["I'm vegetarian"]) is None


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("The grid needs 4 columns, and I'm Wanjiru, a potter from Kisumu.", "Wanjiru"),
        ("I'm Tomasz Nowak, a welder who restores bikes.", "Tomasz"),
        ("Hey! I'm Ilse, and I'm worried about my rent.", "Ilse"),
        ("I'm Rafa, so I'd like the letter signed that way.", "Rafa"),
        ("I'm Odile Mercier, and my studio is in Lyon.", "Odile"),
        ("I'm Canadian, and I love snow.", None),
        ("I'm German, and I live in Porto.", None),
        ("I'm Catholic, and my parish runs a food bank.", None),
        ("Tell him I'm Sam's friend, and I can vouch for him.", None),
    ],
)
def test_a_speaker_who_goes_on_about_themselves_after_their_name_introduces_themselves(
    said: str, name: str | None
) -> None:
    assert detect_user_name([said]) == name


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ("Kids today read fewer books.", "Kids today read fewer books."),
        ("In today's economy rent is high.", "In today's economy rent is high."),
        ("The music of today is loud.", "The music of today is loud."),
        ("I planted tulips today.", "I planted tulips on 2025-04-02."),
        ("Today's match was cancelled.", "2025-04-02's match was cancelled."),
    ],
)
def test_today_meaning_nowadays_is_not_dated(said: str, written: str) -> None:
    assert rewrite_relative_time(said, date(2025, 4, 2)).text == written


def test_questions_to_the_listener_agree_with_their_name() -> None:
    assert to_third_person("Are you free on Friday?", "Noor", other="Ivo") == "Is Ivo free on Friday?"
    assert to_third_person("Where do you keep your bike?", "Noor", other="Ivo") == "Where does Ivo keep Ivo's bike?"
    assert to_third_person("Did you sell it?", "Noor", other="Ivo") == "Did Ivo sell it?"


def test_a_possessive_relative_time_is_dated_without_its_words() -> None:
    said = rewrite_relative_time("Tomorrow's recital starts at six.", date(2025, 4, 2), annotate=True).text
    assert said == "2025-04-03's recital starts at six."
    assert rewrite_relative_time("I left yesterday.", date(2025, 4, 2), annotate=True).text == (
        "I left on 2025-04-01 (yesterday)."
    )


def test_you_as_an_object_takes_no_verb_ending() -> None:
    assert to_third_person("I'm sending you the photos tonight", "Noor", other="Ivo") == (
        "Noor is sending Ivo the photos tonight"
    )
    assert to_third_person("I told you, and you agreed", "Noor", other="Ivo") == "Noor told Ivo, and Ivo agreed"


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ('I loved "Tell Me Your Secrets" at the film club', 'Noor loved "Tell Me Your Secrets" at the film club'),
        (
            "My van has a sticker saying \u201cI brake for owls\u201d",
            "Noor's van has a sticker saying \u201cI brake for owls\u201d",
        ),
        ("I named my boat 'My Other Car'", "Noor named Noor's boat 'My Other Car'"),
        ('You told me "we leave at dawn"', 'Ivo told Noor "we leave at dawn"'),
    ],
)
def test_quoted_words_are_kept_as_said(said: str, written: str) -> None:
    """A title, a sign, words someone said in quotes: the quotation is not rewritten."""
    assert to_third_person(said, "Noor", other="Ivo") == written


def test_an_apostrophe_is_not_a_quotation() -> None:
    said = "I can't find my keys and I'm late"
    assert to_third_person(said, "Noor") == "Noor can't find Noor's keys and Noor is late"


def test_what_the_speaker_does_to_the_listener_is_no_generic_you() -> None:
    assert to_third_person("I'll let you know how the audition goes", "Noor", other="Ivo") == (
        "Noor will let Ivo know how the audition goes"
    )
    assert to_third_person("We can help you move the piano", "Noor", other="Ivo", we="Noor and Sam") == (
        "Noor and Sam can help Ivo move the piano"
    )
    assert to_third_person("I'll do my best to make you proud", "Noor", other="Ivo") == (
        "Noor will do Noor's best to make Ivo proud"
    )
    generic = "Swimming helps you sleep better"
    assert to_third_person(generic, "Noor", other="Ivo") == generic


def test_each_sentence_decides_its_own_you() -> None:
    said = "I get how you feel. It's hard when you doubt every step."
    assert to_third_person(said, "Noor", other="Ivo") == "Noor gets how Ivo feels. It's hard when you doubt every step."
    assert to_third_person("I'm here for you whenever you need a hand", "Noor", other="Ivo") == (
        "Noor is here for Ivo whenever Ivo needs a hand"
    )
    assert to_third_person("It keeps you busy. That photo of you with the pups is sweet", "Noor", other="Ivo") == (
        "It keeps you busy. That photo of Ivo with the pups is sweet"
    ), "a sentence that does not say is the listener's"


def test_you_inside_a_clause_agrees_with_its_verb() -> None:
    assert to_third_person("Tell me which colour you prefer for the hall", "Noor", other="Ivo") == (
        "Tell Noor which colour Ivo prefers for the hall"
    )
    assert to_third_person("I admire how you use old fabric", "Noor", other="Ivo") == (
        "Noor admires how Ivo uses old fabric"
    )
    assert to_third_person("It makes you feel at home", "Noor", other="Ivo") == "It makes you feel at home"
    assert to_third_person("I'll let you know soon", "Noor", other="Ivo") == "Noor will let Ivo know soon"
    curly = to_third_person("Why didn\u2019t you call before?", "Noor", other="Ivo")
    assert curly == "Why didn\u2019t Ivo call before?"
    assert to_third_person("Show the team you care about them", "Noor", other="Ivo") == (
        "Show the team Ivo cares about them"
    ), "a verb only a subject takes"
    assert to_third_person("Everyone knows you deserve the lead role", "Noor", other="Ivo") == (
        "Everyone knows Ivo deserves the lead role"
    )
    assert to_third_person("I loved the tunes you play on Fridays", "Noor", other="Ivo") == (
        "Noor loved the tunes Ivo plays on Fridays"
    ), "a clause inside a noun phrase"
    assert to_third_person("The ferry gave you time to read", "Noor", other="Ivo") == "The ferry gave Ivo time to read"
    assert to_third_person("Doing something you love pays off", "Noor", other="Ivo") == (
        "Doing something Ivo loves pays off"
    )
    assert to_third_person("Anything you bake sells out", "Noor", other="Ivo") == "Anything Ivo bakes sells out"
    assert to_third_person("I remember you saying you knit scarves", "Noor", other="Ivo") == (
        "Noor remembers Ivo saying Ivo knits scarves"
    ), "what the listener said of themself"


def test_a_favour_asked_of_the_listener_names_them() -> None:
    assert to_third_person("I'd appreciate it if you could check my essay", "Noor", other="Ivo") == (
        "Noor would appreciate it if Ivo could check Noor's essay"
    )
    assert to_third_person("Thanks for any tips you can share", "Noor", other="Ivo") == (
        "Thanks for any tips Ivo can share"
    )
    generic = "If you could travel anywhere, where would you go"
    assert to_third_person(generic, "Noor", other="Ivo") == generic


def test_wondering_or_hoping_the_listener_can_help_names_them() -> None:
    assert to_third_person("I was wondering if you could look over my cover letter", "Noor", other="Ivo") == (
        "Noor was wondering if Ivo could look over Noor's cover letter"
    )
    assert to_third_person("I'm hoping you can join us at the lake", "Noor", other="Ivo") == (
        "Noor is hoping Ivo can join Noor and others at the lake"
    )
    assert to_third_person("Maybe you could show me the trail next week", "Noor", other="Ivo") == (
        "Maybe Ivo could show Noor the trail next week"
    )
    assert to_third_person("Are there any other tips you could share about pruning", "Noor", other="Ivo") == (
        "Are there any other tips Ivo could share about pruning"
    )
    generic = "When you could still smoke indoors, the bars smelled awful"
    assert to_third_person(generic, "Noor", other="Ivo") == generic


def test_a_sentence_opening_on_the_unnamed_speaker_opens_with_a_capital() -> None:
    assert to_third_person("Yes, that works. I'll call the dentist.", None) == (
        "Yes, that works. The user will call the dentist."
    )
    assert to_third_person("Fine! I've booked it.", "Ana") == "Fine! Ana has booked it."


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ("I'd been to Lisbon twice", "Noor had been to Lisbon twice"),
        ("I'd already packed by then", "Noor had already packed by then"),
        ("You'd never tried sushi before?", "Ivo had never tried sushi before?"),
        ("I'd better leave early", "Noor had better leave early"),
        # before a bare verb, or a form that is also one, "'d" stays "would"
        ("I'd love a copy", "Noor would love a copy"),
        ("I'd read it again", "Noor would read it again"),
    ],
)
def test_a_contracted_had_before_a_participle(said: str, written: str) -> None:
    assert to_third_person(said, "Noor", other="Ivo") == written


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ("So happy to have you on the team", "So happy to have Ivo on the team"),
        ("A walk would do you good", "A walk would do Ivo good"),
        ("Have you tried the new bakery?", "Has Ivo tried the new bakery?"),
        ("Are you guys coming?", "Are Ivo and others coming?"),  # several: the listener and others
        ("Were you two at the market?", "Were Ivo and others at the market?"),
    ],
)
def test_an_auxiliary_agrees_only_with_one_listener_as_its_subject(said: str, written: str) -> None:
    assert to_third_person(said, "Noor", other="Ivo") == written


def test_a_question_tag_names_the_speaker() -> None:
    assert to_third_person("I packed too much, didn't I?", "Noor") == "Noor packed too much, didn't Noor?"
    assert to_third_person("I was right, wasn't I.", "Noor") == "Noor was right, wasn't Noor."


def test_adverbs_in_a_row_are_not_the_verb() -> None:
    assert to_third_person("I never really asked her name", "Noor") == "Noor never really asked her name"
    assert to_third_person("I just really love the harbour", "Noor") == "Noor just really loves the harbour"
    assert to_third_person("You never really told me", "Noor", other="Ivo") == "Ivo never really told Noor"
    assert to_third_person("I'd never really been abroad", "Noor") == "Noor had never really been abroad"
    assert to_third_person("I truly value my Sundays", "Noor") == "Noor truly values Noor's Sundays"
    assert to_third_person("I genuinely enjoy it", "Noor") == "Noor genuinely enjoys it"
    assert to_third_person("I rely on the 7:10 bus", "Noor") == "Noor relies on the 7:10 bus", "a verb in -ly"
    assert to_third_person("I apply every spring", "Noor") == "Noor applies every spring"


def test_a_hyphenated_verb_agrees_in_its_last_part() -> None:
    assert to_third_person("I co-host a radio show", "Noor") == "Noor co-hosts a radio show"
    assert to_third_person("I just co-hosted the quiz night", "Noor") == "Noor just co-hosted the quiz night"
    assert to_third_person("I double-checked the tickets", "Noor") == "Noor double-checked the tickets"
    assert to_third_person("I re-did the whole kitchen", "Noor") == "Noor re-did the whole kitchen"
    assert to_third_person("You fine-tune the bikes", "Noor", other="Ivo") == "Ivo fine-tunes the bikes"


def test_a_contracted_question_to_the_listener_agrees() -> None:
    assert to_third_person("How're you settling in?", "Noor", other="Ivo") == "How is Ivo settling in?"
    assert to_third_person("What\u2019re you cooking tonight?", "Noor", other="Ivo") == "What is Ivo cooking tonight?"
