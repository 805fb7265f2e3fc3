"""Evaluation inputs (loading, its errors, choosing scopes), the synthetic set, and the commands'
error handling — everything of `dreamstream eval` that needs no store and no broker (the report:
test_eval_report.py)."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from dreamstream_tools.cli_eval import eval_command, eval_data_command
from dreamstream_tools.evaluation.dataset import KNOWN_CATEGORIES, DatasetError, load_dataset, select_scopes
from dreamstream_tools.evaluation.matching import normalised_date, words
from dreamstream_tools.evaluation.synth import generate
from dreamstream_tools.evaluation.synth_corpus import RELATIVE_FORMS, WEEKDAYS, resolve
from language.dates import rewrite_relative_time

SCOPE = "demo/travel-assistant/ava"


def write(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def turn(message_id: str, content: str = "hello there friend", scope: str = SCOPE, **extra) -> dict:
    return {
        "scope": scope,
        "session_id": "s1",
        "message_id": message_id,
        "role": "user",
        "content": content,
        "ts": "2026-03-02T09:00:00+00:00",
        **extra,
    }


def question(**extra) -> dict:
    return {
        "scope": SCOPE,
        "question": "Which seat?",
        "answer": "aisle",
        "evidence_message_ids": ["m1"],
        "category": "knowledge_update",
        **extra,
    }


@pytest.fixture
def files(tmp_path):
    def make(events=None, questions=None, adds=None):
        e = write(tmp_path / "events.jsonl", events if events is not None else [turn("m1"), turn("m2")])
        q = write(tmp_path / "questions.jsonl", questions if questions is not None else [question()])
        a = write(tmp_path / "adds.jsonl", adds) if adds is not None else None
        return e, q, a

    return make


# --- loading
def test_the_fixtures_load(fixtures_dir):
    data = load_dataset(
        fixtures_dir / "events.jsonl", fixtures_dir / "questions.jsonl", fixtures_dir / "memory_adds.jsonl"
    )
    assert (len(data.turns), len(data.adds), len(data.questions), len(data.scopes)) == (35, 6, 12, 6)
    assert {q.category for q in data.questions} == set(KNOWN_CATEGORIES)
    assert data.messages_of(SCOPE) >= {"ava-s1#0", "ava-s2#2"}


def test_turns_keep_the_producers_order_not_their_ids_as_text(files):
    """Same timestamp: file order. "D1:10" sorts before "D1:2" as text; the producer's order wins."""
    rows = [turn(f"D1:{n}") for n in (1, 2, 10, 11)] + [turn("D0:9", ts="2026-03-01T09:00:00+00:00")]
    events, questions, _ = files(events=rows, questions=[question(evidence_message_ids=["D1:1"])])
    data = load_dataset(events, questions)
    assert [t.message_id for t in data.turns_of(SCOPE)] == ["D0:9", "D1:1", "D1:2", "D1:10", "D1:11"]


def test_memory_adds_may_sit_in_the_events_file(files):
    add = {"scope": SCOPE, "memory_id": "a1", "text": "Ava likes tea", "ts": "2026-03-02T09:00:00+00:00"}
    data = load_dataset(*files(events=[turn("m1"), add])[:2])
    assert len(data.turns) == 1 and [a.memory_id for a in data.adds] == ["a1"]


@pytest.mark.parametrize(
    ("events", "questions", "expected"),
    [
        ([turn("m1"), "{not json"], None, "events.jsonl:2: not valid JSON"),
        ([turn("m1"), "[1, 2]"], None, "events.jsonl:2: expected a JSON object, got list"),
        ([turn("m1", role="robot")], None, "events.jsonl:1: invalid conversation turn: role:"),
        ([turn("m1", scope="acme/../globex")], None, "events.jsonl:1: invalid conversation turn: scope:"),
        (
            [turn("m1"), turn("m1")],
            None,
            "events.jsonl:2: duplicate id 'm1' in scope demo/travel-assistant/ava (first at",
        ),
        ([{"scope": SCOPE, "action": "trigger", "request_id": "r"}], None, "events.jsonl:1: control events"),
        ([], None, "events.jsonl: no conversation turns"),
        (
            None,
            [question(), question(evidence_message_ids=["m9"])],
            "questions.jsonl:2: evidence_message_ids: 'm9' is not a message of scope demo/travel-assistant/ava",
        ),
        (None, [question(stale_message_ids=["nope"])], "questions.jsonl:1: stale_message_ids: 'nope' is not a message"),
        (None, [question(stale_messages_ids=["m1"])], "questions.jsonl:1: invalid question: stale_messages_ids: Extra"),
        (None, [question(answer="")], "questions.jsonl:1: invalid question: answer:"),
        (
            None,
            [question(scope="globex/travel-assistant/ava")],
            "questions.jsonl:1: scope globex/travel-assistant/ava has no events",
        ),
        (None, [], "questions.jsonl: no questions"),
    ],
)
def test_a_bad_line_is_named_by_file_and_line(files, events, questions, expected):
    with pytest.raises(DatasetError) as caught:
        load_dataset(*files(events, questions)[:2])
    assert expected in str(caught.value)
    assert "\n" not in str(caught.value)


