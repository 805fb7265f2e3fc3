"""Variants of an evaluation set (`dreamstream_tools.evaluation.variants`) on rows written for this
test: what each shape changes, and that the result still loads as a set whose questions point at
its messages."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from dreamstream_tools.cli_eval import eval_variant_command
from dreamstream_tools.evaluation import variants
from dreamstream_tools.evaluation.dataset import load_dataset
from tests.unit.snapshot_factory import turn_row


def _question(scope: str, message_id: str) -> dict:
    return {
        "scope": scope,
        "question": "When is the kiln firing?",
        "answer": "May 4",
        "evidence_message_ids": [message_id],
        "category": "single_hop",
        "id": f"q-{message_id}",
    }


PROJECTS = {
    "events.jsonl": [
        turn_row("t/a", "a1", 0, "user", "Hi, I'm Ines, I need a plan for my show.", "2024-03-02T12:00:00+00:00"),
        turn_row("t/a", "a1", 1, "assistant", "Happy to help, Ines.", "2024-03-02T12:00:00.000001+00:00"),
        turn_row("t/a", "a2", 2, "user", "The kiln firing is on May 4.", "2024-03-09T12:00:00+00:00"),
        turn_row("t/b", "b1", 0, "user", "I'm Ines, and my half marathon is in June.", "2024-03-02T12:00:00+00:00"),
        turn_row("t/b", "b2", 1, "user", "I ran 12 km today.", "2024-03-05T12:00:00+00:00"),
        turn_row("t/c", "c1", 0, "user", "Can you check my tax forms?", "2024-03-01T09:30:00+00:00"),
    ],
    "questions.jsonl": [_question("t/a", "a2#2"), _question("t/b", "b2#1")],
    "memory_adds.jsonl": [],
}


def test_scopes_of_one_person_are_joined_with_their_sessions_in_date_order() -> None:
    joined = variants.joined_by_person(PROJECTS)
    events = joined["events.jsonl"]
    assert {e["scope"] for e in events} == {"eval/joined/ines", "eval/joined/unnamed"}
    ines = [e for e in events if e["scope"] == "eval/joined/ines"]
    # a session stays whole; a day's sessions follow the scopes' order; each time after the last
    assert [e["message_id"] for e in ines] == ["a1#0", "a1#1", "b1#0", "b2#1", "a2#2"]
    times = [e["ts"] for e in ines]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert ines[3]["ts"] == "2024-03-05T12:00:00+00:00"  # a time that keeps the order is kept
    assert {q["scope"] for q in joined["questions.jsonl"]} == {"eval/joined/ines"}


def test_lower_case_keeps_the_name_prefix_and_can_be_limited_to_a_role() -> None:
    rows = [
        turn_row("t/a", "s", 0, "user", "Ines: The Kiln is HOT.", "2024-03-02T12:00:00+00:00"),
        turn_row("t/a", "s", 1, "assistant", "Noted, Ines.", "2024-03-02T12:00:01+00:00"),
    ]
    assert [e["content"] for e in variants.lower_cased(rows)] == ["Ines: the kiln is hot.", "noted, ines."]
    assert [e["content"] for e in variants.lower_cased(rows, frozenset({"user"}))] == [
        "Ines: the kiln is hot.",
        "Noted, Ines.",
    ]


def test_unprefixed_gives_the_first_speaker_the_user_role_and_the_second_the_assistants() -> None:
    rows = [
        turn_row("t/a", "s", 0, "user", "Ines: Hi Tomas!", "2024-03-02T12:00:00+00:00"),
        turn_row("t/a", "s", 1, "user", "Tomas: Hey Ines.", "2024-03-02T12:00:01+00:00"),
        turn_row("t/a", "s", 2, "user", "Ines: Note: the kiln is hot.", "2024-03-02T12:00:02+00:00"),
    ]
    out = variants.unprefixed(rows)
    assert [(e["role"], e["content"]) for e in out] == [
        ("user", "Hi Tomas!"),
        ("assistant", "Hey Ines."),
        ("user", "Note: the kiln is hot."),
    ]


def test_the_command_writes_a_set_that_loads(tmp_path: Path) -> None:
    source = tmp_path / "source"
    variants.write_set(source, PROJECTS)
    out = tmp_path / "joined"
    result = CliRunner().invoke(eval_variant_command, ["joined", str(source), str(out)])
    assert result.exit_code == 0, result.output
    assert "6 events in 2 scopes" in result.output
    dataset = load_dataset(out / "events.jsonl", out / "questions.jsonl")
    ids = {t.message_id for t in dataset.turns}
    assert all(set(q.evidence_message_ids) <= ids for q in dataset.questions)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "events.jsonl").write_text('{"scope": "t/a"}\n{"scope": \n', encoding="utf-8")
    refused = CliRunner().invoke(eval_variant_command, ["joined", str(broken), str(tmp_path / "y")])
    assert refused.exit_code != 0 and "events.jsonl:2: not JSON" in refused.output
    empty = tmp_path / "empty"
    empty.mkdir()
    refused = CliRunner().invoke(eval_variant_command, ["lower-case", str(empty), str(tmp_path / "x")])
    assert refused.exit_code != 0 and "no events.jsonl lines" in refused.output
