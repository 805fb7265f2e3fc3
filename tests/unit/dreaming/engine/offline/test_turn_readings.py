"""A message read once per verify pass (`dreaming.engine.offline.turn_readings`): the same clauses,
statements and findings as reading it afresh for each claim, and only the pass's own messages kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from dreaming.embedding import canonical_tokens
from dreaming.engine.base import SILENT
from dreaming.engine.offline import turn_readings
from dreaming.engine.offline.contradiction import Claim, judge
from dreaming.engine.offline.facts import memory_text_for
from dreaming.engine.offline.slots import SlotReader
from dreaming.engine.offline.turn_readings import TurnReadings, read_turn
from language.clauses import STATEMENT_KINDS, clauses_of
from language.speakers import split_speaker
from schemas import ConversationTurn

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def turn(message_id: str, role: str, content: str, minutes: int) -> ConversationTurn:
    return ConversationTurn(
        scope="test/bot/ava",
        session_id="s1",
        message_id=message_id,
        role=role,
        content=content,
        ts=T0 + timedelta(minutes=minutes),
    )


ASKED = turn("a1", "assistant", "Window seat booked for Berlin, and your gym fee stays at $40?", 1)
MESSAGES = (
    turn("m1", "user", "No, it's aisle, not window. My gym fee went up to $48 last week.", 2),
    turn("m2", "user", "Caroline: I moved to Lisbon in May, and my sister Ana lives in Porto.", 3),
    turn("m3", "user", "Hi! I'm Ava. Can you check the gate? I still prefer aisle seats.", 4),
)
CLAIMS = (
    Claim("Ava prefers window seats", T0),
    Claim("Ava's gym fee is $40 a month.", T0),
    Claim("Caroline lives in Berlin.", T0),
    Claim("Ava prefers aisle seats.", T0),
    Claim("Ava has a loyalty number on file with the airline", T0),
)


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: m.message_id)
def test_a_reading_holds_what_judge_used_to_read_for_each_claim(message: ConversationTurn) -> None:
    reading = read_turn(message, ASKED, "Ava")
    speaker = split_speaker(message.content)
    subject = speaker.name or "Ava"
    assert reading.subject == subject and reading.name == canonical_tokens(subject)
    assert reading.context == (speaker.body, ASKED.content)
    assert [r.clause for r in reading.clauses] == clauses_of(message, speaker.body)
    for read in reading.clauses:
        kind_is_statement = read.clause.kind in STATEMENT_KINDS
        assert read.statement == (memory_text_for(read.clause, subject) if kind_is_statement else None)
        statement = read.statement
        assert read.statement_tokens == (canonical_tokens(statement) - reading.name if statement else frozenset())


def test_an_assistant_turn_is_read_as_no_evidence() -> None:
    reading = read_turn(ASKED, None, "Ava")
    assert reading.clauses == ()
    assert judge(CLAIMS[0], reading, SlotReader(lambda texts: [[0.0] for _ in texts])) is SILENT


def test_one_reading_shared_by_every_claim_finds_what_a_fresh_one_finds(slots: SlotReader) -> None:
    readings = TurnReadings({m.message_id: ASKED for m in MESSAGES}, "Ava")
    shared = [judge(c, readings.of(m), slots) for c in CLAIMS for m in MESSAGES]
    fresh = [judge(c, read_turn(m, ASKED, "Ava"), slots) for c in CLAIMS for m in MESSAGES]
    assert shared == fresh
    assert {f.judgement for f in shared} >= {"contradicted", "supported", "silent"}, "the cases cover each finding"


def test_each_message_is_read_once_per_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []

    def counting(message: ConversationTurn, body: str | None = None):
        parsed.append(message.message_id)
        return clauses_of(message, body)

    monkeypatch.setattr(turn_readings, "clauses_of", counting)
    readings = TurnReadings({}, "Ava")
    for _ in CLAIMS:
        for message in MESSAGES:
            readings.of(message)
    assert parsed == [m.message_id for m in MESSAGES] and len(readings) == len(MESSAGES)
    assert len(TurnReadings({}, "Ava")) == 0, "a new pass starts with nothing read"
