"""One verdict (issue 17): the stream worker dead-letters what the consolidation worker would
refuse — a message id reused with other content, a memory-add citing a message its scope never
carried — judged on the scope's row, within the bounds `streams.signals` states."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from schemas.settings import Settings
from schemas.validation import home_partition
from streams.processor import Processor
from streams.rows import SignalTables
from streams.signals import ID_FILTER_BYTES, ID_FILTER_FULL, RECENT_TURNS, ScopeSignals
from tests.kafka_record import Record

SETTINGS = Settings()
TOPICS = SETTINGS.topics
SCOPE, OTHER = "acme/support-bot/u1", "acme/support-bot/u2"
HOME = home_partition(SCOPE.encode(), SETTINGS.partitions)
T0 = datetime(2026, 4, 12, 11, 0, tzinfo=UTC)


def turn(message_id: str, content: str, minute: int = 0, scope: str = SCOPE) -> bytes:
    ts = (T0 + timedelta(minutes=minute)).isoformat()
    return json.dumps(
        {"scope": scope, "session_id": "s", "message_id": message_id, "role": "user", "content": content, "ts": ts}
    ).encode()


def add(memory_id: str, cites: list[str], minute: int, scope: str = SCOPE) -> bytes:
    ts = (T0 + timedelta(minutes=minute)).isoformat()
    return json.dumps(
        {"scope": scope, "memory_id": memory_id, "text": "likes tea", "ts": ts, "source_message_ids": cites}
    ).encode()


class Stream:
    """A processor fed record by record in batches, its rows written back as the loop does."""

    def __init__(self) -> None:
        self.processor = Processor(SETTINGS)
        self.state = SignalTables(self.processor.policy, {p: {} for p in range(SETTINGS.partitions)})
        self.tables = self.state.rows
        self.offsets: dict[str, int] = {}

    def batch(self, *records: tuple[str, bytes], scope: str = SCOPE):
        partition = home_partition(scope.encode(), SETTINGS.partitions)
        batch_records = []
        for topic, value in records:
            offset = self.offsets.get(topic, 0)
            self.offsets[topic] = offset + 1
            batch_records.append(Record(topic, partition, offset, scope.encode(), value))
        return self.run(batch_records)

    def run(self, records: list[Record]):
        batch = self.processor.process_batch(records, self.tables, 1000.0)
        self.state.write(batch.rows)
        return batch


def test_a_message_id_reused_with_other_content_is_dead_lettered_and_the_first_stays():
    stream = Stream()
    first = stream.batch((TOPICS.turns, turn("m1", "I prefer the aisle")))
    assert first.counts == {(TOPICS.turns, "accepted"): 1}
    later = stream.batch((TOPICS.turns, turn("m1", "I prefer the window")), (TOPICS.turns, turn("m2", "thanks")))
    [letter] = later.dead_letters
    assert letter.error_type == "duplicate_message_id" and "'m1'" in letter.reason and SCOPE in letter.reason
    assert letter.offset == 1 and later.letter_partitions == [HOME]
    assert later.counts == {(TOPICS.turns, "dead_lettered"): 1, (TOPICS.turns, "accepted"): 1}
    row = ScopeSignals.decode(stream.tables[HOME][SCOPE])
    assert row.messages == 2, "the refused turn is not folded"


def test_the_same_turn_again_is_a_retry_and_a_redelivered_refusal_is_not_lettered_twice():
    stream = Stream()
    stream.batch((TOPICS.turns, turn("m1", "I prefer the aisle")))
    retry = stream.batch((TOPICS.turns, turn("m1", "I prefer the aisle")))
    assert not retry.dead_letters and retry.counts == {(TOPICS.turns, "accepted"): 1}
    refused = Record(TOPICS.turns, HOME, 2, SCOPE.encode(), turn("m1", "other text"))
    assert [d.error_type for d in stream.run([refused]).dead_letters] == ["duplicate_message_id"]
    again = stream.run([refused])  # redelivered after a crash: the row already judged it
    assert not again.dead_letters and again.counts == {(TOPICS.turns, "duplicate"): 1}


def test_the_bound_the_last_turns_of_a_scope():
    """The guarantee is bounded: a reuse among the scope's last RECENT_TURNS turns is refused here;
    an older one is left to the consolidation worker's index (which keeps the first version)."""
    stream = Stream()
    stream.batch(*[(TOPICS.turns, turn(f"m{i}", f"message {i}")) for i in range(RECENT_TURNS + 1)])
    recent = stream.batch((TOPICS.turns, turn(f"m{RECENT_TURNS}", "rewritten")))
    assert [d.error_type for d in recent.dead_letters] == ["duplicate_message_id"]
    old = stream.batch((TOPICS.turns, turn("m0", "rewritten")))
    assert not old.dead_letters, "beyond the bound: the consolidation worker refuses it at indexing"


