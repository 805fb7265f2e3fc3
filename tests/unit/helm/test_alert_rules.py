"""The chart's alert rules run by Prometheus' own rule engine (`promtool`, Debian's `prometheus`
package; `.ci/run` installs it): they parse, and on series shaped like the workers' they fire when an
operator must act and resolve once they did — a quarantine waiting fires, and the alert ends with
the approve or reject, however many workers report the figure."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.unit.helm.rendering import NAMESPACE, of_kind

PROMTOOL = shutil.which("promtool")
if PROMTOOL is None:
    if os.environ.get("CI"):
        raise RuntimeError("promtool is missing: .ci/run installs Debian's prometheus package")
    pytest.skip("promtool is not installed (apt-get install prometheus)", allow_module_level=True)


def promtool(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run([PROMTOOL, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def rule_file(everything_docs, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    (rule,) = of_kind(everything_docs, "PrometheusRule").values()
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}, sort_keys=False))
    return path, {r["alert"]: r for g in rule["spec"]["groups"] for r in g["rules"]}


def test_every_rule_parses_as_prometheus_reads_it(rule_file, tmp_path: Path) -> None:
    path, _ = rule_file
    result = promtool("check", "rules", path.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS: 7 rules found" in result.stdout, result.stdout


def _alert(rules: dict[str, Any], name: str, value: str, **labels: str) -> dict[str, Any]:
    """The alert as promtool expects it: labels, and the annotations with the templates filled in."""
    rule = rules[name]
    annotations = {
        key: text.replace("{{ $value }}", value).replace("{{ $labels.tenant }}", labels.get("tenant", ""))
        for key, text in rule["annotations"].items()
    }
    return {"exp_labels": {**rule["labels"], **labels}, "exp_annotations": annotations}


def test_the_review_alerts_follow_what_waits_and_resolve_with_the_decision(rule_file, tmp_path: Path) -> None:
    path, rules = rule_file
    waiting = "dreamstream_generations_awaiting_review"
    series = [
        # Two consolidation workers report the store's figure for acme: one generation waits from
        # minute 1 until an operator approves it at minute 31.
        {"series": f'{waiting}{{namespace="{NAMESPACE}", tenant="acme", pod="c-1"}}', "values": "0 1x29 0x30"},
        {"series": f'{waiting}{{namespace="{NAMESPACE}", tenant="acme", pod="c-2"}}', "values": "0 1x29 0x30"},
        # globex: nothing ever waits (the series exists at 0 from the start).
        {"series": f'{waiting}{{namespace="{NAMESPACE}", tenant="globex", pod="c-1"}}', "values": "0x60"},
        # initech: a generation left waiting for a day and more.
        {"series": f'{waiting}{{namespace="{NAMESPACE}", tenant="initech", pod="c-1"}}', "values": "1x1500"},
    ]
    info = "DreamstreamQuarantineWaiting"
    overdue = "DreamstreamReviewOverdue"
    tests = {
        "rule_files": [path.name],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": series,
                "alert_rule_test": [
                    # Waiting 3 (acme) and 4 (initech) minutes: not yet (for: 5m).
                    {"eval_time": "4m", "alertname": info, "exp_alerts": []},
                    # Waiting 10 minutes: fires once per tenant, with the max over the workers (1, not 2).
                    {
                        "eval_time": "11m",
                        "alertname": info,
                        "exp_alerts": [
                            _alert(rules, info, "1", tenant="acme"),
                            _alert(rules, info, "1", tenant="initech"),
                        ],
                    },
                    # Approved at minute 31: acme's alert is gone a minute later.
                    {"eval_time": "33m", "alertname": info, "exp_alerts": [_alert(rules, info, "1", tenant="initech")]},
                    {"eval_time": "33m", "alertname": overdue, "exp_alerts": []},
                    # A day on, initech's is overdue.
                    {
                        "eval_time": "1445m",
                        "alertname": overdue,
                        "exp_alerts": [_alert(rules, overdue, "1", tenant="initech")],
                    },
                ],
            },
            {
                # Dead letters: the counter exists at 0 from the start, so one dead letter is an increase.
                "interval": "1m",
                "input_series": [
                    {
                        "series": f'dreamstream_dead_letters_total{{namespace="{NAMESPACE}", topic="t.turns", '
                        'error_type="not_json"}',
                        "values": "0x10 1x30",
                    }
                ],
                "alert_rule_test": [
                    {"eval_time": "5m", "alertname": "DreamstreamDeadLetters", "exp_alerts": []},
                    {
                        "eval_time": "12m",
                        "alertname": "DreamstreamDeadLetters",
                        "exp_alerts": [
                            {
                                "exp_labels": {**rules["DreamstreamDeadLetters"]["labels"], "topic": "t.turns"},
                                "exp_annotations": {
                                    k: v.replace("{{ $labels.topic }}", "t.turns")
                                    for k, v in rules["DreamstreamDeadLetters"]["annotations"].items()
                                },
                            }
                        ],
                    },
                ],
            },
        ],
    }
    test_file = tmp_path / "rules_test.yaml"
    test_file.write_text(yaml.safe_dump(tests, sort_keys=False))
    result = promtool("test", "rules", test_file.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
