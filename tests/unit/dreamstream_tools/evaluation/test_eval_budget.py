"""The equal-budget rule: both sides read best-first up to the same words, the crossing item cut
(made-up items; one example where the curated memory wins at equal cost, one where it loses)."""

from __future__ import annotations

import pytest

from dreamstream_tools.evaluation.budget import read_to_budget, word_count, words_read
from dreamstream_tools.evaluation.dataset import Question
from dreamstream_tools.evaluation.evaluate import score
from dreamstream_tools.evaluation.matching import Haystack, first_words, words
from dreamstream_tools.evaluation.metrics import Item

SCOPE = "acme/helpdesk/ilse"


def item(text: str, *provenance: str) -> Item:
    return Item(text, tuple(provenance), SCOPE, text[:20])


@pytest.mark.parametrize(
    "text",
    [
        "[2026-02-03] Ilse: We adopted a grey cat.",
        "Ilse’s flat — 3rd floor, “near the park” (said on 2026-02-03)",
        "Straße İstanbul ﬁne Ⅻ 10½ AX3000 ok_then",
        "   ",
    ],
)
def test_first_words_reads_exactly_the_first_words_as_matching_counts_them(text):
    every = words(text)
    for count in range(len(every) + 2):
        assert words(first_words(text, count)) == every[:count]


def test_items_are_read_whole_while_they_fit_and_the_crossing_one_is_cut():
    ranked = [item("one two three", "m1"), item("four five six seven", "m2"), item("eight nine", "m3")]
    read = read_to_budget(ranked, 5)
    assert [i.text for i in read] == ["one two three", "four five"]
    assert read[1].provenance == ("m2",)  # the cut item keeps its provenance
    assert words_read(read) == 5
    assert [i.text for i in read_to_budget(ranked, 7)] == ["one two three", "four five six seven"]  # exact fit: no cut
    assert words_read(read_to_budget(ranked, 100)) == 9  # ran out of items
    assert read_to_budget(ranked, 0) == []


def test_a_date_line_and_a_said_on_stamp_are_paid_for_in_words():
    assert word_count("[2026-02-03] Ilse: hi") == 5
    assert word_count("Ilse said hi (said on 2026-02-03)") == 8


def _question(answer: str) -> Question:
    return Question(scope=SCOPE, question="?", answer=answer, category="single_hop", evidence_message_ids=("m7",))


def _both(question: Question, memory: list[Item], baseline: list[Item], k: int):
    budget = words_read(memory[:k])  # the default budget: memory's top-k words
    mine = score(question, memory, k, budget, Haystack(i.text for i in memory), memory)
    theirs = score(question, baseline, k, budget, Haystack(i.text for i in baseline), baseline)
    assert mine.at_budget.words == theirs.at_budget.words == budget  # the same reading cost
    return mine, theirs


def test_memory_wins_at_equal_budget_when_it_says_more_in_fewer_words():
    # A short curated fact; the raw answer sits in a later message than the words allow.
    memory = [item("Ilse's cat Pepper is four years old (said on 2026-02-03)", "m7"), item("Ilse lives in Graz", "m2")]
    baseline = [
        item("[2026-02-03] Ilse: guess what, we finally did it, after months of thinking about it", "m5"),
        item("[2026-02-03] Ilse: she is called Pepper", "m6"),
        item("[2026-02-03] Ilse: and she is four years old", "m7"),
    ]
    mine, theirs = _both(_question("four years old"), memory, baseline, k=2)
    assert mine.at_budget.answer_containment and mine.at_budget.evidence_recall == 1.0
    assert not theirs.at_budget.answer_containment and theirs.at_budget.evidence_recall == 0.0
    assert theirs.top_k.answer_containment is False and theirs.at_budget.items == 2  # the second one cut


def test_baseline_wins_at_equal_budget_when_memory_spends_its_words_on_other_things():
    # Memory's top items are long and beside the point; the raw message is short and ranked first.
    memory = [
        item(
            "Ilse talked about her week, the weather, her commute and the new office plants (said on 2026-02-03)", "m1"
        ),
        item(
            "Ilse and her colleague planned a team lunch and discussed a project at length (said on 2026-02-03)", "m2"
        ),
        item("Ilse's cat is called Pepper (said on 2026-02-03)", "m7"),
    ]
    baseline = [
        item("[2026-02-03] Ilse: Pepper turned four today", "m7"),
        item("[2026-02-03] Ilse: lunch at one", "m2"),
        item("[2026-02-03] Ilse: the office plants need water again, and the commute was slow", "m1"),
        item("[2026-02-04] Ilse: rain all week, and the bus was late twice", "m8"),
    ]
    mine, theirs = _both(_question("Pepper turned four"), memory, baseline, k=2)
    assert not mine.at_budget.answer_containment and mine.at_budget.evidence_recall == 0.0
    assert theirs.at_budget.answer_containment and theirs.at_budget.evidence_recall == 1.0
    assert theirs.at_budget.items == 4  # it reads past its top k, the last message cut
    assert theirs.top_k.words < mine.top_k.words  # at top k the baseline reads fewer words
