"""The supersession sampler: every superseded memory with its replacement and the replacement's
evidence, a seeded random sample of them, and the sample as text (records written for the test)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from dreamstream_tools.evaluation.supersessions import Supersession, main, render, sample, sample_report, supersessions
from schemas import MemoryRecord

SCOPE = "acme/helpdesk/ilse"
T0 = datetime(2026, 2, 1, tzinfo=UTC)


def record(memory_id: str, text: str, evidence=(), **extra) -> MemoryRecord:
    return MemoryRecord(
        scope=SCOPE,
        memory_id=memory_id,
        text=text,
        origin="transcript",
        evidence_message_ids=tuple(evidence),
        created_at=T0,
        updated_at=T0,
        **extra,
    )


LINES = {
    (SCOPE, "m1"): "[2026-02-01] user: I commute by bus",
    (SCOPE, "m4"): "[2026-02-09] user: I bought a bike, no more bus for me",
}


def _records() -> dict[str, dict[str, MemoryRecord]]:
    old = record(
        "old", "Ilse commutes by bus", ["m1"], status="superseded", superseded_by="new", status_reason="corrected 'bus'"
    )
    new = record("new", "Ilse commutes by bike (said on 2026-02-09)", ["m4", "m9"])
    lost = record("gone", "Ilse works in Graz", ["m1"], status="superseded", superseded_by="nowhere")
    kept = record("kept", "Ilse has a cat", ["m1"])
    merged = record("merged", "Ilse has a cat named Pepper", ["m1"], status="merged", merged_into="kept")
    return {SCOPE: {r.memory_id: r for r in (kept, new, old, lost, merged)}}


def test_every_supersession_is_listed_with_the_replacement_and_its_dated_evidence():
    found = supersessions(_records(), LINES)
    assert [(s.old_id, s.new_id) for s in found] == [("gone", "nowhere"), ("old", "new")]  # memory-id order
    change = found[1]
    assert change.old_text == "Ilse commutes by bus" and change.new_text == "Ilse commutes by bike (said on 2026-02-09)"
    assert change.reason == "corrected 'bus'"
    assert change.evidence == (
        "[2026-02-09] user: I bought a bike, no more bus for me",
        "(m9: not a message of the set)",
    )
    assert found[0].new_text == "(missing)" and found[0].evidence == ()


def _many(n: int) -> list[Supersession]:
    return [Supersession(SCOPE, f"o{i}", f"old {i}", f"n{i}", f"new {i}", "", ()) for i in range(n)]


def test_the_sample_is_random_but_the_same_for_the_same_seed():
    found = _many(40)
    first = sample(found, 30, seed=5)
    assert len(first) == 30 and len(set(first)) == 30
    assert sample(found, 30, seed=5) == first
    assert sample(found, 30, seed=6) != first
    assert sample(found[:3], 30, seed=5) == found[:3]  # fewer than asked: all of them


def test_the_sample_reads_as_numbered_blocks_to_mark():
    report = sample_report(supersessions(_records(), LINES), 5, seed=1)
    assert report["total"] == 2 and report["seed"] == 1
    text = render(report)
    assert text.startswith("2 of 2 supersessions (seed 1)")
    assert "     old: Ilse commutes by bus" in text
    assert "     new: Ilse commutes by bike (said on 2026-02-09)" in text
    assert "     evidence: [2026-02-09] user: I bought a bike, no more bus for me" in text
    assert "     evidence: (none cited)" in text  # the one whose replacement is missing
    assert text.count("right / wrong:") == 2
    json.dumps(report)


def test_a_saved_report_prints_its_sample(tmp_path, capsys):
    saved = tmp_path / "report.json"
    saved.write_text(json.dumps({"supersessions": sample_report(_many(3), 2, seed=0)}), encoding="utf-8")
    assert main([str(saved)]) == 0
    assert capsys.readouterr().out.startswith("2 of 3 supersessions (seed 0)")
    saved.write_text(json.dumps({"supersessions": {"total": 3}}), encoding="utf-8")  # no sample asked for
    assert main([str(saved)]) == 1
    assert "--supersessions-sample" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.json")]) == 1
    assert main([]) == 2
