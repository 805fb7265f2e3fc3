"""A chat typed in lower case is read as the same chat typed with capitals (`cased_turns`), on
chats written for this test."""

from __future__ import annotations

from dreaming.engine.offline import OfflineEngine
from dreaming.engine.offline.cased_turns import with_capitals
from language.dates import without_stamp
from schemas import ConversationTurn
from tests.unit.dreaming.engine.offline.test_offline_extraction import creates

ROOMMATES = [
    ("user", "Oona: Hey Bram! I finally signed up for the pottery class, it starts next Monday."),
    ("user", "Bram: Nice one, Oona. I went climbing yesterday and I hurt my wrist, so no climbing for a month."),
    ("user", "Oona: Oh no. I hope it heals fast. My brother had the same thing last year."),
    ("user", "Bram: Thanks! I'm using the time to read. I just finished a novel about a lighthouse keeper."),
    ("user", "Oona: I love that kind of book. I'm reading one about sailors at the moment."),
    ("user", "Bram: Let me know if it's good, I need the next one. My sister said she would lend me hers too."),
]


def lower_case(lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The chat as someone who never presses shift types it (the name prefixes kept)."""
    typed = []
    for role, content in lines:
        name, _, body = content.partition(": ")
        typed.append((role, f"{name}: {body.lower()}"))
    return typed


def test_a_chat_typed_in_lower_case_gives_the_memories_of_the_chat_typed_with_capitals() -> None:
    engine = OfflineEngine()
    cased = creates("t/a/cased", ROOMMATES, engine)
    typed = creates("t/a/typed", lower_case(ROOMMATES), engine)
    assert len(cased) >= 5
    assert [without_stamp(a.text).lower() for a in typed] == [without_stamp(a.text).lower() for a in cased]
    assert [a.evidence_message_ids for a in typed] == [a.evidence_message_ids for a in cased]
    assert any("Oona" in a.text for a in typed) and not any(" i " in f" {a.text} " for a in typed)


def test_only_the_rules_reading_changes_a_turn_typed_with_capitals_is_the_same_object() -> None:
    turns = [
        ConversationTurn(scope="t/a/b", session_id="s", message_id=f"m{i}", role="user", content=text, ts=ts)
        for i, (text, ts) in enumerate(
            [("Oona: Hi Bram!", "2025-05-06T10:00:00+00:00"), ("Bram: hi oona! i'm back.", "2025-05-06T10:01:00+00:00")]
        )
    ]
    read = with_capitals(turns)
    assert read[0] is turns[0]
    assert read[1].content == "Bram: Hi Oona! I'm back." and turns[1].content == "Bram: hi oona! i'm back."
    assert read[1].message_id == turns[1].message_id and read[1].ts == turns[1].ts


def without_prefixes(lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The chat as two people's app gives it: the first as `user`, the second as `assistant`."""
    first = lines[0][1].partition(": ")[0]
    return [("user" if c.startswith(f"{first}: ") else "assistant", c.partition(": ")[2]) for _, c in lines]


def test_two_people_typing_in_lower_case_without_prefixes_are_named_by_what_they_call_each_other() -> None:
    engine = OfflineEngine()
    greetings = [("user", "Hey Bram!"), ("assistant", "Hi Oona!"), ("user", "Hey Bram!"), ("assistant", "Hi Oona!")]
    chat = (
        greetings
        + without_prefixes(ROOMMATES)
        + [
            ("assistant", "Hi Oona! Did the class start?"),
            ("user", "Hey Bram! It did, I made a bowl."),
        ]
    )
    cased = creates("t/a/cased", chat, engine)
    typed = creates("t/a/typed", [(role, content.lower()) for role, content in chat], engine)
    assert any(a.text.startswith("[2025-05-06] Oona") for a in cased)
    assert any(a.text.startswith("[2025-05-06] Bram") for a in cased)
    assert [without_stamp(a.text).lower() for a in typed] == [without_stamp(a.text).lower() for a in cased]
