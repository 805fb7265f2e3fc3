"""A short name the people call each other by addresses like their name, and is kept as a fact once."""

from __future__ import annotations

import re

from dreaming.engine.offline.speaker_roles import read_roles
from dreaming.engine.offline.walk_readings import read_messages
from language.dates import without_stamp
from schemas import ConversationTurn
from tests.unit.dreaming.engine.offline.test_offline_extraction import creates, rows

SCOPE = "t/pals/nick"
CHAT = [
    ("user", "Rosalind: Hey Theo! The kiln finally works again."),
    ("user", "Theodore: Hi Ros, great news. I sold my first bowl to a cafe in Leeds."),
    ("user", "Rosalind: Thanks, Theodore! My sister wants two of your mugs."),
    ("user", "Theodore: Hey Roz, I can make them by Friday."),
    ("user", "Rosalind: Yeah Theo, that works. I'll pay you 40 pounds."),
    ("user", "Theodore: No worries, Ros. I'll wrap them in newspaper."),
    ("user", "Rosalind: Thanks, Theo! See you at the market."),
]


def turns() -> list[ConversationTurn]:
    return [ConversationTurn(**r) for r in rows(SCOPE, CHAT)]


def test_the_short_names_are_found_only_when_said_twice() -> None:
    roles = read_roles(SCOPE, turns())
    assert roles.short_names == ("Ros", "Theo"), "Roz is said once"
    assert roles.people == ("Rosalind", "Theodore"), "whose a memory is stays judged by the full names"
    assert read_roles(SCOPE, turns()[:4]).short_names == ()


def test_the_habit_is_one_fact_made_on_the_message_that_shows_it() -> None:
    whole = turns()
    roles = read_roles(SCOPE, whole)
    made = {
        r.turn.message_id: [without_stamp(f.text) for f in r.facts if "calls" in f.text]
        for r in read_messages(whole, roles, frozenset())
    }
    assert [m for m, facts in made.items() if facts] == [whole[4].message_id, whole[5].message_id]
    assert made[whole[4].message_id] == ['Rosalind calls Theodore "Theo".']
    assert made[whole[5].message_id] == ['Theodore calls Rosalind "Ros".']
    # A later pass, for which the message that showed it is consumed, does not make it again.
    later = read_messages(whole, roles, frozenset(t.message_id for t in whole[:5]))
    assert [without_stamp(f.text) for r in later for f in r.facts if "calls" in f.text] == [
        'Theodore calls Rosalind "Ros".'
    ]


def test_a_short_name_is_no_part_of_what_is_said() -> None:
    texts = [without_stamp(a.text) for a in creates(SCOPE, CHAT)]
    habits = ['Rosalind calls Theodore "Theo".', 'Theodore calls Rosalind "Ros".']
    assert [t for t in texts if t in habits] == habits
    assert not [t for t in texts if re.search(r"\b(?:Theo|Ros)\b", t) and t not in habits], texts
    assert "Rosalind will pay Theodore 40 pounds." in texts, "'Yeah Theo, that works.' addressed him, and agreed"
    assert "Roz, Theodore can make them by Friday." in texts, "a form said once is not known to be her name"
