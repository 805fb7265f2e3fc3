"""Same subject, same attribute, judged by meaning (`dreaming.engine.offline.slots`), on sentences
written for this test: one attribute with a new value is an update; two attributes, two people or
two events are not. Stated corrections are `test_slot_corrections`, frames `test_slot_frames`."""

from __future__ import annotations

import pytest

from dreaming.engine.offline.slot_frames import frames, only_measures
from dreaming.engine.offline.slots import SlotReader

ONE_ATTRIBUTE = [
    # A limit and a quota of one period are one allowance under two names.
    (
        "Still, considering the 400 daily upload limit, the crew has to batch its photos and stay under the quota.",
        "The crew is trying to update its uploader settings to match the new daily quota of 550 uploads per day.",
    ),
    (
        "The crew asked: how can the crew stay under the 20 uploads/hour and 400 uploads/day limits of the photo host?",
        "The crew is trying to update its uploader settings to match the new daily quota of 550 uploads per day.",
    ),
    ("The user's snack budget for the party is $40.", "The user has raised the party snack budget to $55."),
    ("The user's team has 14 engineers.", "The user's team now has 17 engineers after two hires."),
    ("The user's thesis draft is 8,200 words long.", "The user's thesis draft has grown to 9,100 words."),
    (
        "The user's dentist appointment is on June 3 at 9 AM.",
        "The user moved the dentist appointment to June 5 at 2 PM.",
    ),
    ("The grant application deadline is October 12.", "The grant application deadline was pushed back to October 19."),
    ("The user is saving $300 a month for the trip.", "The user increased the monthly trip savings to $350."),
    ("The user's unit test coverage is at 61%.", "The user's unit test coverage went up to 70% this week."),
    ("The user's rent is $1,450 per month.", "The landlord raised the user's rent to $1,520 per month."),
    ("The user practises piano 3 hours a week.", "The user now practises piano 5 hours a week."),
    ("The user plans to run 20 km per week.", "The user cut the weekly running goal to 15 km."),
    ("The user's website gets about 1,200 visitors a day.", "Daily visitors to the user's website reached 1,800."),
    ("The user's mortgage rate is 4.1%.", "The user refinanced and the mortgage rate is now 3.6%."),
    ("The user's sprint review is on May 14.", "The sprint review got rescheduled to May 16."),
    ("The user's cat weighs 5 kg.", "The vet said the user's cat now weighs 4.6 kg."),
    ("The user's flight to Denver departs at 6:40 AM.", "The airline changed the user's Denver flight to 9:15 AM."),
    ("The user's newsletter has 850 subscribers.", "The newsletter grew to 1,020 subscribers."),
    ("The user's daily API quota is 500 requests.", "The user's API quota was upgraded to 2,000 requests per day."),
    ("Jon's dance studio has 12 students.", "Jon's dance studio has 20 students now."),
    ("Gina has been selling her designs in 3 shops.", "Gina's designs are now sold in 5 shops."),
    (
        "The user is trying to keep the mobile app small, and the install size is 48 MB right now.",
        "The user wants to add offline maps, but the app install size has already dropped to 41 MB after "
        "removing unused fonts.",
    ),
    (
        "The user is worried about the move, and the moving company quoted $2,300 for the whole house.",
        "The moving company revised its quote to $2,650 because of the piano.",
    ),
    ("The deadline for Phase 2 of the user's app is May 3.", "The Phase 2 deadline was pushed back to May 9."),
    ("The user reads 30 pages a day.", "The user now reads 45 pages a day."),
]


