"""Every `dreamstream` read and operator command as a subprocess, against real Kafka and embedded
Qdrant, after the fixtures went through the real pipeline.

While the pipeline runs (it holds the embedded store): `replay`, `trigger --wait`, `audit tail
--follow`, and reads through the worker's HTTP API. After it stopped: every read command on the
store directly, then the operator decisions (reject, approve, rollback).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from consumers.api import start_api
from dreamstream_tools.pipeline import LocalPipeline, settings_env

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
AVA = "demo/travel-assistant/ava"
ACME = "acme/support-bot/u1"
# `python -m dreamstream.cli`, with these commands registered even before cli.py registers them.
BOOT = """
from dreamstream.cli import main
from dreamstream import cli_ops, cli_read
for command in (cli_read.memories, cli_read.generations, cli_read.jobs, cli_read.audit,
                cli_ops.replay, cli_ops.trigger, cli_ops.rollback, cli_ops.quarantine):
    main.commands.setdefault(command.name, command)
main(prog_name="dreamstream")
"""
STAMPS = {"scope": AVA, "memory_id": "ava-m9", "text": "Ava collects vintage stamps", "ts": "2026-03-20T10:00:00+00:00"}
EMAILS = [
    {"scope": AVA, "memory_id": "ava-m10", "text": "Ava's email is ava@example.com", "ts": "2026-03-21T10:00:00+00:00"},
    {
        "scope": ACME,
        "memory_id": "acme-m9",
        "text": "Reach u1 at u1@acme.example.com",
        "ts": "2026-03-21T10:00:00+00:00",
    },
]


def command(*args: str) -> list[str]:
    return [sys.executable, "-c", BOOT, *args]


def environment(settings, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DREAMSTREAM_API")}
    return {**env, **settings_env(settings), **(extra or {})}


def cli(settings, *args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        command(*args),
        env=environment(settings, env),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def ok(run: subprocess.CompletedProcess) -> str:
    assert run.returncode == 0, f"exit {run.returncode}\nstdout: {run.stdout[-2000:]}\nstderr: {run.stderr[-3000:]}"
    return run.stdout


def ok_json(run: subprocess.CompletedProcess):
    return json.loads(ok(run))


def one_line_error(run: subprocess.CompletedProcess, *fragments: str, code: int = 1) -> str:
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert run.returncode == code, (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr and len(lines) == 1 and lines[0].startswith("Error: "), run.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


class Follower:
    """`audit tail --follow --json` in the background, its output lines in queues."""

    def __init__(self, settings) -> None:
        self.proc = subprocess.Popen(
            command("audit", "tail", "--follow", "--json", "--limit", "0"),
            env=environment(settings),
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        self.out: queue.Queue[str] = queue.Queue()
        self.err: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []
        for stream, sink in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=lambda s=stream, q=sink: [q.put(line) for line in s], daemon=True).start()

    def wait_for_stderr(self, fragment: str, timeout_s: float = 60) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                line = self.err.get(timeout=0.5)
            except queue.Empty:
                assert self.proc.poll() is None, f"follower exited: {self.stderr}"
                continue
            self.stderr.append(line)
            if fragment in line:
                return
        raise AssertionError(f"no {fragment!r} on stderr: {self.stderr}")

    def events_until(self, done, timeout_s: float = 60) -> list[dict]:
        events: list[dict] = []
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                events.append(json.loads(self.out.get(timeout=0.5)))
            except queue.Empty:
                continue
            if done(events):
                return events
        raise AssertionError(f"condition not met within {timeout_s}s: {events}")

    def interrupt(self) -> subprocess.CompletedProcess:
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(timeout=30)
        time.sleep(0.2)
        while not self.err.empty():
            self.stderr.append(self.err.get())
        return subprocess.CompletedProcess(self.proc.args, code, "", "".join(self.stderr))


@pytest.fixture(scope="module")
def dreamed(kafka_bootstrap, tmp_path_factory, fixtures_dir):
    """Three passes for Ava (completed, completed, quarantined), a quarantined second one for
    acme, one for each other scope; the commands run while the pipeline held the store are
    recorded in `runs`."""
    from tests.integration.kafka_env import unique_settings

    home = tmp_path_factory.mktemp("cli")
    settings = unique_settings(kafka_bootstrap, home, privacy_mode="block")  # an email quarantines the pass
    scopes = sorted({json.loads(line)["scope"] for line in (fixtures_dir / "events.jsonl").read_text().splitlines()})
    runs: dict[str, subprocess.CompletedProcess] = {}
    pipeline = LocalPipeline(settings).start()
    try:
        runs["replay"] = cli(
            settings, "replay", str(fixtures_dir / "events.jsonl"), str(fixtures_dir / "memory_adds.jsonl"), "--json"
        )
        ok(runs["replay"])
        runs["trigger"] = cli(settings, "trigger", *scopes, "--wait", "--json", "--timeout", "240", timeout=300)
        ok(runs["trigger"])
        ok(cli(settings, "replay", str(write_jsonl(home / "stamps.jsonl", [STAMPS]))))
        runs["trigger_text"] = cli(settings, "trigger", AVA, "--wait", timeout=300)
        ok(runs["trigger_text"])

        follower = Follower(settings)
        follower.wait_for_stderr("following")
        ok(cli(settings, "replay", str(write_jsonl(home / "emails.jsonl", EMAILS))))
        runs["trigger_quarantine"] = cli(settings, "trigger", AVA, ACME, "--wait", "--json", timeout=300)
        followed = follower.events_until(
            lambda events: (
                {e["scope"] for e in events if e["type"] == "job" and e["status"] == "quarantined"} >= {AVA, ACME}
                and any(e["type"] == "memory" and e["memory_id"] == "ava-m10" for e in events)
            )
        )
        runs["follow"] = follower.interrupt()
        runs["trigger_no_wait"] = cli(settings, "trigger", "demo/strategy-assistant/lead", "--json")

        # A running worker holds the embedded store: reads need its HTTP API.
        lock = getattr(pipeline.runtime, "lock", None) or threading.RLock()  # the worker's lock once runtime has one
        api = start_api(settings.model_copy(update={"api_port": 0}), pipeline.runtime, lambda: True, lock=lock)
        try:
            runs["locked"] = cli(settings, "memories", "list", AVA)
            runs["via_api"] = cli(settings, "memories", "list", AVA, "--api", api.url, "--json")
            runs["via_api_env"] = cli(settings, "quarantine", "list", "--json", env={"DREAMSTREAM_API_URL": api.url})
            runs["via_api_show"] = cli(settings, "memories", "show", AVA, "ava-m1", "--api", api.url, "--json")
            runs["via_api_unknown"] = cli(settings, "jobs", "acme/support-bot/nobody", "--api", api.url)
            runs["api_unreachable"] = cli(settings, "generations", AVA, "--api", "http://127.0.0.1:9")
            runs["locked_rollback"] = cli(settings, "rollback", AVA)
        finally:
            api.stop()
        pipeline.read_audit(0.5)
    finally:
        pipeline.stop()
        if pipeline.runtime is not None:
            pipeline.runtime.close()
    yield SimpleNamespace(settings=settings, runs=runs, scopes=scopes, followed=followed, home=home)


# --- while the pipeline ran
def test_replay_produces_every_line_with_a_progress_bar(dreamed, fixtures_dir):
    run = dreamed.runs["replay"]
    counts = json.loads(run.stdout)
    lines = sum(len((fixtures_dir / f).read_text().splitlines()) for f in ("events.jsonl", "memory_adds.jsonl"))
    assert counts["events"] == lines == sum(counts["topics"].values())
    assert set(counts["topics"]) == {dreamed.settings.topics.turns, dreamed.settings.topics.memory_adds}
    assert "replaying" in run.stderr


def test_trigger_waits_for_every_pass(dreamed):
    requests = json.loads(dreamed.runs["trigger"].stdout)["requests"]
    assert sorted(r["scope"] for r in requests) == dreamed.scopes
    assert all(r["request_id"].startswith("req-") for r in requests)
    assert all(r["status"] in ("completed", "no-op") for r in requests), requests
    assert {(r["scope"], r["status"], r["generation"]) for r in requests if r["scope"] in (AVA, ACME)} == {
        (AVA, "completed", 1),
        (ACME, "completed", 1),
    }
    text = ok(dreamed.runs["trigger_text"])
    assert AVA in text and "completed" in text
    quarantined = json.loads(ok(dreamed.runs["trigger_quarantine"]))["requests"]
    assert {(r["scope"], r["status"]) for r in quarantined} == {(AVA, "quarantined"), (ACME, "quarantined")}
    assert all("email" in r["reason"] for r in quarantined)
    sent = json.loads(ok(dreamed.runs["trigger_no_wait"]))["requests"]
    assert len(sent) == 1 and sent[0]["scope"] == "demo/strategy-assistant/lead" and "status" not in sent[0]


def test_audit_tail_follows_new_events(dreamed):
    followed = dreamed.followed
    assert {e["scope"] for e in followed} <= {AVA, ACME}
    assert any(e["type"] == "memory" and e["memory_id"] == "ava-m10" for e in followed)
    run = dreamed.runs["follow"]
    assert run.returncode == 0 and "Traceback" not in run.stderr


def test_reads_go_through_the_api_when_the_worker_holds_the_store(dreamed):
    one_line_error(dreamed.runs["locked"], "in use by another process", "--api", "DREAMSTREAM_API_URL")
    body = ok_json(dreamed.runs["via_api"])
    assert body["scope"] == AVA and body["generation"] == 2
    assert any("aisle" in m["text"] for m in body["memories"]) and all(
        m["status"] == "active" for m in body["memories"]
    )
    held = ok_json(dreamed.runs["via_api_env"])["quarantined"]
    assert {(q["scope"], q["generation"]) for q in held} == {(AVA, 3), (ACME, 2)}
    show = ok_json(dreamed.runs["via_api_show"])
    assert show["current"]["status"] == "superseded" and len(show["history"]) == 3
    one_line_error(dreamed.runs["via_api_unknown"], "unknown")
    one_line_error(dreamed.runs["api_unreachable"], "cannot reach the API at http://127.0.0.1:9")
    one_line_error(dreamed.runs["locked_rollback"], "in use by another process", "stop the worker")


# --- on the store directly, after the pipeline stopped
def test_memories_list(dreamed):
    body = ok_json(cli(dreamed.settings, "memories", "list", AVA, "--json"))
    texts = [m["text"] for m in body["memories"]]
    assert body["generation"] == 2 and any("aisle" in t for t in texts) and not any("window" in t for t in texts)
    assert "Ava collects vintage stamps" in texts
    old = ok_json(cli(dreamed.settings, "memories", "list", AVA, "--generation", "1", "--all", "--json"))
    assert {m["memory_id"]: m["status"] for m in old["memories"]}["ava-m1"] == "superseded"
    text = ok(cli(dreamed.settings, "memories", "list", AVA))
    assert text.startswith(f"{AVA}: generation 2") and "ID" in text and "aisle" in text
    about = ok_json(cli(dreamed.settings, "memories", "list", AVA, "--about", "stamp", "--json"))
    assert "Ava collects vintage stamps" in [m["text"] for m in about["memories"]]
    assert all("stamp" in m["text"].lower() for m in about["memories"]) and len(about["memories"]) < len(texts)


def test_memories_show_follows_one_memory(dreamed):
    body = ok_json(cli(dreamed.settings, "memories", "show", AVA, "ava-m9", "--json"))
    assert body["current"]["text"] == "Ava collects vintage stamps" and body["active_generation"] == 2
    assert [(h["generation"], h["generation_status"], h["record"] is not None) for h in body["history"]] == [
        (1, "retired", False),
        (2, "active", True),
        (3, "quarantined", True),
    ]
    text = ok(cli(dreamed.settings, "memories", "show", AVA, "ava-m1"))
    assert "superseded by" in text and "(absent)" not in text
    one_line_error(
        cli(dreamed.settings, "memories", "show", AVA, "no-such-memory"), "no-such-memory", "no kept generation"
    )


def test_memories_history_is_the_change_trail(dreamed):
    body = ok_json(cli(dreamed.settings, "memories", "history", AVA, "--json"))
    entries = body["entries"]
    assert [e["status"] for e in entries] == ["completed", "completed", "quarantined"]
    changes = [c for e in entries for c in e["changes"]]
    assert any(c["change"] == "superseded" and c["memory_id"] == "ava-m1" for c in changes)
    assert any(c["change"] == "created" and c["memory_id"] == "ava-m9" for c in entries[1]["changes"])
    text = ok(cli(dreamed.settings, "memories", "history", AVA, "--limit", "1"))
    assert "quarantined" in text and "ava-m10" in text and "ava-m1 " not in text


def test_memories_diff(dreamed):
    body = ok_json(cli(dreamed.settings, "memories", "diff", AVA, "--json"))
    assert (body["from"], body["to"]) == (1, 2)
    assert "ava-m9" in [m["memory_id"] for m in body["added"]]
    review = ok_json(cli(dreamed.settings, "memories", "diff", AVA, "2", "3", "--json"))
    assert "ava-m10" in [m["memory_id"] for m in review["added"]]
    first = ok_json(cli(dreamed.settings, "memories", "diff", AVA, "0", "1", "--json"))
    assert first["added"] and not first["removed"] and not first["changed"]
    text = ok(cli(dreamed.settings, "memories", "diff", AVA))
    assert text.startswith(f"{AVA}: generation 1 → 2:") and "+ ava-m9" in text


def test_generations(dreamed):
    body = ok_json(cli(dreamed.settings, "generations", AVA, "--json"))
    assert body["active_generation"] == 2
    assert [(g["generation"], g["status"]) for g in body["generations"]] == [
        (1, "retired"),
        (2, "active"),
        (3, "quarantined"),
    ]
    assert all(g["job_id"].startswith("job-") for g in body["generations"])
    text = ok(cli(dreamed.settings, "generations", AVA))
    assert "generation 2 is active" in text and "quarantined" in text


def test_jobs_lists_the_diary(dreamed):
    body = ok_json(cli(dreamed.settings, "jobs", AVA, "--json"))
    jobs = body["jobs"]
    assert [(j["trigger"], j["status"]) for j in jobs] == [
        ("manual", "completed"),
        ("manual", "completed"),
        ("manual", "quarantined"),
    ]
    assert jobs[0]["motives"] and jobs[0]["memory_changes"] > 0 and "events" not in jobs[0]
    assert "email" in jobs[2]["reason"]
    text = ok(cli(dreamed.settings, "jobs", AVA, "--limit", "1"))
    assert "quarantined" in text and len(text.strip().splitlines()) == 2


def test_audit_tail(dreamed):
    lines = ok(cli(dreamed.settings, "audit", "tail", "--scope", AVA, "--limit", "5", "--json")).splitlines()
    events = [json.loads(line) for line in lines]
    assert len(events) == 5 and {e["scope"] for e in events} == {AVA}
    jobs = [i for i, e in enumerate(events) if e["type"] == "job"]
    assert events[jobs[-1]]["status"] == "quarantined"
    change = next(i for i, e in enumerate(events) if e["type"] == "memory" and e["memory_id"] == "ava-m10")
    assert change > jobs[-1], "a pass's events come in the order they were published"
    assert len(ok(cli(dreamed.settings, "audit", "tail", "--limit", "3", "--json")).splitlines()) == 3
    text = ok(cli(dreamed.settings, "audit", "tail", "--scope", ACME, "--limit", "2"))
    assert ACME in text and "quarantined" in text and AVA not in text


def test_quarantine_list(dreamed):
    held = ok_json(cli(dreamed.settings, "quarantine", "list", "--json"))["quarantined"]
    assert {(q["scope"], q["generation"]) for q in held} == {(AVA, 3), (ACME, 2)}
    assert all("email" in q["reason"] for q in held)
    only = ok_json(cli(dreamed.settings, "quarantine", "list", ACME, "--json"))["quarantined"]
    assert [q["generation"] for q in only] == [2]


def test_errors_are_one_line_and_a_non_zero_exit(dreamed, tmp_path):
    s = dreamed.settings
    one_line_error(cli(s, "memories", "list", "acme/../globex"), "agent part '..'")
    one_line_error(cli(s, "generations", "acme/support-bot/nobody"), "unknown")
    one_line_error(cli(s, "memories", "list", AVA, "--generation", "9"), "no generation 9")
    one_line_error(cli(s, "memories", "diff", AVA, "9"), "no generation 9")
    one_line_error(cli(s, "rollback", AVA, "9"), "no promotable generation 9")
    one_line_error(cli(s, "quarantine", "approve", AVA, "1", "--reason", "x"), "retired, not quarantined")
    one_line_error(cli(s, "quarantine", "reject", AVA, "3"), "--reason", code=2)
    one_line_error(cli(s, "replay", str(tmp_path / "nope.jsonl")), "nope.jsonl", code=2)
    one_line_error(cli(s, "memories", "list"), "Missing argument 'SCOPE'", code=2)
    one_line_error(cli(s, "memories", "list", AVA, "--about", "?!"), "about must name", code=2)
    unreachable = {"DREAMSTREAM_KAFKA_BOOTSTRAP_SERVERS": "127.0.0.1:9"}
    one_line_error(cli(s, "trigger", AVA, env=unreachable), "cannot reach Kafka at 127.0.0.1:9")
    one_line_error(cli(s, "audit", "tail", env=unreachable), "cannot reach Kafka at 127.0.0.1:9")
    one_line_error(
        cli(s, "trigger", AVA, env={"DREAMSTREAM_TOPIC_PREFIX": "no-such-prefix"}),
        "missing",
        "dreamstream kafka topics",
    )
    one_line_error(cli(s, "trigger", "not/a/scope/at/all"), "three parts")
    # issue 17: each of these printed a traceback (or nothing) before
    wrong_count = {"DREAMSTREAM_PARTITIONS": str(s.partitions + 4)}
    for args in (("forget", AVA, "--no-wait"), ("trigger", AVA)):
        one_line_error(cli(s, *args, env=wrong_count), f"has {s.partitions} partitions but the settings say")
    one_line_error(cli(s, "forget", "acme/../globex"), "agent part '..'")
    one_line_error(
        cli(s, "settings", "show", env={"DREAMSTREAM_TENANT_POLICIES": '{"acme": {idle_s: 60}'}),
        "invalid settings",
        "tenant_policies",
        "Expecting property name",
    )
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n  \n")
    one_line_error(cli(s, "replay", str(empty)), f"no events in {empty}")


# --- operator decisions (they change the store: last)
def test_reject_approve_and_rollback(dreamed):
    s = dreamed.settings
    rejected = ok_json(
        cli(s, "quarantine", "reject", ACME, "2", "--reason", "personal data", "--by", "carol", "--json")
    )
    info = {g["generation"]: g for g in rejected["generations"]}[2]
    assert info["status"] == "rejected" and [(d["action"], d["by"], d["reason"]) for d in info["decisions"]] == [
        ("rejected", "carol", "personal data")
    ]
    one_line_error(cli(s, "memories", "list", ACME, "--generation", "2"), "rejected")

    text = ok(cli(s, "quarantine", "approve", AVA, "3", "--reason", "a work address", "--by", "alice"))
    assert "approved by alice" in text
    state = ok_json(cli(s, "generations", AVA, "--json"))
    assert state["active_generation"] == 3
    approved = {g["generation"]: g for g in state["generations"]}[3]
    assert approved["status"] == "active" and [d["action"] for d in approved["decisions"]] == ["approved"]
    assert "Ava's email is ava@example.com" in [
        m["text"] for m in ok_json(cli(s, "memories", "list", AVA, "--json"))["memories"]
    ]
    assert ok_json(cli(s, "quarantine", "list", "--json"))["quarantined"] == []
    last = ok_json(cli(s, "jobs", AVA, "--json"))["jobs"][-1]
    assert (last["trigger"], last["status"], last["generation"]) == ("operator", "approved", 3) and "alice" in last[
        "reason"
    ]
    assert ok_json(cli(s, "memories", "history", AVA, "--json"))["entries"][-1]["status"] == "approved"

    back = ok_json(cli(s, "rollback", AVA, "--reason", "undo", "--by", "dave", "--json"))
    assert back["active_generation"] == 2
    assert ok(cli(s, "rollback", AVA, "3")).strip() == f"{AVA}: generation 3 is active again (was 2)"
    decided = {g["generation"]: g for g in ok_json(cli(s, "generations", AVA, "--json"))["generations"]}[3]["decisions"]
    assert [(d["action"], d["by"]) for d in decided][0] == ("approved", "alice") and decided[-1][
        "action"
    ] == "rolled-back"
    assert ok_json(cli(s, "memories", "diff", AVA, "--json"))["from"] == 2
    assert [j["status"] for j in ok_json(cli(s, "jobs", AVA, "--json"))["jobs"]][-2:] == ["rolled-back", "rolled-back"]


def test_cli_decisions_publish_operator_events(dreamed):
    """The decisions above ran on the store directly (no worker): each still reached the audit
    topic, with who, why and what readers see differently, and the CloudEvents headers."""
    from dreamstream.control import AuditReader
    from schemas import OperatorDecisionEvent

    reader = AuditReader(dreamed.settings)
    try:
        deadline = time.monotonic() + 30
        while (
            time.monotonic() < deadline and len([e for e in reader.events if isinstance(e, OperatorDecisionEvent)]) < 4
        ):
            reader.read(1.0)
    finally:
        reader.close()
    decisions = [(e.scope, e.action, e.by, e.generation) for e in reader.events if isinstance(e, OperatorDecisionEvent)]
    # Two scopes, so two partitions: the order across them is not defined.
    assert sorted(decisions) == sorted(
        [
            (ACME, "rejected", "carol", 2),
            (AVA, "approved", "alice", 3),
            (AVA, "rolled-back", "dave", 2),
            (AVA, "rolled-back", operator_name(), 3),
        ]
    )
    approved = next(e for e in reader.events if isinstance(e, OperatorDecisionEvent) and e.action == "approved")
    assert "ava-m10" in {m.memory_id for m in approved.activated}


def operator_name() -> str:
    from dreamstream.cli_common import operator_name as name

    return name()


def test_replay_checks_every_line_first(dreamed, tmp_path):
    good = {
        "scope": AVA,
        "session_id": "s",
        "message_id": "chk#1",
        "role": "user",
        "content": "hello",
        "ts": "2026-04-01T10:00:00+00:00",
    }
    path = tmp_path / "mixed.jsonl"
    path.write_text(json.dumps(good) + "\n{broken\n" + json.dumps({**good, "role": "robot"}) + "\n")
    line = one_line_error(
        cli(dreamed.settings, "replay", str(path)), "2 invalid line(s), nothing sent", f"{path}:2", f"{path}:3", "role"
    )
    assert "--skip-invalid" in line
    run = cli(dreamed.settings, "replay", str(path), "--skip-invalid", "--json")
    body = ok_json(run)
    assert body["events"] == 1 and [s["line"] for s in body["skipped"]] == [f"{path}:2", f"{path}:3"]
    assert f"skipping {path}:2" in run.stderr


def test_version_and_settings_show_with_secrets_masked(dreamed):
    assert ok(cli(dreamed.settings, "--version")).strip() == "dreamstream 0.1.0"
    secret = "sk-very-secret-value-123"
    shown = ok(cli(dreamed.settings, "settings", "show", env={"DREAMSTREAM_LLM_API_KEY": secret}))
    assert secret not in shown and "llm_api_key = **********" in shown
    assert f"topic_prefix = {dreamed.settings.topic_prefix}" in shown
    as_json = ok_json(cli(dreamed.settings, "settings", "show", "--json", env={"DREAMSTREAM_LLM_API_KEY": secret}))
    assert as_json["llm_api_key"] == "**********"
    one_line_error(
        cli(dreamed.settings, "settings", "show", env={"DREAMSTREAM_API_TOKEN": ""}),
        "DREAMSTREAM_API_TOKEN is set but empty",
    )
    one_line_error(cli(dreamed.settings, "settings", "show", env={"DREAMSTREAM_API_TOKEN": "short"}), "too short")
    weak = {"DREAMSTREAM_API_TOKEN": "0" * 16}
    one_line_error(cli(dreamed.settings, "settings", "show", env=weak), "too easy to guess")


def test_workers_create_their_home_and_check_the_engine_before_starting(dreamed, tmp_path):
    home = tmp_path / "not" / "yet" / "there"
    run = subprocess.run(
        [sys.executable, "-m", "dreamstream.cli", "worker", "consumers"],
        env=environment(dreamed.settings, {"DREAMSTREAM_HOME": str(home), "DREAMSTREAM_ENGINE": "llm"}),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 1 and "neither DREAMSTREAM_LLM_API_KEY nor DREAMSTREAM_LLM_API_BASE" in run.stderr
    assert home.is_dir(), "the home is created before anything else"
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    run = subprocess.run(
        [sys.executable, "-m", "dreamstream.cli", "worker", "streams"],
        env=environment(dreamed.settings, {"DREAMSTREAM_HOME": str(blocked / "home")}),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 1 and "cannot create DREAMSTREAM_HOME" in run.stderr, run.stderr[-2000:]
