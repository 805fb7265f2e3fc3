"""A structured assistant reply leaves its outline as one attributed memory (`reply_outline`,
`assistant_notes`), on replies written for these tests: no sentence is from any dataset."""

from __future__ import annotations

import re

from dreaming.embedding import canonical_tokens
from dreaming.engine.offline.assistant_notes import assistant_notes, is_assistant_note, is_outline, is_reported_speech
from dreaming.engine.offline.reply_outline import OUTLINE_MAX_WORDS, reply_outline
from language.dates import without_stamp
from tests.unit.dreaming.engine.offline.test_offline_extraction import creates, said, user_asks

TRAINING_PLAN = """Great goal! Here is a plan that gets you to the half marathon.

### Why a Base Matters
Most injuries come from doing too much too soon.

### Your Weekly Structure
- **Long run**: builds endurance, keep it slow.
- **Tempo run**: teaches your legs the race pace.
- **Rest days**: at least two a week.

### Phase 1 (March 2 - March 29)
- **Weekly distance**: 20 km
- **Long run**: 8 km
### Phase 2 (March 30 - April 26)
- **Weekly distance**: 28 km
### Phase 3 (April 27 - May 17)
- **Weekly distance**: 34 km
### Taper and Race Week (May 18 - May 24)
- **Strides and mobility work before breakfast on weekdays**: short, easy, never to exhaustion
- **Race day**: [Your start time]

### Sample Day
- **6:30 AM**
- **7:00 AM - 7:45 AM**

### Conclusion
You can do this!
"""


def test_the_outline_keeps_the_plans_sections_in_order() -> None:
    items = reply_outline(TRAINING_PLAN)
    assert "Phase 3 (April 27 - May 17)" in items and "Taper and Race Week (May 18 - May 24)" in items
    assert items.index("Phase 1 (March 2 - March 29)") < items.index("Phase 2 (March 30 - April 26)")
    assert "Tempo run" in items and "Rest days" in items, "labels said once, with room left"


def test_headings_come_before_labels_when_the_outline_is_full() -> None:
    stops = ["Lyon", "Dijon", "Basel", "Lucerne", "Como", "Verona", "Trieste", "Ljubljana", "Zagreb", "Graz"]
    reply = "".join(f"## Stop {n}: {town} Old Town\n- **{town} tip**: arrive early\n" for n, town in enumerate(stops))
    items = reply_outline(reply)
    words = sum(len(re.findall(r"[\w']+", i)) for i in items)
    assert items == [f"Stop {n}: {town} Old Town" for n, town in enumerate(stops)][: len(items)], items
    assert OUTLINE_MAX_WORDS - 5 < words <= OUTLINE_MAX_WORDS, "headings fill the outline, labels wait"


def test_template_fields_blanks_clock_times_and_sentences_are_no_outline_items() -> None:
    items = reply_outline(TRAINING_PLAN)
    assert "Weekly distance: 20 km" not in items and "Long run" not in items, "a field every section repeats"
    assert not any("[" in i or "AM" in i for i in items), "a blank to fill in, a slot without its activity"
    assert not any(i.startswith("Strides") for i in items), "a label as long as a sentence is a sentence"


def test_a_reply_with_one_item_or_only_the_users_words_has_no_outline() -> None:
    assert reply_outline("### Answer\nYes, the ferry runs daily.") == []
    confirm = "### Dentist\n- **Date**: Friday\n- **Time**: 3 PM"
    assert reply_outline(confirm) != []
    asked = canonical_tokens("Please confirm the date and time: dentist on Friday, 3 PM.")
    assert reply_outline(confirm, asked) == [], "a confirmation that only repeats the user adds nothing"


def test_the_outline_is_one_attributed_note_after_the_sentence_notes() -> None:
    ask = user_asks("t/run/a", "I want to run a half marathon on May 24, can you plan my training?")
    reply = ask.model_copy(update={"message_id": "m1", "role": "assistant", "content": TRAINING_PLAN})
    notes = [without_stamp(n.text) for n in assistant_notes(reply, ask, "Noor")]
    outline = notes[-1]
    assert outline.startswith("The assistant outlined: ") and is_outline(outline), notes
    assert is_assistant_note(outline) and is_reported_speech(outline)
    assert "Noor's Weekly Structure" in outline, "the reply's 'your' is the user's"
    assert sum(is_outline(n) for n in notes) == 1


def test_an_outline_is_kept_beside_a_later_change_it_does_not_state() -> None:
    chat = [
        ("user", "Noor: My half marathon is on May 24, can you plan my training?"),
        ("assistant", TRAINING_PLAN),
        ("user", "Noor: Update: my long run is now 12 km every Sunday."),
    ]
    texts = said(creates("t/run/b", chat))
    assert any(t.startswith("The assistant outlined: ") for t in texts["1"].split(" | ")), texts
    assert "12 km" in texts["2"]
