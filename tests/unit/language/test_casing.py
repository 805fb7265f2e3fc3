"""Capitals put back in messages typed without them (`language.casing`), on sentences written for
this test."""

from __future__ import annotations

import pytest

from language.casing import CaseTable, Typed, restore_all, typed_in_lower_case


@pytest.mark.parametrize(
    "text",
    [
        "went hiking with my sister yesterday. it rained the whole time",
        "hmm, do I need to rebuild the image after changing the Dockerfile? or just restart?",
        "ok",
        "- bought the tickets\n- packed the car",
    ],
)
def test_a_message_whose_sentences_all_open_in_lower_case_is_typed_in_lower_case(text: str) -> None:
    assert typed_in_lower_case(text)


@pytest.mark.parametrize(
    "text",
    [
        "Went hiking with my sister yesterday. it rained the whole time",
        "I think so.",
        "42",
    ],
)
def test_a_message_with_a_sentence_opening_in_capitals_is_typed_as_it_is(text: str) -> None:
    assert not typed_in_lower_case(text)


def test_sentence_starts_lines_list_items_and_the_pronoun_i_get_their_capitals() -> None:
    table = CaseTable()
    assert table.restore("i'm back from the coast. it was windy! and i'd go again") == (
        "I'm back from the coast. It was windy! And I'd go again"
    )
    assert table.restore("plan:\n- book the ferry\n2. pack light") == "Plan:\n- Book the ferry\n2. Pack light"
    assert table.restore("see you friday or in june. may i come in march?") == (
        "See you Friday or in June. May I come in march?"  # "may" and "march" are words too
    )


def test_code_links_addresses_and_abbreviations_stay_as_typed() -> None:
    table = CaseTable()
    text = "see `i = 0` and https://example.org/i. e.g. mail tom@example.org. ok i.e. done\n```\nx = 1. y = 2\n```"
    assert table.restore(text) == (
        "See `i = 0` and https://example.org/i. e.g. mail tom@example.org. Ok i.e. done\n```\nx = 1. y = 2\n```"
    )
    assert typed_in_lower_case("```\nprint('code alone')\n```")  # no capital at all: read as typed all the same
    assert table.restore("```\nprint('code alone')\n```") == "```\nprint('code alone')\n```"


def test_the_table_learns_names_written_capitalised_in_mid_sentence_more_often_than_not() -> None:
    table = CaseTable()
    table.learn("We drove to Lisbon with Priya. Then we and Priya flew back to Lisbon, via the ATR hub.")
    table.learn("## Useful Tips\nA tip: pack snacks. More tips follow.")
    assert table.form("lisbon") == "Lisbon"
    assert table.form("priya") == "Priya"
    assert table.form("atr") is None  # once is not enough
    assert table.form("tips") is None  # a heading's capitals are the heading's
    table.learn("we will see if this is a Tip or a tip, tip, tip.")
    assert table.form("tip") is None  # written in lower case more often


def test_a_word_is_counted_as_it_is_restored_hyphened_parts_whole_and_before_a_possessive() -> None:
    table = CaseTable()
    table.learn("a Well-Known trick, a Well-Known fix; a well-known bug, a well-known cure, a well-known rule.")
    assert table.form("well-known") is None  # written in lower case more often, as one word
    table.learn("we met at Priya's flat, then went to Priya's office.")
    assert table.form("priya") == "Priya"  # a possessive still names her
    assert table.restore("saw priya's cat and a well-known dog") == "Saw Priya's cat and a well-known dog"


def test_a_speakers_name_and_its_short_form_where_it_addresses_them() -> None:
    table = CaseTable()
    table.add_person("Rosalind")
    assert table.restore("hey ros! rosalind said hi") == "Hey Ros! Rosalind said hi"
    assert table.restore("thanks, ros.") == "Thanks, Ros."
    assert table.restore("the ros is a robot framework") == "The ros is a robot framework"  # not addressing


def typed(*texts: str, writer: str = "user") -> list[Typed]:
    return [Typed(writer, None, text) for text in texts]


def test_a_message_is_read_with_what_the_messages_before_it_show() -> None:
    said = [
        Typed("sam", None, "we met anouk at the market."),
        Typed("kim", None, "I hear Anouk moved to Ghent. Anouk loves Ghent."),
        Typed("sam", None, "anouk sent photos from ghent"),
    ]
    assert restore_all(said) == [
        "We met anouk at the market.",  # nothing before it wrote the name
        "I hear Anouk moved to Ghent. Anouk loves Ghent.",
        "Anouk sent photos from Ghent",
    ]


def test_a_writer_who_capitalises_names_keeps_their_own_words() -> None:
    said = typed(
        "We use Docker and Docker compose at work.",
        "hmm, is docker slow on mac? do i need more RAM",
        "hmm, what about docker on linux?",
    )
    # The second message capitalises "RAM" itself, and the third is by a writer who capitalised
    # before: their sentence starts and "I" are put back, their words are the writer's.
    assert restore_all(said)[1:] == [
        "Hmm, is docker slow on mac? Do I need more RAM",
        "Hmm, what about docker on linux?",
    ]
    # Someone who has never typed a capital gets the names the scope writes.
    said[2] = Typed("friend", None, said[2].text)
    assert restore_all(said)[2] == "Hmm, what about Docker on linux?"


def test_a_scope_without_lower_case_messages_is_returned_as_given() -> None:
    said = [Typed("Ines", "Ines", "Hey Tariq!"), Typed("Tariq", "Tariq", "Hi Ines, how was Porto?")]
    restored = restore_all(said)
    assert restored == [m.text for m in said]
    assert all(a is m.text for a, m in zip(restored, said, strict=True))


def test_a_word_a_greeting_calls_someone_by_twice_is_a_name() -> None:
    # Without name prefixes and without capitals, what the two call each other is all there is.
    said = typed(
        "hey anouk! how was the trip?",
        "yeah, definitely! ghent was lovely, right?",
        "thanks, anouk. hey there!",
        "so did anouk see the canal? yeah, definitely.",
    )
    assert restore_all(said)[3] == "So did Anouk see the canal? Yeah, definitely."
    # Once is not enough; "there", "guys" and the like are nobody's name however often they greet.
    once = typed("hey anouk!", "hi to anouk", "hey guys! hey guys!", "hi to the guys")
    assert restore_all(once)[1:] == ["Hi to anouk", "Hey guys! Hey guys!", "Hi to the guys"]
