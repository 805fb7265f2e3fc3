"""Supersessions to judge by hand: which memory replaced which, on what evidence.

A correction that lands on the wrong memory silently deletes a fact, and no containment figure
shows it. So the evaluation lists every superseded memory of the active generations with the
memory that replaced it and the messages that replacement cites (dated, with their speakers, as
the baseline shows them), and `dreamstream eval --supersessions-sample N --seed S` puts N of them,
drawn at random, in the report for a person to mark right or wrong.

`python -m dreamstream_tools.evaluation.supersessions REPORT.json` prints a saved report's sample
as readable text.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from schemas import MemoryRecord


@dataclass(frozen=True)
class Supersession:
    scope: str
    old_id: str
    old_text: str
    new_id: str
    new_text: str
    """The replacing memory's text; "(missing)" when the generation does not hold it."""
    reason: str
    evidence: tuple[str, ...]
    """The replacing memory's evidence messages as `[YYYY-MM-DD] Speaker: text` lines."""


def supersessions(
    records_by_scope: Mapping[str, Mapping[str, MemoryRecord]], lines: Mapping[tuple[str, str], str]
) -> list[Supersession]:
    """Every superseded record of each scope's generation, in scope and memory-id order.
    `lines`: (scope, message id) -> the message as a dated line."""
    found = []
    for scope in sorted(records_by_scope):
        records = records_by_scope[scope]
        for memory_id in sorted(records):
            old = records[memory_id]
            if old.status != "superseded":
                continue
            new = records.get(old.superseded_by or "")
            evidence = new.evidence_message_ids if new is not None else ()
            found.append(
                Supersession(
                    scope,
                    memory_id,
                    old.text,
                    old.superseded_by or "",
                    new.text if new is not None else "(missing)",
                    old.status_reason,
                    tuple(lines.get((scope, m), f"({m}: not a message of the set)") for m in evidence),
                )
            )
    return found


def sample(found: list[Supersession], size: int, seed: int) -> list[Supersession]:
    """`size` of them drawn at random (all when fewer), the same for the same run and seed."""
    if size >= len(found):
        return list(found)
    return random.Random(seed).sample(found, size)


def sample_report(found: list[Supersession], size: int, seed: int) -> dict[str, Any]:
    return {"total": len(found), "seed": seed, "sample": [asdict(s) for s in sample(found, size, seed)]}


def render(report: Mapping[str, Any]) -> str:
    """The sample as text, numbered, one block per supersession, for marking right/wrong."""
    rows = report["sample"]
    lines = [f"{len(rows)} of {report['total']} supersessions (seed {report['seed']}); mark each right or wrong"]
    for number, row in enumerate(rows, 1):
        lines += [
            "",
            f"{number:>3}. {row['scope']}  {row['old_id']} -> {row['new_id']}"
            + (f"  ({row['reason']})" if row["reason"] else ""),
            f"     old: {row['old_text']}",
            f"     new: {row['new_text']}",
        ]
        lines += [f"     evidence: {line}" for line in row["evidence"]] or ["     evidence: (none cited)"]
        lines.append("     right / wrong: ")
    return "\n".join(line.rstrip() for line in lines)


__all__ = ["Supersession", "main", "render", "sample", "sample_report", "supersessions"]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m dreamstream_tools.evaluation.supersessions REPORT.json", file=sys.stderr)
        return 2
    try:
        text = render(json.loads(Path(argv[0]).read_text(encoding="utf-8"))["supersessions"])
    except OSError as err:
        print(f"Error: cannot read {argv[0]}: {err.strerror or err}", file=sys.stderr)
        return 1
    except (ValueError, KeyError, TypeError) as err:
        print(
            f"Error: {argv[0]} holds no supersession sample ({type(err).__name__}: {err}); "
            "run the eval with --supersessions-sample N --json",
            file=sys.stderr,
        )
        return 1
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
