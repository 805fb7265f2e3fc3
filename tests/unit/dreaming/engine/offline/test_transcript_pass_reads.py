"""The transcript pass reads what a message states only when it may consolidate it: the messages
an earlier pass consumed are read again for their stated changes, never for their statements
(on a later pass they are most of the window)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from dreaming.engine.offline import walk_readings
from dreaming.snapshot import Snapshot
from schemas import ConversationTurn, DreamJob, MemoryRecord, SupersedeAction
from tests.unit.dreaming.engine.offline.engine_plans import created, of_kind, propose

SCOPE = "test/bot/ava"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def turn(message_id: str, role: str, content: str, minutes: int) -> ConversationTurn:
    return ConversationTurn(
        scope=SCOPE,
        session_id="s1",
        message_id=message_id,
        role=role,
        content=content,
        ts=T0 + timedelta(minutes=minutes),
    )


TRANSCRIPT = (
    turn("m0", "user", "Hi, I'm Ava. My gym fee is $40 a month and I live in Berlin.", 0),
    turn("m1", "assistant", "Noted: your gym fee is $40 a month, and the gym is open until 10 PM.", 1),
    turn("m2", "user", "My gym fee went up to $48 a month.", 2),
    turn("m3", "assistant", "Got it: $48 a month from now on, billed on the 1st.", 3),
)
FEE = MemoryRecord(
    scope=SCOPE,
    memory_id="fee",
    text="Ava's gym fee is $40 a month.",
    origin="transcript",
    evidence_message_ids=("m0",),
    created_at=T0,
    updated_at=T0,
)


def later_pass() -> Snapshot:
    job = DreamJob(job_id="job-t", scope=SCOPE, trigger="manual", requested_at=T0 + timedelta(hours=1))
    return Snapshot(
        job=job, generation=1, memories=(FEE,), transcript=TRANSCRIPT, new_message_ids=frozenset({"m2", "m3"})
    )


def recording(read: list[str], read_one: Callable) -> Callable:
    def wrapped(message: ConversationTurn, *args, **kwargs):
        read.append(message.message_id)
        return read_one(message, *args, **kwargs)

    return wrapped


def test_only_the_messages_a_pass_may_consolidate_are_read_for_their_statements(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[str] = []
    monkeypatch.setattr(walk_readings, "message_facts", recording(read, walk_readings.message_facts))
    monkeypatch.setattr(walk_readings, "assistant_notes", recording(read, walk_readings.assistant_notes))
    result = propose(later_pass())
    assert read == ["m2", "m3"], "m0 and m1 were consumed by the pass that wrote the fee"
    [supersede] = of_kind(result, SupersedeAction)
    assert supersede.target == "fee" and "$48" in created(result, supersede.replacement).text
