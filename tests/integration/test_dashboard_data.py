"""Every panel of the Grafana dashboard has data on a fresh start: both workers just started as
processes (nothing produced, nothing dreamed), scraped by a real Prometheus (Debian's `prometheus`
package; `.ci/run` installs it) that runs each panel's query as Grafana would send it.

"Data" means the query returns at least one series: a counter is there at 0 before its first event
(a dead letter, a quarantine), a gauge at its value. A quantile over a histogram that has observed
nothing yet is NaN (the series are there; there is no duration of a pass before the first pass),
which Grafana draws as an empty series, not as "No data"; every other panel must be a number.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import yaml

from dreamstream_tools.pipeline import settings_env
from tests.integration.test_operations import free_port
from tests.integration.test_worker_processes import get_json

pytestmark = pytest.mark.integration
PROMETHEUS = shutil.which("prometheus")
if PROMETHEUS is None:
    if os.environ.get("CI"):
        raise RuntimeError("prometheus is missing: .ci/run installs Debian's prometheus package")
    pytest.skip("prometheus is not installed (apt-get install prometheus)", allow_module_level=True)

REPO = Path(__file__).resolve().parents[2]
DASHBOARD = REPO / "helm" / "dreamstream" / "dashboards" / "dreamstream.json"
NAMESPACE = "dreamstream-test"
# What Grafana puts in for its variables: the namespace picked, a dashboard range, and a rate
# interval of four scrapes at least (the scrape interval is 1 s here).
VARIABLES = {"$namespace": NAMESPACE, "$__range": "1m", "$__rate_interval": "15s"}


def query(base: str, expr: str) -> dict:
    url = f"{base}/api/v1/query?{urllib.parse.urlencode({'query': expr})}"
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


@pytest.fixture
def scraped(make_settings, workers, tmp_path):
    consumers_port, streams_port, prometheus_port = free_port(), free_port(), free_port()
    settings = make_settings(metrics_port=consumers_port)
    workers(settings.model_copy(update={"metrics_port": streams_port}), "streams")
    env = {**os.environ, **settings_env(settings)}
    with open(tmp_path / "consumers.log", "wb") as log:
        consumers = subprocess.Popen(
            [sys.executable, "-m", "dreamstream.cli", "worker", "consumers"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    config = {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "scrape_configs": [
            {
                "job_name": "dreamstream",
                "static_configs": [
                    {
                        "targets": [f"127.0.0.1:{consumers_port}", f"127.0.0.1:{streams_port}"],
                        "labels": {"namespace": NAMESPACE},  # as the ServiceMonitor's pods carry it
                    }
                ],
            }
        ],
    }
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    assert PROMETHEUS is not None
    with open(tmp_path / "prometheus.log", "wb") as log:
        prometheus = subprocess.Popen(
            [
                PROMETHEUS,
                f"--config.file={tmp_path / 'prometheus.yml'}",
                f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                f"--web.listen-address=127.0.0.1:{prometheus_port}",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        # Both workers serve /readyz once they hold partitions (the consolidation worker's lag
        # then exists too); up to 2 minutes under load.
        for port in (consumers_port, streams_port):
            get_json(f"http://127.0.0.1:{port}/readyz", "", attempts=240)
        yield f"http://127.0.0.1:{prometheus_port}"
    finally:
        prometheus.terminate()
        consumers.terminate()
        prometheus.wait(timeout=60)
        consumers.wait(timeout=60)


def test_every_dashboard_panel_has_data_on_a_fresh_start(scraped):
    base = scraped
    deadline = time.monotonic() + 120
    while True:  # Prometheus' first scrapes of both targets, then enough samples for the rates
        try:
            up = query(base, 'sum(up{job="dreamstream"})')["data"]["result"]
        except OSError:
            up = []
        if up and float(up[0]["value"][1]) == 2:
            break
        assert time.monotonic() < deadline, "Prometheus did not scrape both workers within 2 minutes"
        time.sleep(1)
    time.sleep(20)  # > the 15 s rate interval: every rate() has two samples at least

    panels = [p for p in json.loads(DASHBOARD.read_text())["panels"] if p["type"] != "row"]
    empty, not_numbers = [], []
    for panel in panels:
        for target in panel["targets"]:
            expr = target["expr"]
            for name, value in VARIABLES.items():
                expr = expr.replace(name, value)
            answer = query(base, expr)
            assert answer["status"] == "success", (panel["title"], answer)
            result = answer["data"]["result"]
            if not result:
                empty.append(f"{panel['title']}: {expr}")
            elif "histogram_quantile" not in expr and any(math.isnan(float(r["value"][1])) for r in result):
                not_numbers.append(f"{panel['title']}: {expr}")
    assert not empty, "panels with no data on a fresh start:\n" + "\n".join(empty)
    assert not not_numbers, "panels that are not a number on a fresh start:\n" + "\n".join(not_numbers)
    assert len(panels) >= 20
