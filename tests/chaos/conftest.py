"""Chaos trials print what they found at the end of the run (also with -q)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def chaos_broker():
    """A private broker of the session's own, for the trials that stop and restart it."""
    from dreamstream_tools import local_kafka
    from tests.chaos.harness import KAFKA_HOME, KAFKA_PORT

    broker = local_kafka.start(KAFKA_HOME, port=KAFKA_PORT)
    yield broker
    local_kafka.stop(KAFKA_HOME, port=KAFKA_PORT)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    from tests.chaos.harness import NOTES, RESULTS

    if not RESULTS and not NOTES:
        return
    terminalreporter.section("chaos trials")
    totals: dict[str, list[int]] = {}
    for kind, trial, faults, result in RESULTS:
        terminalreporter.write_line(
            f"{kind:<14} trial {trial:>3}: {faults} faults injected mid-run, lost {result.lost}, "
            f"duplicated {result.duplicated}, partially promoted {result.partial}"
        )
        total = totals.setdefault(kind, [0, 0, 0, 0, 0])
        for i, value in enumerate((1, faults, result.lost, result.duplicated, result.partial)):
            total[i] += value
    for kind, (trials, faults, lost, dup, partial) in totals.items():
        terminalreporter.write_line(
            f"{kind}: {trials} trials, {faults} faults: lost {lost}, duplicated {dup}, partially promoted {partial}"
        )
    for note in NOTES:
        terminalreporter.write_line(note)
