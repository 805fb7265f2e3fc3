"""Evaluation inputs (loading and its errors), the synthetic set, the report, and the commands'
error handling — everything of `dreamstream eval` that needs no store and no broker."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from dreamstream_tools.cli_eval import eval_command, eval_data_command
from dreamstream_tools.evaluation.dataset import KNOWN_CATEGORIES, DatasetError, Question, load_dataset
from dreamstream_tools.evaluation.evaluate import Evaluation, QuestionResult, Scores, StoreFigures
from dreamstream_tools.evaluation.matching import normalised_date, words
from dreamstream_tools.evaluation.metrics import NearDuplicates, Retention
from dreamstream_tools.evaluation.report import build_report, render_table
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


# --- the report
def _evaluation() -> Evaluation:
    def result(
        category: str, hit: bool, ku: bool | None = None, recall: float | None = 1.0, dated: bool | None = None
    ) -> QuestionResult:
        q = Question(
            scope=SCOPE,
            question="q?",
            answer="a",
            category=category,
            evidence_message_ids=("m1",) if recall is not None else (),
            stale_message_ids=("m0",) if ku is not None else (),
        )
        return QuestionResult(
            q,
            Scores(recall, hit, ku, True, dated, 40),
            Scores(recall and 0.5, False, False if ku is not None else None, hit, dated and False, 90),
            transcript_coverage=hit,
            top_memories=("top memory",),
            top_baseline=("top message",),
            day_said=True if dated is not None else None,
        )

    store = StoreFigures(
        input_messages=35,
        memory_adds=6,
        active_memories=13,
        compression=13 / 41,
        near_duplicates=NearDuplicates(2, 13, (("a", "b"),)),
        undated=("next week",),
        retention=Retention(5, 4, 4, 4, ("x:lost",), ()),
        isolation_leaks=(),
        baseline_isolation_leaks=(),
        tiers={"core": 10, "archive": 3},
    )
    return Evaluation(
        10,
        (
            result("temporal", True, dated=True),
            result("knowledge_update", False, False),
            result("knowledge_update", True, True),
            result("custom", True, recall=None),
        ),
        store,
    )


def test_the_report_aggregates_per_category_and_overall():
    report = build_report(
        _evaluation(),
        mode="direct",
        engine="offline",
        inputs={"scopes": 1, "turns": 35, "memory_adds": 6, "questions": 4},
        passes={"completed": 1},
        timings={"dream_s": 1.234},
    )
    assert list(report["categories"]) == ["knowledge_update", "temporal", "custom"]  # known order, unknown last
    ku = report["categories"]["knowledge_update"]
    assert ku["questions"] == 2 and ku["memory"] == {
        "evidence_recall": 1.0,
        "answer_containment": 0.5,
        "knowledge_update": 0.5,
        "coverage": 1.0,
        "date_resolved": None,
        "top_k_words": 40.0,
    }
    assert ku["baseline"]["knowledge_update"] == 0.0 and ku["baseline"]["coverage"] == 0.5
    assert ku["transcript_coverage"] == 0.5
    temporal = report["categories"]["temporal"]
    assert temporal["exact_dates"] == 1 and temporal["memory"]["date_resolved"] == 1.0
    assert temporal["baseline"]["date_resolved"] == 0.0
    assert report["overall"]["dates_said"] == {"questions": 1, "memory": 1.0, "baseline": 0.0}
    assert report["overall"]["dates_resolved_from_relative"] == {"questions": 0, "memory": None, "baseline": None}
    assert report["categories"]["custom"]["memory"]["evidence_recall"] is None
    assert report["overall"]["memory"]["answer_containment"] == 0.75
    assert report["overall"]["with_evidence"] == 3
    assert report["store"]["retention"]["share"] == pytest.approx(8 / 9, abs=1e-4)
    assert report["store"]["near_duplicate_rate"] == pytest.approx(2 / 13, abs=1e-4)
    assert len(report["details"]["misses"]) == 1
    assert report["store"]["memories_per_message"] == pytest.approx(13 / 35, abs=1e-4)
    assert report["store"]["tiers"] == {"archive": 3, "core": 10}
    failures = report["details"]["failures"]
    assert [f["category"] for f in failures["stale_or_missed_update"]] == ["knowledge_update"]
    assert failures["stale_or_missed_update"][0]["top_memories"] == ["top memory"]
    json.dumps(report)  # JSON-ready as it is


def test_the_table_shows_every_category_and_the_store():
    report = build_report(
        _evaluation(),
        mode="pipeline",
        engine="offline",
        inputs={"scopes": 1, "turns": 35, "memory_adds": 6, "questions": 4},
        passes={"completed": 1},
        timings={"dream_s": 1.0, "evaluate_s": 3.0, "evaluate.memory_search_s": 2.0, "total_s": 4.0},
    )
    table = render_table(report)
    for needle in (
        "knowledge_update",
        "temporal",
        "custom",
        "overall",
        "evidence recall@10",
        "retention",
        "88.9%",
        "near-duplicate rate",
        "undated relative times  1",
        "isolation leaks",
        "1 completed",
        "x:lost",
        "coverage",
        "date resolved",
        "transcript",
        "core 10",
        "knowledge update missed",
        "'top memory'",
        "'top message'",
        "evaluate 3.0 s (memory search 2.0), total 4.0 s",
        "words in top 10",
        "the day a message was said on        1  resolved 1.00 (baseline 0.00)",
    ):
        assert needle in table, needle
    assert "warning" not in table
    report["passes"] = {"completed": 1, "failed": 2}
    assert "warning: 2 failed pass(es) left memory as it was" in render_table(report)
