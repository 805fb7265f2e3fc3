"""Restoring assigned partitions from the signals changelog before their first record is folded:
the scopes' rows, tombstones, and the storm guard's window (key `#guard/<partition>`).

Read from the start to the end the partition had when the assignment arrived, by a consumer of
its own (group `<app id>-restore`, never committing). Rows carry the next offset they have read
per (topic, partition), so records redelivered after a crash are recognised as folded already.
"""

from __future__ import annotations

import time
from typing import Any, cast

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

from schemas.settings import Settings
from streams.batch import Record
from streams.metrics import RESTORED_ROWS
from streams.rows import SignalTables, scope_of
from streams.storm import StormGuard

GUARD_PREFIX = b'"#guard/'


def restore(
    settings: Settings,
    tables: SignalTables,
    guard: StormGuard,
    partitions: list[int],
    client: dict[str, Any],
    timeout_s: float = 120.0,
) -> int:
    """Fill the tables (and the guard's windows) of these partitions from the changelog; returns
    the rows now held for them. `client`: the logger and error callback every client of the
    worker gets. Raises RuntimeError when the changelog cannot be read to its end in time."""
    tables.open(partitions)
    for number in partitions:
        guard.restore(number, None)
    if not partitions:
        return 0
    changelog = settings.topics.signals_changelog
    reader = Consumer(
        {
            **settings.kafka_client_config(),
            "group.id": f"{settings.app_id}-restore",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            **client,
        }
    )
    try:
        ends: dict[int, int] = {}
        starts = []
        for number in partitions:
            low, high = reader.get_watermark_offsets(TopicPartition(changelog, number), timeout=30)
            if high > low:
                ends[number] = high
                starts.append(TopicPartition(changelog, number, OFFSET_BEGINNING))
        if not ends:
            return 0
        reader.assign(starts)
        rows = 0
        deadline = time.monotonic() + timeout_s
        while ends:
            if time.monotonic() > deadline:
                raise RuntimeError(f"restoring the signals changelog timed out; partitions left: {sorted(ends)}")
            for msg in cast("list[Record]", reader.consume(10_000, 1.0)):
                number = msg.partition()
                error = msg.error()
                if error is not None:
                    if error.code() == KafkaError._PARTITION_EOF:
                        ends.pop(number, None)
                    continue
                key, value = msg.key(), msg.value()
                if key is not None:
                    if key.startswith(GUARD_PREFIX):
                        guard.restore(number, value)
                    else:
                        table = tables.rows[number]
                        if value is None:
                            table.pop(scope_of(key), None)
                        else:
                            table[scope_of(key)] = value
                            rows += 1
                if msg.offset() + 1 >= ends.get(number, 0):
                    ends.pop(number, None)
        RESTORED_ROWS.inc(rows)
        tables.track_all(partitions)
        return sum(len(tables.rows[n]) for n in partitions)
    finally:
        reader.close()
