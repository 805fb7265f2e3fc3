"""The old value of a knowledge update, read from its stale messages (`old_values.py`)."""

from dreamstream_tools.evaluation.metrics import Item, knowledge_update, stale_leak, states_old_value
from dreamstream_tools.evaluation.old_values import Value, old_values, states_any, states_new_value, values


def item(text: str, *provenance: str) -> Item:
    return Item(text, tuple(provenance), "s")


def test_values_reads_days_month_days_clock_times_and_counted_numbers():
    found = values("The tasting moved to 9 March 2025 at 6:30 pm, for 14 guests and 20% off.")
    assert Value("day", "2025-03-09") in found
    assert Value("month_day", "3-9") in found
    assert Value("clock", "18:30") in found
    assert Value("number", "14", "guest") in found
    assert Value("number", "20", "%") in found
    assert not any(v.kind == "number" and v.key in {"6", "30"} for v in found)  # the clock's digits


def test_values_leave_out_the_readers_stamps():
    assert values("[2025-03-01] user: hello (said on 2025-03-01)") == frozenset()


def test_a_numbers_thousands_are_one_number():
    assert Value("number", "2400", "lap") in values("swam 2,400 laps")


def test_old_values_are_the_stale_messages_values_of_the_answers_kind():
    stale = ["We booked 12 rooms for the retreat on October 3, 2025, with 4 buses."]
    assert old_values("18 rooms", stale) == {Value("number", "12", "room")}
    assert old_values("October 10, 2025", stale) == {Value("day", "2025-10-03"), Value("month_day", "10-3")}


def test_a_bare_number_answer_takes_every_number_of_the_stale_messages():
    assert {v.key for v in old_values("9", ["I have read 6 novels in 3 weeks"])} == {"6", "3"}


def test_no_old_value_when_the_answer_is_no_value_or_the_stale_message_has_none_of_its_kind():
    assert old_values("the blue tent", ["we bought the green tent for 80 dollars"]) == frozenset()
    assert old_values("7:45 AM", ["the ferry leaves from pier 4"]) == frozenset()


def test_the_answers_own_value_is_not_old_even_in_a_stale_message():
    assert old_values("5 km", ["from 3 km up to 5 km"]) == {Value("number", "3", "km")}


def test_states_any_matches_the_value_whatever_it_counts():
    old = frozenset({Value("number", "12", "room")})
    assert states_any("the hotel holds 12 of them", old)
    assert not states_any("the hotel holds 18 rooms", old)


# --- the metrics with the old values known
OLD = frozenset({Value("clock", "15:00")})


def test_an_item_citing_the_stale_message_for_another_clause_states_no_old_value():
    other_clause = item("Lena wants advice on what to ask the curator.", "s1")
    old_clause = item("Lena has a call with the curator at 3 PM.", "s1")
    assert not states_old_value("5 PM", ["s1"], other_clause, OLD)
    assert states_old_value("5 PM", ["s1"], old_clause, OLD)
    assert states_old_value("5 PM", ["s1"], other_clause)  # old values unknown: citation alone


def test_stale_leak_and_knowledge_update_with_old_values_one_rule_for_both_sides():
    fresh = item("[2025-05-02] user: the curator moved our call to 5 PM", "n1")
    raw_stale = item("[2025-05-01] user: call with the curator at 3 PM, any tips?", "s1")
    other_clause = item("Lena asked for tips on the curator call.", "s1")
    assert stale_leak("5 PM", ["s1"], [fresh, raw_stale], OLD) is True
    assert stale_leak("5 PM", ["s1"], [fresh, other_clause], OLD) is False
    assert knowledge_update("5 PM", ["s1"], [fresh, raw_stale], OLD) is False
    assert knowledge_update("5 PM", ["s1"], [fresh, other_clause], OLD) is True
    assert knowledge_update("5 PM", ["s1"], [fresh, other_clause]) is False  # unknown: citation alone


def test_an_item_giving_the_new_value_beside_the_old_one_is_no_leak_on_either_side():
    answer = "14 ceramic tiles"
    old = frozenset({Value("number", "9", "tile")})
    both_memory = item("Noor now has a total of 14 tiles (previously: 9 ceramic tiles).", "s1", "n1")
    both_raw = item("[2025-05-02] user: I went from 9 tiles to 14, the floor looks great", "s1")
    old_only = item("Noor has 9 ceramic tiles left over.", "s1")
    new_elsewhere = item("Noor has 9 ceramic tiles and 14 grout bags.", "s1")  # 14 of something else
    assert states_new_value(answer, both_memory.text) and states_new_value(answer, both_raw.text)
    assert not stale_leak(answer, ["s1"], [both_memory], old)
    assert not stale_leak(answer, ["s1"], [both_raw], old)
    assert stale_leak(answer, ["s1"], [old_only], old)
    assert not states_new_value("the blue one", "Noor picked the blue one.")  # no value: containment decides
    assert stale_leak(answer, ["s1"], [new_elsewhere], old)
