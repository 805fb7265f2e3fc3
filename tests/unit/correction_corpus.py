"""A probe corpus of corrections, updates and look-alikes, written for these tests (no dev-set or
seed text): what an earlier message said, what a later one says, and what memory must hold after.

- `CORRECTIONS`: a later message corrects a word value the earlier one gave ("aisle, not window"),
  phrased many ways; the old value must leave active memory and the new one be there.
- `UPDATES`: a later message gives a number, time or day a new value ("the budget went up to …").
- `LOOK_ALIKES`: later messages shaped like a correction or sharing a word or a number with the
  earlier one, about something else (idioms, other people, other things, a second event): nothing
  is superseded and both statements stay.

Each probe is one scope: `earlier` in a first session, `later` in a second one a week on, every
user message answered by a short assistant reply. `speaker` names both sides' messages
("Name: text") for a two-person chat, else the chat is user/assistant.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Probe:
    name: str
    earlier: tuple[str, ...]
    later: tuple[str, ...]
    stale: str | None = None
    """A phrase no active memory may still state once the later message is read (the old value)."""
    fresh: str | None = None
    """A phrase some active memory must state (the new value)."""
    kept: tuple[str, ...] = ()
    """Phrases that must stay in active memory (statements nobody contradicted)."""
    speaker: str | None = None
    """Name prefix of the user's messages in a two-person chat."""
    other: str | None = None
    """Name prefix of the other person's messages (then they replace the assistant's replies)."""


def _c(name: str, earlier: str, later: str, stale: str, fresh: str) -> Probe:
    return Probe(name, (earlier,), (later,), stale=stale, fresh=fresh)


CORRECTIONS: tuple[Probe, ...] = (
    _c(
        "seat",
        "I always sit by the window on long flights.",
        "Aisle, not window: I prefer aisle seats now.",
        "window",
        "aisle",
    ),
    _c("city", "I live in Leeds with my sister.", "Correction: I live in York now, not Leeds.", "Leeds", "York"),
    _c(
        "drink",
        "I drink black coffee every morning.",
        "These days I drink green tea instead of coffee in the morning.",
        "coffee",
        "green tea",
    ),
    _c(
        "tracker",
        "Our team tracks bugs in Jira.",
        "We moved from Jira to Linear for bug tracking last month.",
        "Jira",
        "Linear",
    ),
    _c("dog", "My dog is called Biscuit.", "Actually my dog's name is Pepper, not Biscuit.", "Biscuit", "Pepper"),
    _c(
        "language",
        "I am learning Italian on weekends.",
        "I switched from Italian to Portuguese for my weekend lessons.",
        "Italian",
        "Portuguese",
    ),
    _c("car", "My new car is silver.", "No, the car is dark blue, not silver.", "silver", "dark blue"),
    _c("gym", "I go to the gym on Mondays.", "I go to the gym on Thursdays now, not Mondays.", "Mondays", "Thursdays"),
    _c(
        "editor",
        "I write all my code in Vim.",
        "I write my code in VS Code rather than Vim these days.",
        "Vim",
        "VS Code",
    ),
    _c(
        "phone",
        "I use an Android phone for work.",
        "I changed from Android to an iPhone for work in the spring.",
        "Android",
        "iPhone",
    ),
    _c(
        "sport",
        "My son plays football on Saturdays.",
        "My son plays hockey on Saturdays, not football.",
        "football",
        "hockey",
    ),
    _c(
        "hotel",
        "We booked the Harbour Hotel for the conference.",
        "We are staying at the Lakeside Inn instead of the Harbour Hotel for the conference.",
        "Harbour",
        "Lakeside",
    ),
    _c(
        "database",
        "The billing service stores its data in MySQL.",
        "We decided the billing service stores its data in SQLite rather than MySQL.",
        "MySQL",
        "SQLite",
    ),
    _c(
        "airline",
        "I usually fly with Lufthansa.",
        "I usually fly with KLM now instead of Lufthansa.",
        "Lufthansa",
        "KLM",
    ),
    _c(
        "job",
        "My wife works as a nurse at the clinic.",
        "Correction: my wife works as a midwife, not a nurse.",
        "nurse",
        "midwife",
    ),
    _c(
        "instrument",
        "My daughter is taking violin lessons.",
        "My daughter switched from violin to cello lessons.",
        "violin",
        "cello",
    ),
    _c(
        "shift",
        "I work the night shift at the depot.",
        "I work the day shift at the depot now, not the night shift.",
        "night",
        "day shift",
    ),
    _c(
        "music",
        "I mostly listen to jazz while working.",
        "Not jazz, it is classical music that I listen to while working.",
        "jazz",
        "classical",
    ),
    _c(
        "browser",
        "I browse with Firefox on my laptop.",
        "I browse with Chrome instead of Firefox on my laptop now.",
        "Firefox",
        "Chrome",
    ),
    _c(
        "breakfast",
        "I eat porridge for breakfast.",
        "No, I eat yoghurt for breakfast, not porridge.",
        "porridge",
        "yoghurt",
    ),
    _c(
        "bank",
        "I keep my savings at Northbank.",
        "I moved my savings from Northbank to Riverbank.",
        "Northbank",
        "Riverbank",
    ),
    _c(
        "team",
        "I play in the Tigers five-a-side team.",
        "I play in the Falcons team now, not the Tigers.",
        "Tigers",
        "Falcons",
    ),
    _c(
        "shoes",
        "I run in Asics trainers.",
        "I run in Brooks trainers instead of Asics since my knee injury.",
        "Asics",
        "Brooks",
    ),
    _c(
        "laptop",
        "My work laptop is a ThinkPad.",
        "My work laptop is a MacBook now, not a ThinkPad.",
        "ThinkPad",
        "MacBook",
    ),
)

