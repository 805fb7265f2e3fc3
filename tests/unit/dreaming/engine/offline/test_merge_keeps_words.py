"""A merge of paraphrased memories keeps the words a fuller one says (`duplicates.says_more`,
`housekeeping.Housekeeping._merged_text`); on sentences written for this test."""

from __future__ import annotations

from datetime import UTC, datetime

from dreaming.embedding import canonical_tokens
from dreaming.engine.offline.duplicates import MERGE_EXTRA_WORDS, MergeCandidate, MergeGroup, says_more
from dreaming.engine.offline.housekeeping import Housekeeping, _Dated

OLD = "Ines enjoys painting."
FULLER = "Ines paints harbour scenes in oils every Sunday morning."
SAME = "Ines really enjoys painting."


def candidate(key: str, text: str, day: int) -> MergeCandidate:
    return MergeCandidate(key, text, canonical_tokens(text), datetime(2024, 5, day, tzinfo=UTC))


def merged(first: str, second: str) -> str | None:
    group = MergeGroup(candidate("a", first, 1), (candidate("b", second, 3),))
    dated = {"a": _Dated(f"[2024-05-01] {first}", None), "b": _Dated(f"[2024-05-03] {second}", None)}
    return Housekeeping._merged_text(group, dated)


def test_says_more_counts_content_words_beyond_the_values() -> None:
    assert says_more(FULLER, OLD)
    assert not says_more(SAME, OLD), "one intensifier is no new fact"
    assert not says_more("Ines enjoys painting on 2024-05-04.", OLD), "a value alone is appended, not counted"
    assert says_more(FULLER, OLD, MERGE_EXTRA_WORDS) and not says_more(
        "Ines does not eat fish.", "Ines is pescatarian.", MERGE_EXTRA_WORDS
    )


def test_a_merge_keeps_a_fuller_notes_words_after_the_survivors() -> None:
    assert merged(OLD, FULLER) == f"[2024-05-01] {OLD} {FULLER}"


def test_a_merge_of_one_thing_said_twice_keeps_the_survivors_wording() -> None:
    assert merged(OLD, SAME) is None, "nothing to change"
    assert merged("Ines is pescatarian.", "Ines does not eat meat.") is None, "three words, one fact"
