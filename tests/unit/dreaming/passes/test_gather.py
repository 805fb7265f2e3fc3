"""The gather pass: signals and motives from the transcript window, vectorised with polars."""

from __future__ import annotations

from dataclasses import replace

import polars as pl
import pytest

from dreaming.passes.gather import classify_clauses, gather, strip_lead_ins_column, transcript_frame, with_threads
from language.clauses import classify, split_clauses, strip_lead_ins
from tests.unit.snapshot_factory import FIXTURES, build_snapshot, fixture_snapshot, load_fixture_rows, turn_row

AVA = "demo/travel-assistant/ava"
FALCON = "demo/research-assistant/team-falcon"
U7 = "demo/support-bot/u7"
ACME = "acme/support-bot/u1"
LEAD = "demo/strategy-assistant/lead"
SCOPE = "test/helpdesk/nils"


@pytest.fixture(scope="module", autouse=True)
def fixtures_present() -> None:
    if not FIXTURES.exists():
        pytest.fail(f"fixtures not found at {FIXTURES}: the repo must be cloned with ../shared beside it")


def motives(snapshot) -> dict[str, tuple[str, ...]]:
    return {m.kind: m.message_ids for m in gather(snapshot).motives}


def rows(*contents: str, roles: str = "", start_hour: int = 9, session: str = "n1") -> list[dict]:
    """One message a minute; roles is a string of u/a per message (default: all user)."""
    roles = roles or "u" * len(contents)
    return [
        turn_row(
            SCOPE,
            session,
            i,
            "user" if r == "u" else "assistant",
            text,
            f"2026-05-01T{start_hour:02d}:{i:02d}:00+00:00",
        )
        for i, (r, text) in enumerate(zip(roles, contents))
    ]


# --- the frame ------------------------------------------------------------------------------------


def test_frame_holds_the_scope_s_own_turns_with_is_new() -> None:
    snapshot = fixture_snapshot(AVA)
    frame = transcript_frame(snapshot)
    assert frame.columns == ["message_id", "session_id", "role", "ts", "content", "is_new"]
    assert frame.height == 10 and frame["ts"].is_sorted()
    cited = {"ava-s1#0", "ava-s1#2", "ava-s2#4"}  # memory-adds cite them: consolidated already
    assert set(frame.filter(~pl.col("is_new"))["message_id"]) == cited
    not_read_yet = replace(snapshot, new_message_ids=frozenset({"ava-s2#2"}))
    assert transcript_frame(not_read_yet).filter(pl.col("is_new"))["message_id"].to_list() == ["ava-s2#2"]


def test_threads_break_on_a_new_session_or_a_long_pause() -> None:
    events = rows("a", "b", roles="ua") + rows("c", roles="u", start_hour=11) + rows("d", session="n2", start_hour=12)
    threads = with_threads(transcript_frame(build_snapshot(SCOPE, events)))["thread"].to_list()
    assert threads == [0, 0, 1, 2]


def test_clause_kinds_agree_with_the_offline_engine_on_every_fixture_clause() -> None:
    """One set of patterns, two readers: polars and the engine's classifier must agree."""
    events, _ = load_fixture_rows()
    user = [row for row in events if row["role"] == "user"]
    snapshot = build_snapshot(AVA, [{**row, "scope": AVA} for row in user])
    vectorised = classify_clauses(with_threads(transcript_frame(snapshot)))
    expected = [
        (row["message_id"], strip_lead_ins(text), classify(strip_lead_ins(text))[0])
        for row in user
        for text in split_clauses(row["content"])
    ]
    got = list(zip(vectorised["message_id"], vectorised["body"], vectorised["kind"]))
    assert sorted(got) == sorted(expected)


LEAD_IN_SENTENCES = (
    "I moved to Lisbon last year",
    "And I moved to Lisbon last year",
    "And please remember that my flight is on Tuesday",
    "Hey there! Oh, btw, please also note that my flight is on Tuesday",  # four lead-ins
    "And also, so, well, btw, anyway I prefer aisle seats",  # six: more than any fixed number of rounds
    "ok okay hi hello hey and so but fyi for the record: the budget is 45k",
    "  Well,   also   keep in mind that    the office moved  ",
    "And",
    "Hello",
    "so what",
    "Also note: Anna is vegetarian",
    "But by the way, just so you know, I changed my mind",
    "And remember to water the ferns on Sunday",  # a deed asked for: "remember" stays
    "Please don't forget to lock the shed",
    "And so far the roof holds",
)
LOCOMO_EVENTS = FIXTURES.parent / "eval" / "locomo" / "events.jsonl"