TWO_ATTRIBUTES = [
    ("The user's snack budget for the party is $40.", "The user's grocery budget is $550 a month."),
    ("The user's monthly book budget is $35.", "The user's monthly gym fee is $45."),
    ("The user's thesis draft is 8,200 words long.", "The user's blog post is 1,200 words long."),
    ("The user's dentist appointment is on June 3.", "The user's car service is on June 9."),
    ("The grant application deadline is October 12.", "The visa application deadline is November 2."),
    ("The user ran 5 km on Saturday.", "The user bought 3 books about birds."),
    ("The user's checkout page loads in 900ms.", "The user's search endpoint responds in 300ms."),
    ("The user's rent is $1,450.", "The user's car payment is $320."),
    ("The user's daily API quota is 500 requests.", "The user's app makes about 300 requests per day."),
    ("The user's unit test coverage is at 61%.", "The user's phone battery is at 61%."),
    ("The user's team has 14 engineers.", "The user's team closed 30 tickets this sprint."),
    ("The user's newsletter has 850 subscribers.", "The user's podcast has 40 episodes."),
    ("The user's flight to Denver departs at 6:40 AM.", "The user's train to Boston departs at 7:10 AM."),
    ("The user practises piano 3 hours a week.", "The user practises Spanish 2 hours a week."),
    ("The user's sister has 2 kids.", "The user has 3 kids."),
    ("Project Cobra has 4 open bugs.", "Project Heron has 9 open bugs."),
    ("The deadline for the first phase of the user's app is May 3.", "The user's Phase 2 deadline is now May 24."),
    ("The user reads 30 pages a day.", "The user now reads 180 pages a week."),
    ("The user saves $20 a day for the trip.", "The user has raised the trip savings to $400 per month."),
]


TWO_EVENTS = [
    ("Melanie went camping with her kids on 2023-06-20.", "Melanie went camping at the lake on 2023-07-15."),
    ("The user ran 5 km on 2024-03-02.", "The user ran 8 km on 2024-03-09."),
    ("Caroline attended a support group meeting on 2023-05-07.", "Caroline attended another meeting on 2023-05-21."),
    ("The user bought 3 books at the fair.", "The user bought 5 books online."),
]


FRAMED_UPDATES = [
    # The new value said inside a feeling or a request, the old inside framing of its own: the
    # clauses are far apart, the value's own words ("the island ferry … moved to #") are not.
    (
        "The user is a little nervous that the island ferry leaves at 7:15 AM.",
        "The user asked how to warn the passengers that the island ferry was moved to 8:05 AM.",
    ),
    (
        "The user finds it hard to pay the $48 monthly climbing gym fee.",
        "The user wonders whether to keep going now that the climbing gym fee was raised to $55.",
    ),
    (
        "The user keeps mixing up which weekend the harbour regatta is, and the harbour regatta is on June 8.",
        "The user asked the assistant to draft a note to the crew saying the harbour regatta was moved to June 15.",
    ),
    (
        "The user sighed that the climbing gym fee of $48 a month is steep for a student.",
        "The user asked for cheaper options since the climbing gym fee was raised to $55.",
    ),
    (
        "The user is anxious that the pottery class costs $35 a session.",
        "The user asked whether it is worth staying now that the pottery class fee went up to $42 a session.",
    ),
]


ANCHORED_LOOKALIKES = [
    # A change said of a value of the same kind, beside one shared word only, or of something else.
    ("The user's climbing gym fee is $48 a month.", "The user raised the monthly parking fee to $90."),
    ("The user practises piano 3 hours a week.", "The user increased Spanish practice to 2 hours a week."),
    ("The user paid $30 for the museum passes.", "The user's museum membership fee was increased to $60."),
    ("The user's book club fee is $15 for the room.", "The user raised the travel allowance to $900."),
    # One noun, modified otherwise on each side: two things.
    ("The user's parking fee is $40 a month.", "The user raised the gym fee to $55 a month."),
    ("The user's weekday ferry ticket costs $12.", "The user said the weekend ferry ticket went up to $15."),
    # Two named things: a score of one course is not a score of another.
    (
        "The user finished the \u201cFirst Aid Basics\u201d course on May 2, scoring 81%.",
        "The user just finished the \u201cKnots and Ropes\u201d workshop, and the score went up to 93%.",
    ),
    # The change is not about the day: two days, two events.
    ("The user booked the piano tuner for March 3.", "The user is switching to a new piano tuner after March 10."),
]


HELD_UPDATES = [
    # Both values belong to one noun phrase (`language.value_holders`), the framing around them far
    # apart: a worry, a question, a request.
    (
        "The user is a bit anxious that only 3 job offers came in this month.",
        "The user asked how to compare the 5 job offers the user now has.",
    ),
    (
        "The user has set aside $1,200 for the conference trip.",
        "The user asked whether the $1,450 for the conference trip will cover the hotel.",
    ),
    (
        "The user has a call with the landlord on March 3 at 9 AM.",
        "The user wonders if the call with the landlord being at 11 AM on March 3 clashes with school pick-up.",
    ),
    (
        "The user wants to know how to manage the $900 for venue hire fees.",
        "The user has allocated $1,100 for venue hire fees.",
    ),
]


