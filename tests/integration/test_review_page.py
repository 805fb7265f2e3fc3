"""The review page in headless Chromium against both workers as the chart runs them
(`dreamstream worker streams` and `dreamstream worker consumers`, separate processes) on a real
broker: a pass the gate quarantined appears with its rule and the messages behind it, an agent's
token reads but cannot decide, approve makes it active (the API, the audit topic and the
awaiting-review gauge agree), the diff names what replaced what, and roll back returns to the
previous generation. It takes the screenshots of the README: into docs/ when
DREAMSTREAM_UPDATE_SCREENSHOTS=1 (so a plain test run leaves the checkout as it was), otherwise
into the test's own directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dreamstream.control import wait_until_read
from dreamstream_tools.pipeline import settings_env
from tests.browser import Browser, chromium_binary
from tests.integration.test_deployed_use import _audit_records
from tests.integration.test_operations import free_port, scrape
from tests.integration.test_worker_processes import cli, get_json

pytestmark = pytest.mark.integration
if chromium_binary() is None:
    if os.environ.get("CI"):
        raise RuntimeError("chromium is missing: .ci/run installs Debian's chromium package")
    pytest.skip("chromium is not installed (apt-get install -y chromium)", allow_module_level=True)

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
SCOPE = "acme/travel-desk/noor"
AGENT = "agent-token-0123456789abcd"
OPERATOR = "operator-token-0123456789ab"
PASS_WAIT_S = 300  # a pass takes ~5-20 s here (the MiniLM model loads once); 5x and more on a loaded machine


def turn(session: str, index: int, day: str, minute: int, text: str) -> str:
    return json.dumps(
        {
            "scope": SCOPE,
            "session_id": session,
            "message_id": f"{session}#{index}",
            "role": "user",
            "content": text,
            "ts": f"2026-05-{day}T09:{minute:02d}:00+00:00",
        }
    )


FIRST = [
    turn("noor-1", 0, "04", 0, "I always book a window seat on long flights."),
    turn("noor-1", 1, "04", 1, "My daughter Lina starts school in September."),
]
SECOND = [
    turn("noor-2", 0, "11", 0, "Actually I want an aisle seat, not a window seat."),
    turn("noor-2", 1, "11", 1, "My email is noor.k@example.net, the <b>work</b> one, please keep it."),
]


def awaiting(metrics_port: int) -> float | None:
    return scrape(metrics_port).get(("dreamstream_generations_awaiting_review", (("tenant", "acme"),)))


def dream(settings, tmp_path: Path, name: str, lines: list[str]) -> dict:
    events = tmp_path / f"{name}.jsonl"
    events.write_text("\n".join(lines) + "\n")
    replay = cli(settings, "replay", str(events), "--json")
    assert replay.returncode == 0, replay.stderr[-2000:]
    wait_until_read(settings, timeout_s=PASS_WAIT_S)  # the trigger must not overtake the replay
    triggered = cli(settings, "trigger", SCOPE, "--wait", "--timeout", str(PASS_WAIT_S), "--json", timeout=PASS_WAIT_S)
    assert triggered.returncode == 0, triggered.stderr[-2000:]
    (outcome,) = json.loads(triggered.stdout)["requests"]
    return outcome


@pytest.fixture
def deployment(make_settings, workers, tmp_path):
    api_port, metrics_port = free_port(), free_port()
    settings = make_settings(
        api_port=api_port,
        api_token=AGENT,
        api_operator_token=OPERATOR,
        metrics_port=metrics_port,
        privacy_mode="block",
    )
    workers(settings.model_copy(update={"metrics_port": 0, "api_port": 0}), "streams")
    env = {**os.environ, **settings_env(settings)}
    with open(tmp_path / "consumers.log", "wb") as log:
        consumers = subprocess.Popen(
            [sys.executable, "-m", "dreamstream.cli", "worker", "consumers"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    browser = None
    try:
        get_json(f"http://127.0.0.1:{api_port}/readyz", AGENT, attempts=240)
        browser = Browser(tmp_path / "chromium-profile", tmp_path / "chromium.log")
        yield settings, f"http://127.0.0.1:{api_port}", metrics_port, browser
    finally:
        if browser is not None:
            browser.close()
        consumers.terminate()
        consumers.wait(timeout=60)
    assert consumers.returncode == 0, (tmp_path / "consumers.log").read_text()[-3000:]


def sign_in(browser: Browser, url: str, token: str, name: str) -> None:
    browser.open(f"{url}/ui/")
    browser.wait_until_shown("[data-test=login]")
    browser.type("[data-test=token]", token)
    browser.type("[data-test=name]", name)
    browser.click("[data-test=sign-in]")
    browser.wait_until_shown("[data-test=who] .badge")


def open_tab(browser: Browser, tab: str, shown: str) -> None:
    browser.click(f"[data-test=tab-{tab}]")
    browser.wait_until_shown(shown)


def screenshots_dir(tmp_path: Path) -> Path:
    return DOCS if os.environ.get("DREAMSTREAM_UPDATE_SCREENSHOTS") == "1" else tmp_path


def memories(url: str) -> list[dict]:
    return get_json(f"{url}/scopes/{SCOPE}/memories", AGENT)["memories"]


def test_an_operator_reviews_approves_and_rolls_back_in_the_browser(deployment, tmp_path):
    shots = screenshots_dir(tmp_path)
    settings, url, metrics_port, browser = deployment
    first = dream(settings, tmp_path, "first", FIRST)
    assert first["status"] == "completed" and first["generation"] == 1, first
    (window,) = [m["memory_id"] for m in memories(url) if "window" in m["text"]]
    second = dream(settings, tmp_path, "second", SECOND)
    assert second["status"] == "quarantined" and second["generation"] == 2, second
    assert awaiting(metrics_port) == 1  # the worker's own pointer write, seen at once

    # An agent's token reads the candidate but is offered no decision.
    sign_in(browser, url, AGENT, "agent-42")
    assert "read-only" in browser.text("[data-test=who]")
    browser.open(f"{url}/ui/#/s/{SCOPE}/quarantine/2")
    browser.wait_until_shown("[data-test=finding]")
    assert browser.evaluate("document.querySelectorAll('[data-test=approve]').length") == 0
    browser.click("[data-test=sign-out]")
    browser.wait_until_shown("[data-test=login]")

    # The operator: the tenant's scopes, the timeline, the quarantined candidate.
    sign_in(browser, url, OPERATOR, "oncall-maria")
    browser.wait_until_shown("[data-test=scope-row].waiting")
    assert "review 2" in browser.text("[data-test=scope-row]")
    browser.click("[data-test=scope-link]")
    browser.wait_until_shown("[data-test=timeline-entry]")
    entries = browser.texts("[data-test=timeline-entry]")
    assert "quarantined" in entries[0] and "[privacy]" in entries[0] and "completed" in entries[1], entries
    open_tab(browser, "quarantine", "[data-test=finding]")
    finding = browser.text("[data-test=finding]")
    assert finding.startswith("privacy") and "email" in finding, finding
    flagged = [c for c in browser.texts("[data-test=candidate-change]") if "held by the gate" in c]
    assert flagged and "noor.k@example.net" in flagged[0], flagged
    evidence = browser.texts("[data-test=evidence]")
    said = next(e for e in evidence if "noor-2#1" in e)
    assert "2026-05-11 09:01 UTC" in said and "the <b>work</b> one" in said, said  # text, never markup
    assert browser.evaluate("document.querySelectorAll('main b').length") == 0
    assert "window" in browser.text("[data-test=active-column]").lower()
    assert "aisle" in browser.text("[data-test=candidate-column]").lower()
    browser.screenshot(shots / "review-quarantine.png")

    # Approve, with a reason: the candidate is what readers see.
    open_tab(browser, "quarantine", "[data-test=decision-form]")
    browser.type("[data-test=decision-reason]", "the address is the user's own work address")
    browser.click("[data-test=approve]")
    browser.wait_for("document.querySelector('[data-test=notice]').innerText.includes('approved')")
    assert browser.text("[data-test=active-generation]") == "2"
    generations = get_json(f"{url}/scopes/{SCOPE}/generations", AGENT)
    assert generations["active_generation"] == 2
    (approved,) = [g for g in generations["generations"] if g["generation"] == 2]
    assert approved["decisions"][-1]["by"] == "oncall-maria"
    # The window-seat memory is no longer read; what replaced it says aisle (and may say "not a window seat").
    active = memories(url)
    assert window not in {m["memory_id"] for m in active}, active
    assert any("aisle" in m["text"] for m in active), active

    def operator_events(records) -> list[dict]:
        return [json.loads(r.value()) for r in records if b'"type":"operator"' in r.value()]

    records = _audit_records(settings, timeout_s=60, until=lambda rs: len(operator_events(rs)) >= 1)
    (event,) = operator_events(records)
    assert (event["action"], event["generation"], event["active_generation"], event["previous_generation"]) == (
        "approved",
        2,
        2,
        1,
    )
    assert event["by"] == "oncall-maria" and event["reason"] == "the address is the user's own work address"
    deadline = time.monotonic() + 30
    while awaiting(metrics_port) != 0 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert awaiting(metrics_port) == 0

    # The diff of the two generations: what the approved pass replaced, and by what.
    open_tab(browser, "diff", "[data-test=diff]")
    replaced = browser.texts("[data-test=diff-replaced-item]")
    assert any("window" in r and "superseded" in r and "aisle" in r for r in replaced), replaced
    browser.screenshot(shots / "review-diff.png")

    # Roll back to generation 1.
    open_tab(browser, "timeline", "[data-test=rollback-form]")
    browser.choose("[data-test=rollback-generation]", "1")
    browser.type("[data-test=rollback-reason]", "the user asked to keep the old seat until confirmed")
    browser.click("[data-test=rollback]")
    browser.wait_for("document.querySelector('[data-test=notice]').innerText.includes('Rolled back')")
    assert browser.text("[data-test=active-generation]") == "1"
    assert get_json(f"{url}/scopes/{SCOPE}/generations", AGENT)["active_generation"] == 1
    records = _audit_records(settings, timeout_s=60, until=lambda rs: len(operator_events(rs)) >= 2)
    rolled = [e for e in operator_events(records) if e["action"] == "rolled-back"]
    assert rolled and rolled[0]["active_generation"] == 1 and rolled[0]["previous_generation"] == 2
    assert rolled[0]["by"] == "oncall-maria"
    assert scrape(metrics_port)[("dreamstream_rollbacks_total", ())] == 1

    # The timeline now holds both decisions, who made them and why.
    browser.wait_until_shown("[data-test=timeline-entry]")
    entries = browser.texts("[data-test=timeline-entry]")
    assert "rolled-back" in entries[0] and "oncall-maria" in entries[0] and "old seat" in entries[0], entries
    assert "approved" in entries[1] and "work address" in entries[1], entries
    browser.screenshot(shots / "review-timeline.png")
    for name in ("review-quarantine", "review-diff", "review-timeline"):
        assert (shots / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