def test_lead_ins_are_stripped_alike_in_polars_and_python() -> None:
    """Both loop to a fixed point: a clause with more lead-ins than any fixed number of rounds
    loses all of them on both sides."""
    got = strip_lead_ins_column(pl.Series(LEAD_IN_SENTENCES)).to_list()
    assert got == [strip_lead_ins(s) for s in LEAD_IN_SENTENCES]
    assert got[4] == "I prefer aisle seats" and got[3] == "my flight is on Tuesday"
    assert got[-3:] == [
        "remember to water the ferns on Sunday",
        "Please don't forget to lock the shed",
        "so far the roof holds",
    ]


def test_lead_ins_are_stripped_alike_on_every_clause_of_the_dev_set() -> None:
    if not LOCOMO_EVENTS.exists():
        pytest.skip(f"{LOCOMO_EVENTS} is not here (the LoCoMo dev set is not part of the repo)")
    import json

    with LOCOMO_EVENTS.open(encoding="utf-8") as lines:
        clauses = [c for line in lines if line.strip() for c in split_clauses(json.loads(line)["content"])]
    got = strip_lead_ins_column(pl.Series(clauses, dtype=pl.String)).to_list()
    differ = [(c, p, g) for c, p, g in zip(clauses, (strip_lead_ins(c) for c in clauses), got) if p != g]
    assert len(clauses) > 1000 and differ == []


# --- the fixtures ---------------------------------------------------------------------------------


def test_ava_correction_and_pending_adds() -> None:
    found = motives(fixture_snapshot(AVA))
    assert found == {
        "correction": ("ava-s2#2",),
        "new_facts": ("ava-s2#0",),
        "memory_add": ("ava-s1#0", "ava-s1#2", "ava-s2#4"),
    }
    signals = gather(fixture_snapshot(AVA))
    assert signals.pending_adds == ("ava-m1", "ava-m2", "ava-m3", "ava-m4", "ava-profile")
    assert signals.statements == ("ava-s2#0",), "the Lisbon flight, said beside a request"


def test_falcon_decisions_and_the_repeated_project() -> None:
    signals = gather(fixture_snapshot(FALCON))
    assert signals.decisions == ("falcon-s1#0", "falcon-s2#0")
    assert signals.repeated_entities == (
        ("Project Falcon", ("falcon-s1#0", "falcon-s1#2", "falcon-s2#0", "falcon-s2#2")),
    )
    assert [m.kind for m in signals.motives] == ["decision", "new_facts", "repetition"]


def test_u7_injection_is_counted_but_never_read() -> None:
    signals = gather(fixture_snapshot(U7))
    assert signals.injected == ("u7-s1#2",)
    assert all("u7-s1#2" not in m.message_ids for m in signals.motives)
    assert signals.statements == ("u7-s1#0",)


def test_a_plain_statement_is_a_new_facts_motive() -> None:
    signals = gather(fixture_snapshot(ACME))
    assert signals.statements == ("acme-u1-s1#0",) and signals.has_signal
    assert [(m.kind, m.message_ids) for m in signals.motives] == [("new_facts", ("acme-u1-s1#0",))]


def test_lead_three_dissatisfied_threads_make_one_motive() -> None:
    signals = gather(fixture_snapshot(LEAD))
    [motive] = signals.motives
    assert motive.kind == "dissatisfaction" and motive.message_ids == ("lead-s1#2", "lead-s1#5", "lead-s1#8")
    assert signals.complaint.theme == "direction" and signals.complaint.thread_count == 3
    assert signals.complaint.quotes == (
        "It has no direction.",
        "It doesn't say why this direction matters.",
        "The design has no direction either.",
    )
    assert "direction" in motive.summary


# --- scenarios of our own ---------------------------------------------------------------------------


def test_chit_chat_is_no_signal() -> None:
    signals = gather(build_snapshot(SCOPE, rows("Hi there!", "Hello!", "Thanks, bye.", roles="uau")))
    assert not signals.has_signal and signals.motives == () and signals.statements == ()