HELD_LOOKALIKES = [
    # One noun, qualified otherwise on each side.
    (
        "The user reached 64% coverage of the billing module.",
        "The user asked how to push past 80% coverage of the search module.",
    ),
    (
        "The user has a call with the landlord on March 3 at 9 AM.",
        "The user asked whether the call with the plumber at 11 AM on March 3 is too early.",
    ),
    # Two events of one noun, both true.
    ("The user bought 3 lamps at the flea market.", "The user bought 5 lamps online last night."),
    # A goal is not the state it aims at.
    ("The user has read 8 novels this year.", "The user wants to read 12 novels this year."),
    # One more beside the earlier ones, not instead of them.
    ("The user has 2 cats.", "The user asked how to introduce another 2 cats to the flat."),
    # Spending is not the budget it is spent from.
    ("The user has spent $300 on groceries.", "The user allocated $450 for groceries."),
    # A unit counts two things unless both say which count it is.
    (
        "The user hopes to grow the user's monthly page count, and the user was told that it got changed to 900 pages.",
        "The user has now written 150 pages of the short story collection.",
    ),
    ("The user's thesis has to be 80 pages long.", "The user has finally read 120 pages of the novel."),
]


UNNAMED_LOOKALIKES = [
    # A duration that says nothing of what lasted, against another: two things as often as one.
    (
        "Ten years already. The user still remembers the first day at the depot.",
        "Twelve years now, and the user finally has a workshop of their own.",
    ),
    ("The user has been with her husband for six years.", "The user has had him for three years now."),
    # "he" and "she" are two beings.
    ("He is 9 years old.", "She is 4 years old."),
]


WORKED_EXAMPLES = [
    # The terms and results of a computation are a worked example, no attribute's value.
    (
        "Omar is checking the loan maths: 12 payments × $85 = $1,020 this year.",
        "Omar is checking the loan maths again: 10 payments × $85 = $850 this year.",
    ),
]


SUBJECT_LOOKALIKES = [
    # Two nouns hold the two amounts, neither said on the other side: a swap is not its budget.
    (
        "The user is a bit tense about the $60 office cookie swap with Dana's team.",
        "The user has adjusted the office cookie budget to $180.",
    ),
    # The newer value changed from a third value: the older one is another thing's.
    (
        "Lena wants to keep the 88% accuracy on the chess puzzle quiz with 20 puzzles.",
        "Lena's accuracy in endgame puzzles went up from 50% to 70% over 3 weeks.",
    ),
    # Two beings named as each sentence opens, each set apart by who it is.
    ("Pepper, my neighbour's parrot, is 12 years old.", "Kiwi, the rescue parrot, is 3 years old."),
    # A month's budget is not a season's, the period said before the amount or after it.
    (
        "Rina keeps to a $40 monthly budget for houseplants.",
        "Rina has raised her Sept-Nov houseplant budget to $110.",
    ),
    # Amounts an order of magnitude apart under a bare noun: a yearly budget and a boot budget.
    (
        "The user has a budget of around $48,000 annually and wants comfortable clothes.",
        "The user wants new boots with an increased budget of $480.",
    ),
    # Which one is not how many: "the first large project" against "9 large projects".
    (
        "The user's portfolio now holds 9 large projects.",
        "The user celebrated the first large project of the new job with a $300 dinner on May 4.",
    ),
    # A raise asked for is not the salary got.
    (
        "The user is thinking of asking for an $8,000 salary increase at the review.",
        "The user was promoted on March 1 with a 7% salary increase to $96,000.",
    ),
    # A goal, or a hope, is not the measured state.
    (
        "The user's goal is to bring the weekly hours at the desk down from 52 to 44 by June.",
        "The user is trying to reduce weekly overtime and has cut it down from 10 to 4 hours by May 2.",
    ),
    (
        "Omar is excited that the AI labelling accuracy has improved to 93%.",
        "Omar asked: Let's hope the crew pushes the labelling accuracy up to 97% before autumn.",
    ),
    # One value's noun is never said beside the other, held by a pronoun: two things.
    (
        "The user is weighing search accuracy against request cost for the recipe app, and has set a 400ms "
        "debounce to cut the number of requests.",
        "The user is trying to speed up the request latency of the recipe app, and has already improved it to "
        "160ms after adding a cache.",
    ),
    # Two changes' sizes are two changes, not one value's old and new.
    (
        "The user trimmed filler words by 20% in the cover letter on April 2.",
        "The user trimmed filler words in the grant proposal by 30% on June 8.",
    ),
    # Each sentence tells a change whole, from its own start: two series.
    (
        "The user's mock test score went from 58% to 71% after studying geometry proofs.",
        "The user's mock test score went from 66% to 80% on probability and statistics.",
    ),
    # The newer value is one the older sentence already gave: a restatement.
    (
        "The club raised the locker fee to $30 in spring and later to $36.",
        "The club has raised the locker fee to $36 from May 1.",
    ),
    # A day that is not said to be new, beside an amount of another thing.
    (
        "The user has $9,000 approved for the visa and relocation paperwork by June 4.",
        "The user has decided to file the visa paperwork on June 11.",
    ),
    # "$90 monthly to the club" names no holder; "monthly" is how often, not what of.
    (
        "The user pays $90 monthly to the chess club and agreed to $45 from May.",
        "The user saw the electricity bill was raised to $130 monthly from June 1.",
    ),
]


