"""A shared photo joins the statement that presents it (`extraction._add_caption`); on messages
written for this test."""

from __future__ import annotations

from datetime import UTC, datetime

from dreaming.engine.offline.extraction import message_facts
from dreaming.engine.offline.speaker_roles import TurnSpeaker
from language.dates import without_stamp
from schemas import ConversationTurn


def facts(body: str) -> list[str]:
    turn = ConversationTurn(
        scope="t/pals/photos",
        session_id="s1",
        message_id="m1",
        role="user",
        content=f"Ines: {body}",
        ts=datetime(2025, 5, 6, 10, tzinfo=UTC),
    )
    return [
        without_stamp(f.text)
        for f in message_facts(turn, TurnSpeaker("Ines", body, True, "Tariq", True), ("Ines", "Tariq"))
    ]


def test_a_photo_joins_the_sentence_that_presents_it() -> None:
    found = facts(
        "The sea always calms me down. Last spring I took this pic on a sailing course in Brest, the "
        "sunrise over the harbour. Days on the water make the rest of the week feel lighter. "
        "[shares a photo: a dinghy on a grey bay]"
    )
    [presented] = [f for f in found if "sailing course" in f]
    assert presented.endswith("Ines shared a photo of a dinghy on a grey bay.")


def test_a_photo_without_a_presenting_sentence_joins_the_one_before() -> None:
    found = facts(
        "My sister and I finally finished the treehouse on Sunday. It took three weekends and a lot of "
        "nails. [shares a photo: a wooden treehouse in an oak]"
    )
    assert found[-1].endswith("three weekends and a lot of nails. Ines shared a photo of a wooden treehouse in an oak.")