def test_a_reply_that_states_something_keeps_a_pass_from_being_skipped() -> None:
    """A pass that falls between a message and its answer reads the answer alone: skipped, the
    answer would be marked read and what it said ("$8 left") never kept."""
    answer = rows(
        "Can I afford a $15 trellis on my $50 budget?", "Not without going over: you have $8 left.", roles="ua"
    )
    alone = replace(build_snapshot(SCOPE, answer), new_message_ids=frozenset({answer[1]["message_id"]}))
    signals = gather(alone)
    assert signals.replies == (answer[1]["message_id"],) and signals.has_signal and signals.motives == ()
    assert "1 repl(ies) stating something" in signals.describe()
    chatter = rows("Thanks!", "Happy to help! Anything else?", roles="ua")
    assert not gather(build_snapshot(SCOPE, chatter)).has_signal


def test_an_unanswered_question_ends_an_unresolved_thread_an_answered_one_does_not() -> None:
    events = rows("Where is my parcel?", "It ships today.", roles="ua") + rows(
        "Can you cancel order 42?", roles="u", start_hour=14
    )
    assert motives(build_snapshot(SCOPE, events)) == {"unresolved": ("n1#0",)}


def test_a_question_stating_a_value_of_the_speakers_world_is_news_even_when_answered() -> None:
    """The engine keeps it as asked ("… asked: … cut 120 pages …?"): a pass whose only news it is
    must run, or a later pass never reads it (the message is no longer new)."""
    events = rows("I trimmed 120 pages off my thesis draft, was that too much?", "Sounds reasonable.", roles="ua")
    assert motives(build_snapshot(SCOPE, events)) == {"new_facts": ("n1#0",)}
    # A question with no value of the speaker's own stays a question.
    answered = rows("Where is my parcel?", "It ships today.", roles="ua")
    assert motives(build_snapshot(SCOPE, answered)) == {}


def test_a_sentence_initial_capital_is_not_an_entity_unless_seen_mid_sentence() -> None:
    events = rows(
        "Change of plan today.",
        "Change of plan again.",
        "Change of plan, sorry.",
        "We met Nadia Berg at noon.",
        "Nadia Berg called back.",
        "I emailed Nadia Berg.",
    )
    assert gather(build_snapshot(SCOPE, events)).repeated_entities == (("Nadia Berg", ("n1#3", "n1#4", "n1#5")),)


def test_messages_read_by_an_earlier_pass_carry_no_signal() -> None:
    snapshot = fixture_snapshot(FALCON)
    assert not gather(replace(snapshot, new_message_ids=frozenset())).has_signal
    only_last = replace(snapshot, new_message_ids=frozenset({"falcon-s2#0"}))
    assert motives(only_last) == {"decision": ("falcon-s2#0",)}


def test_complaints_need_a_shared_theme_across_threads() -> None:
    def session(day: int, complaint: str) -> list[dict]:
        return [
            turn_row(SCOPE, f"k{day}", 0, "user", "Draft the intro.", f"2026-08-0{day}T09:00:00+00:00"),
            turn_row(SCOPE, f"k{day}", 1, "assistant", "Here it is.", f"2026-08-0{day}T09:01:00+00:00"),
            turn_row(SCOPE, f"k{day}", 2, "user", complaint, f"2026-08-0{day}T09:02:00+00:00"),
        ]

    shared = [
        *session(1, "It has no examples."),
        *session(2, "Still not right, no examples."),
        *session(3, "These are just bullet points. It has no examples either."),
    ]
    assert gather(build_snapshot(SCOPE, shared)).complaint.theme == "examples"
    unrelated = [*session(1, "Too long."), *session(2, "It has no examples."), *session(3, "Too generic.")]
    assert gather(build_snapshot(SCOPE, unrelated)).complaint is None
    one_thread = rows(
        "Draft it.", "Here.", "It has no examples.", "It has no examples!", "Still no examples.", roles="uauuu"
    )
    assert gather(build_snapshot(SCOPE, one_thread)).complaint is None, (
        "three complaints in one thread are one bad answer"
    )


def test_other_scopes_turns_are_not_read() -> None:
    globex = build_snapshot(
        "globex/support-bot/u1",
        [turn_row("globex/support-bot/u1", "x", 0, "user", "We decided to use Redis.", "2026-04-12T11:00:00+00:00")],
    )
    assert gather(globex).decisions == ("x#0",)
    stray = replace(globex, job=globex.job.model_copy(update={"scope": ACME}))
    assert not gather(stray).has_signal and transcript_frame(stray).is_empty()