UNNAMED_UPDATES = [
    # ...while a duration of a thing both name, or one being's age, still updates.
    ("The user has been married for five years.", "The user has been married for seven years now."),
    ("The user's daughter is 5 years old.", "The user's daughter is 6 years old now."),
]


RECOUNTED = [
    # A later month's figure of the same thing, said to be the current one.
    (
        "The user logged 15 hours of unpaid overtime in October.",
        "The user is pleased that unpaid overtime is down to just 6 hours in November.",
    ),
    # The same occasion told twice with another count of one noun: the count corrected.
    (
        "The user was glad to book 4 viewings of flats between June 2 and June 9.",
        "Between June 2 and June 9 the user booked 6 viewings of flats, and asks what to pack.",
    ),
    # "now ... a total of #" says the value is the current one, a few words away.
    (
        "The user is building a recipe site with 14 recipe pages using a static generator.",
        "The user wrote 3 more, so now the user has a total of 17 recipe pages.",
    ),
    # The newer value changed from a value the older sentence gave: the same quantity, again.
    (
        "The user's typing speed went from 48 to 55 words a minute.",
        "The user's typing speed went from 55 to 63 words a minute.",
    ),
]


DERIVED_UPDATES = [
    # A count of people and a later count of the "-ee" people of the verb that named them.
    (
        "Gina is proud of mentoring 4 girls from the robotics club, and she shares their projects online.",
        "Gina noticed the number of mentees Gina works with has grown to 6.",
    ),
    ("The user trained 6 new hires in March.", "The number of trainees the user looks after went up to 9."),
]


DERIVED_LOOKALIKES = [
    (
        "The user mentioned 4 girls from the robotics club in the speech.",
        "The number of mentees the user works with has grown to 6.",
    ),
    ("The user trained 6 new hires in March.", "The number of interviewees the user met went up to 9."),
    ("The user trained 6 new hires in March.", "The user is thinking the number of trainees might grow to 9."),
]


def _subject(text: str) -> str | None:
    return next((name for name in ("Jon", "Gina", "Melanie", "Caroline") if name in text), None)


@pytest.mark.parametrize(("old", "new"), ONE_ATTRIBUTE)
def test_a_new_value_of_one_attribute_is_an_update(slots: SlotReader, old: str, new: str) -> None:
    update = slots.update(new, old, _subject(old))
    assert update is not None and update.old_sentence == old and update.new_sentence == new


@pytest.mark.parametrize(("old", "new"), FRAMED_UPDATES)
def test_a_value_said_to_be_new_updates_the_same_quantity_whatever_frames_it(
    slots: SlotReader, old: str, new: str
) -> None:
    update = slots.update(new, old, _subject(old))
    assert update is not None and update.old_sentence == old and update.new_sentence == new