def test_a_memory_add_citing_a_message_its_scope_never_carried_is_dead_lettered():
    stream = Stream()
    stream.batch(*[(TOPICS.turns, turn(f"m{i}", f"message {i}", minute=i)) for i in range(5)])
    stream.batch((TOPICS.turns, turn("theirs#1", "their secret", scope=OTHER)), scope=OTHER)
    own = stream.batch((TOPICS.memory_adds, add("a1", ["m1", "m3"], minute=4)))
    assert not own.dead_letters and own.counts == {(TOPICS.memory_adds, "accepted"): 1}
    borrowed = stream.batch((TOPICS.memory_adds, add("a2", ["m1", "theirs#1"], minute=4)))
    [letter] = borrowed.dead_letters
    assert letter.error_type == "foreign_evidence" and "'theirs#1'" in letter.reason
    assert ScopeSignals.decode(stream.tables[HOME][SCOPE]).memory_adds == 1


def test_evidence_is_not_judged_before_the_scopes_turns_up_to_the_add_have_been_read():
    """Turns and memory-adds travel on two topics: an add may be read before the turn it cites.
    Until a turn at or after the add's ts has been folded, the stream worker does not judge."""
    stream = Stream()
    stream.batch((TOPICS.turns, turn("m0", "hello", minute=0)))
    early = stream.batch((TOPICS.memory_adds, add("a1", ["m1"], minute=2)))
    assert not early.dead_letters, "m1 (minute 1) may still be on its way"
    stream.batch((TOPICS.turns, turn("m1", "I like tea", minute=1)), (TOPICS.turns, turn("m2", "ok", minute=2)))
    assert not stream.batch((TOPICS.memory_adds, add("a2", ["m1"], minute=2))).dead_letters
    assert stream.batch((TOPICS.memory_adds, add("a3", ["m9"], minute=2))).dead_letters


def test_rows_without_a_filter_or_with_a_full_one_never_refuse_evidence():
    stream = Stream()
    old_row = ScopeSignals(partition=HOME, offsets={f"{TOPICS.turns}:{HOME}": 5}, messages=5)  # from before the filter
    stream.tables[HOME][SCOPE] = old_row.encode()
    stream.offsets[TOPICS.turns] = 5
    stream.batch((TOPICS.turns, turn("m5", "a new turn", minute=5)))
    row = ScopeSignals.decode(stream.tables[HOME][SCOPE])
    assert row.seen is not None and row.filter_partial
    assert not stream.batch((TOPICS.memory_adds, add("a1", ["m0"], minute=5))).dead_letters, "m0 came before it"
    full = ScopeSignals()
    i = 0
    while full.seen is None or int.from_bytes(full.seen[:ID_FILTER_BYTES]).bit_count() <= ID_FILTER_FULL:
        full.remember_turn(f"id-{i}", "x", T0)
        i += 1
    assert not full.filter_partial and full.foreign_evidence(("never-seen",), T0) is None, "too full to say 'never'"


def test_a_forgotten_scope_starts_a_new_filter():
    stream = Stream()
    stream.batch((TOPICS.turns, turn("m1", "hello")))
    stream.batch((TOPICS.control, json.dumps({"scope": SCOPE, "action": "forget", "request_id": "f"}).encode()))
    stream.batch((TOPICS.turns, turn("m1", "a new life")))  # after forget, m1 is new again
    row = ScopeSignals.decode(stream.tables[HOME][SCOPE])
    assert row.messages == 1 and not row.filter_partial and row.foreign_evidence(("m0",), T0) == "m0"


def test_the_row_stays_small():
    """The stream worker's budget is about 1 KB of memory per scope; the row is most of it."""
    row = ScopeSignals(partition=3, messages=40, tokens=900, last_event_at=1.7e9, last_pass_at=1.7e9)
    row.offsets = {f"{TOPICS.turns}:3": 123_456, f"{TOPICS.memory_adds}:3": 789}
    for i in range(200):
        row.remember_turn(f"session-{i // 20}#{i}", f"message {i}", T0 + timedelta(seconds=i))
    assert len(row.encode()) <= 420, len(row.encode())