UPDATES: tuple[Probe, ...] = (
    Probe(
        "one of three deadlines",
        (
            "I have a deadline of May 15 to finish my will with the notary.",
            "My pottery course has a deadline of April 30 for the final vase.",
            "I'm applying for the harbour museum grant, and the application deadline is June 2.",
        ),
        ("I'm nervous about the harbour museum grant, but the deadline was extended to June 9!",),
        stale="June 2",
        fresh="June 9",
        kept=("May 15", "April 30"),
    ),
    Probe(
        "the deadline last spoken of",
        (
            "I have a deadline of May 15 to finish my will with the notary.",
            "My pottery course has a deadline of April 30 for the final vase.",
        ),
        ("Good news: the deadline was extended to May 7.",),
        stale="April 30",
        fresh="May 7",
        kept=("May 15",),
    ),
    Probe(
        "an 'it' after the thing it stands for",
        ("The school play rehearsal is on Thursday at 4 PM.",),
        ("I spoke to Ms. Alvarez about the school play rehearsal, and it's been moved to Friday at 5 PM.",),
        stale="4 PM",
        fresh="5 PM",
    ),
    Probe(
        "an 'it' in the sentence after",
        ("My car insurance renewal costs $900 a year.",),
        ("I finally read the car insurance renewal letter. It went up to $1,020 a year.",),
        stale="$900",
        fresh="$1,020",
    ),
    Probe(
        "an 'it' in a request",
        ("The book club meets on October 3 at 7 PM at the library.",),
        ("I keep mixing up dates for the book club, so can you remember that it was pushed back to October 10?",),
        stale="October 3",
        fresh="October 10",
    ),
    Probe(
        "a moved event keeps who and where",
        ("I'm excited about the joint poetry reading with Priya on June 9 at the Harbour Arts Hall.",),
        ("Our poetry reading is being moved from June 9 to June 16, so how should I plan rehearsals?",),
        stale="June 9",
        fresh="June 16",
        kept=("Priya", "Harbour Arts Hall"),
    ),
    _c(
        "groceries",
        "My monthly grocery budget is $400.",
        "We raised the grocery budget to $480 a month.",
        "$400",
        "$480",
    ),
    _c(
        "report",
        "My quarterly report is due on March 14.",
        "The quarterly report deadline got pushed to March 21.",
        "March 14",
        "March 21",
    ),
    _c(
        "plants",
        "I have 3 houseplants in my flat.",
        "I now have 7 houseplants in my flat.",
        "3 houseplants",
        "7 houseplants",
    ),
    _c("yoga", "My yoga class starts at 6 PM.", "The yoga class moved to 7:30 PM.", "6 PM", "7:30 PM"),
    _c("chess", "My chess rating is 1450.", "My chess rating went up to 1510.", "1450", "1510"),
    _c(
        "internet",
        "Our internet plan costs $60 a month.",
        "The provider increased our internet plan to $68 a month.",
        "$60",
        "$68",
    ),
    _c(
        "eye exam",
        "My eye exam is on May 9 at 10 AM.",
        "I rescheduled the eye exam to May 12 at 3 PM.",
        "May 9",
        "May 12",
    ),
    _c(
        "savings",
        "I save $250 a month for the holiday.",
        "I increased my holiday savings to $320 a month.",
        "$250",
        "$320",
    ),
    # The new value said inside a feeling or an aside, the old one inside framing of its own.
    _c(
        "ferry",
        "I'm a little nervous that the island ferry leaves at 7:15 AM.",
        "I still have to warn the passengers that the island ferry was moved to 8:05 AM.",
        "7:15 AM",
        "8:05 AM",
    ),
    _c(
        "regatta",
        "I keep mixing up which weekend the harbour regatta is, and the harbour regatta is on June 8.",
        "I drafted a note to the crew saying the harbour regatta was moved to June 15.",
        "June 8",
        "June 15",
    ),
    _c(
        "climbing fee",
        "I find it hard to pay the $48 monthly climbing gym fee.",
        "I keep climbing now that the climbing gym fee was raised to $55.",
        "$48",
        "$55",
    ),
    _c(
        "subscribers",
        "My cooking blog has 900 subscribers.",
        "My cooking blog grew to 1,150 subscribers.",
        "900",
        "1,150",
    ),
    _c(
        "rent",
        "The rent for my flat is $1,300 a month.",
        "My landlord raised the rent for my flat to $1,390 a month.",
        "$1,300",
        "$1,390",
    ),
    _c(
        "coverage",
        "The test coverage of my parser module is 58%.",
        "The test coverage of my parser module is up to 71% after this week's tests.",
        "58%",
        "71%",
    ),
    _c(
        "load time",
        "My shop's home page loads in 2.4 seconds.",
        "I got my shop's home page load time down to 1.1 seconds.",
        "2.4",
        "1.1",
    ),
    # Two earlier memories give the value beside other facts: both are replaced, neither fact lost.
    Probe(
        "two holders of one value",
        (
            "The pottery studio membership is $70 a month and my kiln slot is on Tuesdays.",
            "I'm a little stressed that the $70 monthly pottery studio membership also comes with a $15 clay fee.",
        ),
        ("The pottery studio membership went up to $82 a month.",),
        stale="$70",
        fresh="$82",
        kept=("Tuesdays", "$15 clay fee"),
    ),
    _c(
        "reading goal",
        "My reading goal for this year is 20 books.",
        "I lowered my reading goal for this year to 15 books.",
        "20 books",
        "15 books",
    ),
    _c(
        "meeting",
        "The kickoff call with the design agency is on June 4 at 2 PM.",
        "The kickoff call with the design agency was moved to June 6 at 11 AM.",
        "June 4",
        "June 6",
    ),
    _c(
        "long sentence",
        "I am trying to keep my photo app small, and the install size is 48 MB right now.",
        "I want to add offline albums, but the photo app install size has already dropped to 41 MB "
        "after I removed unused fonts.",
        "48 MB",
        "41 MB",
    ),
    Probe(
        "students (named)",
        ("Tomas: My pottery class has 12 students this term.",),
        ("Tomas: My pottery class has 18 students now.",),
        stale="12 students",
        fresh="18 students",
        speaker="Tomas",
        other="Wren",
    ),
)