@pytest.mark.parametrize(("old", "new"), HELD_UPDATES + UNNAMED_UPDATES + RECOUNTED + DERIVED_UPDATES)
def test_a_new_value_of_the_same_holder_is_an_update_whatever_frames_it(slots: SlotReader, old: str, new: str) -> None:
    update = slots.update(new, old, _subject(old))
    assert update is not None and update.old_sentence == old and update.new_sentence == new


@pytest.mark.parametrize(
    ("old", "new"),
    TWO_ATTRIBUTES
    + TWO_EVENTS
    + ANCHORED_LOOKALIKES
    + HELD_LOOKALIKES
    + UNNAMED_LOOKALIKES
    + SUBJECT_LOOKALIKES
    + WORKED_EXAMPLES
    + DERIVED_LOOKALIKES,
)
def test_other_attributes_people_and_events_are_not_updates(slots: SlotReader, old: str, new: str) -> None:
    assert slots.update(new, old, _subject(old)) is None


def test_a_name_written_in_lower_case_on_one_side_is_the_same_name(slots: SlotReader) -> None:
    # People write "webex" and "Webex" for one thing: the old sentence also names Omar, so reading
    # "Webex" as a name the old sentence lacks made two things of one meeting.
    old = "The user accepted Omar's invite and has a webex meeting with the landlord on June 3 at 2 PM."
    new = "The user moved the Webex meeting with the landlord to June 5 at 10 AM."
    update = slots.update(new, old)
    assert update is not None and update.old_sentence == old
    # Two names the other side does not write in any case are still two things.
    other = "The user has a Teams call with the landlord on June 5 at 10 AM."
    assert slots.update(other, old.replace("webex meeting", "Zoom call")) is None


def test_the_same_value_again_is_no_update(slots: SlotReader) -> None:
    assert slots.update("The user's rent is still $1,450 a month.", "The user's rent is $1,450 per month.") is None
    # One version, two spellings.
    assert (
        slots.update("The user now runs the site on Hugo 0.121.1.", "The user runs the site on Hugo v0.121.1.") is None
    )


def test_the_history_a_memory_keeps_is_not_a_statement_to_update(slots: SlotReader) -> None:
    # "(previously, DAY: …)" says a value already replaced: a newer value of another thing must not
    # replace it as if it were the memory's own statement.
    old = (
        "[2024-06-10] The user now pays $90 a month for the allotment. "
        "(previously, 2024-03-02: the user paid about $60 monthly for the allotment)"
    )
    assert all(not f.sentence.startswith("(previously") for f in frames(old))
    assert slots.update("The user's phone plan went up to $75 monthly.", old) is None


def test_values_with_nothing_but_their_units_make_no_frame(slots: SlotReader) -> None:
    # A list cut from a worked problem says nothing of what is measured.
    older = "Lia is stuck on the diagonal of a kite with edges 5, 8 cm, and wants to check it."
    newer = "Lia solved 6 more problems on diagonals but made 1 slip in the area step, 10, 14 cm."
    assert not any(only_measures(f.masked) for f in frames(newer) + frames(older))
    assert slots.update(newer, older) is None


def test_an_amount_due_by_a_deadline_is_a_target_not_the_progress_towards_it(slots: SlotReader) -> None:
    goal = "Omar is anxious about meeting the submission deadline of 40 samples by March 9, 2025."
    assert slots.update("Omar has processed 42 samples by March 11, 2025.", goal) is None, "progress, not the goal"
    assert slots.update("Omar's submission deadline was raised to 45 samples.", goal) is not None
    moved = slots.update(
        "Omar's deadline for the grant report was pushed to May 9.", "Omar's deadline for the grant report is May 2."
    )
    assert moved is not None, "the deadline's day moved"


def test_a_budget_replaces_a_budget_not_what_was_spent(slots: SlotReader) -> None:
    spending = "Tomas spent $61 on board games in March, which is $11 over his $50 monthly budget."
    update = slots.update("Tomas has raised his monthly board game budget to $70.", spending)
    # The frame may be the clause of the budget or the whole sentence: either way the budget is what moved.
    assert update is not None and "$50" in update.old_values and update.new_values == ("$70",)
    assert (
        slots.update(
            "Tomas wants to spend his increased April budget of $70 on a new title.",
            "Tomas spent $61 on board games in March.",
        )
        is None
    )