def test_an_invalid_memory_add_is_named(files):
    events, questions, adds = files(
        adds=[{"scope": SCOPE, "memory_id": "a1", "text": "", "ts": "2026-03-02T09:00:00+00:00"}]
    )
    with pytest.raises(DatasetError, match=r"adds.jsonl:1: invalid memory-add: text:"):
        load_dataset(events, questions, adds)


def test_a_missing_file_is_one_clear_error(tmp_path, files):
    events, questions, _ = files()
    with pytest.raises(DatasetError, match=r"nope.jsonl: cannot read"):
        load_dataset(events, questions, tmp_path / "nope.jsonl")


# --- choosing scopes (a quick run over a few)
SCOPES = ["eval/set/conv-1", "eval/set/conv-10", "eval/set/conv-2", "other/set/conv-1"]


def test_scopes_are_chosen_by_pattern_and_count():
    assert select_scopes(SCOPES) == SCOPES
    assert select_scopes(SCOPES, ["eval/set/conv-1*"]) == ["eval/set/conv-1", "eval/set/conv-10"]
    assert select_scopes(SCOPES, ["eval/set/conv-2", "other/*"]) == ["eval/set/conv-2", "other/set/conv-1"]
    assert select_scopes(SCOPES, limit=2) == ["eval/set/conv-1", "eval/set/conv-10"]
    assert select_scopes(SCOPES, ["*/conv-1"], limit=1) == ["eval/set/conv-1"]


def test_a_pattern_matching_no_scope_is_an_error_not_an_empty_run():
    with pytest.raises(DatasetError, match=r"--scopes 'eval/set/conv-3' matches none of the 4 scopes"):
        select_scopes(SCOPES, ["eval/set/conv-1", "eval/set/conv-3"])


def test_a_subset_keeps_only_its_scopes_events_adds_and_questions(files, tmp_path):
    other = "acme/helpdesk/noor"
    add = {"scope": other, "memory_id": "a1", "text": "Noor pays in kroner", "ts": "2026-03-02T09:00:00+00:00"}
    events, questions, adds = files(
        events=[turn("m1"), turn("m2"), turn("m1", "a different scope's line", scope=other)],
        questions=[question(), question(scope=other, answer="kroner")],
        adds=[add],
    )
    data = load_dataset(events, questions, adds)
    part = data.subset([other])
    assert part.scopes == [other] and [t.content for t in part.turns] == ["a different scope's line"]
    assert [a.memory_id for a in part.adds] == ["a1"] and [q.answer for q in part.questions] == ["kroner"]
    assert part.messages_of(other) == {"m1"} and part.messages_of(SCOPE) == frozenset()
    written = part.write_events(tmp_path / "subset")
    assert [p.name for p in written.files] == ["events.jsonl", "memory_adds.jsonl"]
    asked = write(tmp_path / "q2.jsonl", [question(scope=other, answer="kroner")])
    again = load_dataset(written.files[0], asked, written.files[1])  # what the pipeline would replay
    assert again.turns == part.turns and again.adds == part.adds


# --- the commands' errors need neither Kafka nor a store
def test_eval_fails_with_one_line_naming_the_file_and_line(files):
    events, questions, _ = files(questions=[question(evidence_message_ids=["m9"])])
    result = CliRunner().invoke(eval_command, ["--events", str(events), "--questions", str(questions), "--direct"])
    assert result.exit_code != 0
    assert "questions.jsonl:1: evidence_message_ids: 'm9'" in result.output
    assert isinstance(result.exception, SystemExit)  # a ClickException, not a crash
    assert len(result.output.strip().splitlines()) == 1


def test_pass_every_needs_direct(files):
    events, questions, _ = files()
    result = CliRunner().invoke(
        eval_command, ["--events", str(events), "--questions", str(questions), "--pass-every", "5"]
    )
    assert result.exit_code == 2 and "--pass-every needs --direct" in result.output


