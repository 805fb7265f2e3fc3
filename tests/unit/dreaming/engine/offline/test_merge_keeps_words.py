"""A merge of paraphrased memories keeps the words a fuller one says (`duplicates.says_more`,
`duplicates.fullest`, `housekeeping.Housekeeping._merged_text`); on sentences written for this test."""

from __future__ import annotations

from datetime import UTC, datetime

from dreaming.embedding import canonical_tokens
from dreaming.engine.offline.duplicates import MergeCandidate, MergeGroup, fullest, says_more
from dreaming.engine.offline.housekeeping import Housekeeping, _Dated

OLD = "Ines enjoys painting."
FULLER = "Ines paints harbour scenes in oils every Sunday morning."
SAME = "Ines really enjoys painting."


def candidate(key: str, text: str, day: int) -> MergeCandidate:
    return MergeCandidate(key, text, canonical_tokens(text), datetime(2024, 5, day, tzinfo=UTC))


def test_says_more_counts_content_words_beyond_the_values() -> None:
    assert says_more(FULLER, OLD)
    assert not says_more(SAME, OLD), "one intensifier is no new fact"
    assert not says_more("Ines enjoys painting on 2024-05-04.", OLD), "a value alone is appended, not counted"


def test_the_fullest_wording_is_the_one_no_other_says_more_than() -> None:
    assert fullest([OLD, FULLER]) == 1
    assert fullest([OLD, SAME]) == 0
    assert fullest(["Ines paints harbours.", "Ines sings in a choir on Tuesdays."]) == 0, "neither holds the other"


def test_a_merge_keeps_the_fuller_words_first_and_the_others_values() -> None:
    group = MergeGroup(candidate("a", OLD, 1), (candidate("b", FULLER, 3),))
    dated = {"a": _Dated(f"[2024-05-01] {OLD}", None), "b": _Dated(f"[2024-05-03] {FULLER}", None)}
    assert Housekeeping._merged_text(group, dated) == f"[2024-05-03] {FULLER}"


def test_a_merge_of_two_that_each_say_more_keeps_both() -> None:
    other = "Ines enjoys painting with her niece Mara at the lake."
    group = MergeGroup(candidate("a", FULLER, 1), (candidate("b", other, 3),))
    dated = {"a": _Dated(f"[2024-05-01] {FULLER}", None), "b": _Dated(f"[2024-05-03] {other}", None)}
    merged = Housekeeping._merged_text(group, dated)
    assert merged is not None and "oils" in merged and "niece Mara" in merged


def test_a_merge_of_a_plain_paraphrase_keeps_the_survivors_wording() -> None:
    group = MergeGroup(candidate("a", OLD, 1), (candidate("b", SAME, 3),))
    dated = {"a": _Dated(f"[2024-05-01] {OLD}", None), "b": _Dated(f"[2024-05-03] {SAME}", None)}
    assert Housekeeping._merged_text(group, dated) is None, "nothing to change"
