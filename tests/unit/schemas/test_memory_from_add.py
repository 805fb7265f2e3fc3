"""MemoryRecord.from_add, the one MemoryAdd -> MemoryRecord constructor (the snapshot's, the
pending read's and the tests' builders all use it; the tests' copy had dropped `metadata`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from schemas import MemoryAdd, MemoryRecord

T0 = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


def an_add(**extra: object) -> MemoryAdd:
    fields: dict[str, object] = {
        "scope": "acme/planner/ola",
        "memory_id": "m-7",
        "text": "Ola keeps her bike in the hall",
        "source_message_ids": ["n1"],
        "ts": T0,
        "metadata": {"source": "crm", "weight": 2},
        "protected": True,
    }
    return MemoryAdd.model_validate({**fields, **extra})


def test_as_the_snapshot_holds_it_it_keeps_everything_the_add_says() -> None:
    record = MemoryRecord.from_add(an_add())
    assert (record.scope, record.memory_id, record.text, record.origin) == (
        "acme/planner/ola",
        "m-7",
        "Ola keeps her bike in the hall",
        "memory_add",
    )
    assert record.evidence_message_ids == ("n1",) and record.metadata == {"source": "crm", "weight": 2}
    assert record.protected and record.consolidated and record.tier == "core"
    assert record.created_at == record.updated_at == record.valid_from == T0


def test_valid_from_is_the_one_given() -> None:
    assert MemoryRecord.from_add(an_add(), valid_from=T0 - timedelta(days=3)).valid_from == T0 - timedelta(days=3)


def test_pending_is_archive_unconsolidated_and_never_protected() -> None:
    record = MemoryRecord.from_add(an_add(), pending=True)
    assert (record.tier, record.consolidated, record.protected) == ("archive", False, False)
    assert record.metadata == {"source": "crm", "weight": 2} and record.valid_from == T0