def test_eval_data_writes_a_loadable_set(tmp_path):
    result = CliRunner().invoke(eval_data_command, [str(tmp_path / "set"), "--messages", "480", "--scopes", "4"])
    assert result.exit_code == 0, result.output
    data = load_dataset(
        tmp_path / "set" / "events.jsonl", tmp_path / "set" / "questions.jsonl", tmp_path / "set" / "memory_adds.jsonl"
    )
    assert len(data.scopes) == 4 and 400 <= len(data.turns) <= 560


# --- the synthetic set
def test_the_synthetic_set_is_deterministic_in_its_seed():
    assert generate(seed=3, scopes=4, messages=500) == generate(seed=3, scopes=4, messages=500)
    assert generate(seed=3, scopes=4, messages=500).events != generate(seed=4, scopes=4, messages=500).events


def test_the_synthetic_set_has_its_size_and_every_category(tmp_path):
    data = generate(seed=7, scopes=10, messages=6000)
    scopes = Counter(e["scope"] for e in data.events)
    assert len(scopes) == 10 and 5_800 <= len(data.events) <= 6_200
    assert set(Counter(q["category"] for q in data.questions)) == set(KNOWN_CATEGORIES)
    assert all(q["stale_message_ids"] for q in data.questions if q["category"] == "knowledge_update")
    assert any(a.get("protected") for a in data.memory_adds)
    paths = data.write(tmp_path)  # every id a question cites exists in its scope
    load_dataset(paths["events"], paths["questions"], paths["memory_adds"])


def _sentences(text: str) -> list[str]:
    """Sentences of a text, normalised (case, punctuation and spacing ignored)."""
    parts = re.split(r"(?<=[.!?:;])\s+|\n", text)
    return [" ".join(words(p)) for p in parts if words(p)]


def _fixture_texts(fixtures_dir: Path) -> list[str]:
    texts = []
    for name, keys in (
        ("events.jsonl", ("content",)),
        ("memory_adds.jsonl", ("text",)),
        ("questions.jsonl", ("question",)),
    ):
        for line in (fixtures_dir / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                texts += [row[k] for k in keys]
    return texts


def test_the_generator_reuses_no_fixture_sentence(fixtures_dir):
    fixture = {s for text in _fixture_texts(fixtures_dir) for s in _sentences(text)}
    assert len(fixture) > 40  # the check has something to check
    data = generate(seed=7, scopes=10, messages=6000)
    generated = (
        [e["content"] for e in data.events]
        + [a["text"] for a in data.memory_adds]
        + [q["question"] for q in data.questions]
    )
    generated_sentences = {s for text in generated for s in _sentences(text)}
    assert not fixture & generated_sentences, sorted(fixture & generated_sentences)[:5]
    # nor inside a longer sentence (fixture sentences of four words or more)
    joined = "\n".join(" " + s + " " for s in generated_sentences)
    reused = [s for s in fixture if len(s.split()) >= 4 and f" {s} " in joined]
    assert not reused, reused[:5]


def test_isolation_pairs_share_agent_and_user_but_not_answers():
    data = generate(seed=7, scopes=4, messages=500)
    isolation = [q for q in data.questions if q["category"] == "isolation"]
    by_rest: dict[tuple[str, str], dict[str, str]] = {}
    for q in isolation:
        tenant, rest = q["scope"].split("/", 1)
        by_rest.setdefault((rest, q["question"]), {})[tenant] = q["answer"]
    assert by_rest and all(set(answers) == {"acme", "globex"} for answers in by_rest.values())
    assert all(answers["acme"] != answers["globex"] for answers in by_rest.values())


@pytest.mark.parametrize("form", RELATIVE_FORMS)
@pytest.mark.parametrize("today", [date(2026, 3, 5), date(2026, 12, 28), date(2027, 1, 31)])
def test_synthetic_temporal_answers_follow_the_documented_conventions(form, today):
    """The generator resolves dates on its own; it must agree with relative_time.py's conventions."""
    for weekday in WEEKDAYS:
        said = form.format(weekday=weekday, n=3)
        expected = resolve(form, today, weekday, 3).isoformat()
        rewritten = rewrite_relative_time(f"The visit is {said}.", datetime.combine(today, datetime.min.time(), UTC))
        assert expected in rewritten.text, (said, today, rewritten.text)


def test_temporal_answers_are_dates_in_several_spellings():
    answers = [q["answer"] for q in generate(seed=7, scopes=10, messages=6000).questions if q["category"] == "temporal"]
    assert all(normalised_date(a) for a in answers)
    assert (
        any("-" in a for a in answers)
        and any("," in a for a in answers)
        and any(a[0].isdigit() and " " in a for a in answers)
    )