def test_a_place_between_commas_is_no_clause_of_its_own(slots: SlotReader) -> None:
    old = "Ana is planning to visit the bike shop on Main Street, Westford, next Friday at 2 PM, Ana wants a helmet."
    assert any("bike shop" in f.masked and "at #" in f.masked for f in frames(old, "Ana"))
    update = slots.update("Ana moved the bike shop visit to 5 PM next Friday.", old)
    assert update is not None and "2 PM" in update.old_values


def test_a_running_total_that_grew_is_the_total_now_and_one_that_shrank_an_earlier_moment(slots: SlotReader) -> None:
    older = "Noor is learning chess tactics, and Noor has completed 20 tactics puzzles, scoring 14/20."
    newer = "Noor asked about endgames, and Noor recently completed 35 tactics puzzles with a success rate above 80%."
    update = slots.update(newer, older, "Noor")
    assert update is not None and update.old_values == ("20",)  # a past event, yet a larger total of the same puzzles
    assert (
        slots.update(
            "Noor looked back on her progress: Noor has completed 12 drills and her accuracy has gone from 60% to 80%.",
            "Noor has already completed 18 drills with 92% accuracy.",
            "Noor",
        )
        is None
    )  # a smaller total later: that moment told again
    assert (
        slots.update(
            "Noor is asking how her rating relates to her score going from 70% to 88% after solving 30 problems.",
            "Noor is trying to see how her accuracy in probability problems went from 50% to 75% after solving 12"
            " problems.",
            "Noor",
        )
        is None
    )  # more problems, but nothing says they are the same ones


def test_a_word_of_addition_after_the_new_value_belongs_to_something_else(slots: SlotReader) -> None:
    older = "Ana has got the kiln booked with Marek for June 3-5 at Clayworks, with 3 sessions at $40 each."
    update = slots.update("The kiln sessions with Marek got extended to June 6 due to extra glaze tests.", older, "Ana")
    assert update is not None and "June 3-5" in update.old_values
    assert slots.update("Ana also booked the kiln with Marek for June 6.", older, "Ana") is None  # one more booking


def test_one_named_thing_on_one_day_at_another_time_of_day_is_that_occasion_moved(slots: SlotReader) -> None:
    older = "Ana is planning to try the Lakeside Cafe on Elm Road, Westford, on 2025-05-03 (next Saturday) at 6 PM."
    newer = (
        "Ana is moving a call so that Ana is free at 7 PM on 2025-05-03 (next Saturday) for the Lakeside Cafe dinner."
    )
    update = slots.update(newer, older, "Ana")
    assert update is not None and update.old_values[-1] == "6 PM"
    other_place = "Ana is moving a call so that Ana is free at 7 PM on 2025-05-03 (next Saturday) for the book club."
    assert slots.update(other_place, older, "Ana") is None  # nothing named in common: another occasion


def test_a_running_total_that_grew_makes_one_progress_report_of_the_values_beside_it(slots: SlotReader) -> None:
    older = (
        "Noor is trying to see how her accuracy in chess endgame drills improved from 55% to 70% after finishing 9"
        " drills."
    )
    newer = (
        "Noor is comparing two openings for her club match, and Noor has already finished 14 drills with 83% accuracy."
    )
    update = slots.update(newer, older, "Noor")
    assert update is not None and "83%" in update.new_values


def test_a_new_value_tied_to_an_old_one_by_a_bare_noun_alone_is_bare(slots: SlotReader) -> None:
    """`Update.bare`: nothing but "deadline" says which deadline; "museum grant" does."""
    new = "Ana is nervous about the museum grant, but the deadline was extended to June 9."
    will = slots.update(new, "Ana has a deadline of May 15 to finish her will with the notary.", "Ana")
    grant = slots.update(new, "Ana applied for the museum grant, and its deadline is June 2.", "Ana")
    assert will is not None and will.bare
    assert grant is not None and not grant.bare
    # a word the scope says everywhere still says which thing two statements share
    cycle = slots.update(
        "For hiring, the cycle is now 16 days.",
        "For hiring, the cycle dropped from 28 to 18 days.",
        "Ana",
        frozenset({"hir"}),
    )
    assert cycle is not None and not cycle.bare