LOOK_ALIKES: tuple[Probe, ...] = (
    Probe(
        "a switch only planned",
        ("I do my budgeting in a paper notebook.",),
        ("I'm planning to move from the paper notebook to a spreadsheet for budgeting, and I'll start on Sunday.",),
        kept=("paper notebook",),
    ),
    Probe(
        "'it' is the thing, not what the thing is for",
        ("My brother's graduation is on June 20.",),
        ("I ordered a gift for my brother's graduation and it was delayed to June 25.",),
        kept=("June 20", "June 25"),
    ),
    Probe(
        "'it' with no value of the same kind",
        ("The team offsite in Porto is on September 12.",),
        ("I printed the agenda for the team offsite, and it was 14 pages long.",),
        kept=("September 12", "14 pages"),
    ),
    Probe(
        "what was cut is not the target",
        ("My weekly reading target was raised to 300 pages, how do I keep up?",),
        ("I cut 120 pages from my thesis draft after the review, was that too much?",),
        kept=("300 pages", "120 pages"),
    ),
    Probe(
        "a switch the memory already says",
        ("I read paper books at lunch and will switch to podcasts on the drive home.",),
        ("I switched from paper books to podcasts for the drive home to rest my eyes.",),
        kept=("at lunch",),
    ),
    Probe(
        "a change word about something else",
        ("I booked the piano tuner for March 3.",),
        ("I'm switching to a new piano tuner after March 10.",),
        kept=("March 3", "March 10"),
    ),
    Probe(
        "one shared word, two fees",
        ("My climbing gym fee is $48.",),
        ("I raised my monthly parking fee to $90.",),
        kept=("$48", "$90"),
    ),
    Probe(
        "idiom good/bad",
        ("My relationship with my brother is good.",),
        ("I try to focus on the good instead of the bad.",),
        kept=("brother is good",),
    ),
    Probe(
        "idiom large/small",
        ("Our garden is large and full of roses.",),
        ("We went from large to small portions at dinner.",),
        kept=("garden is large",),
    ),
    Probe(
        "idiom not perfection",
        ("My manager is strict about deadlines.",),
        ("My coach says to aim for progress, not perfection, and that calms me down about deadlines.",),
        kept=("strict about deadlines",),
    ),
    Probe(
        "idiom street",
        ("I always park on the street near the bakery.",),
        ("Our kitchen window faces the garden, not the street.",),
        kept=("on the street near the bakery",),
    ),
    Probe(
        "idiom much",
        ("I spend much of my free time hiking.",),
        ("I worry about work less rather than much more these days.",),
        kept=("time hiking",),
    ),
    Probe(
        "idiom change from",
        ("I love the quiet of early mornings.",),
        ("The weather can change from quiet to stormy in an hour up in the hills.",),
        kept=("quiet of early mornings",),
    ),
    Probe(
        "other person moved",
        ("My sister moved to Berlin in 2019.",),
        ("My colleague moved from Berlin to Munich for a new job.",),
        kept=("sister moved to Berlin",),
    ),
    Probe(
        "two runs",
        ("I ran 5 km along the river on Saturday.",),
        ("I ran 8 km along the river this morning.",),
        kept=("5 km", "8 km"),
    ),
    Probe(
        "two purchases",
        ("I bought 2 plants at the market.",),
        ("I bought 4 books about sailing online.",),
        kept=("2 plants", "4 books"),
    ),
    Probe(
        "two drinks liked",
        ("I like tea in the morning.",),
        ("I also like coffee after lunch.",),
        kept=("tea", "coffee"),
    ),
    Probe(
        "two trips",
        ("I visited Lisbon in May 2023 with my parents.",),
        ("I visited Porto in June 2023 with my friends.",),
        kept=("Lisbon", "Porto"),
    ),
    Probe(
        "two dates",
        ("My meeting with the bank is on June 2.",),
        ("My cousin's wedding is on June 9.",),
        kept=("June 2", "June 9"),
    ),
    Probe(
        "two counts",
        ("I have two cats at home.",),
        ("I have three brothers and a sister.",),
        kept=("two cats", "three brothers"),
    ),
    Probe(
        "two budgets",
        ("My monthly book budget is $35.",),
        ("My monthly gym fee is $45.",),
        kept=("$35", "$45"),
    ),
    Probe(
        "two deadlines",
        ("The grant application deadline is October 12.",),
        ("The visa renewal is due on November 2.",),
        kept=("October 12", "November 2"),
    ),
    Probe(
        "instead of an activity",
        ("I love my old red bike.",),
        ("I walked to work instead of cycling because of the rain.",),
        kept=("red bike",),
    ),
    Probe(
        "rather than a habit",
        ("I bake bread every Sunday.",),
        ("My neighbour makes pizza rather than bread on Sundays.",),
        kept=("bread every Sunday",),
    ),
    Probe(
        "other person same slot (named)",
        ("Tomas: My pottery class has 12 students.",),
        ("Wren: My yoga class has 20 students.",),
        kept=("12 students", "20 students"),
        speaker="Tomas",
        other="Wren",
    ),
    Probe(
        "other person corrects themself (named)",
        ("Tomas: I always sit by the window on trains.",),
        ("Wren: I sit in the aisle, not by the window, on buses.",),
        kept=("Tomas always sits by the window",),
        speaker="Tomas",
        other="Wren",
    ),
    Probe(
        "more detail",
        ("I have a dentist appointment on July 3.",),
        ("The dentist appointment on July 3 is at 9 AM with Dr Lund.",),
        fresh="9 AM",
        kept=("July 3",),
    ),
)
