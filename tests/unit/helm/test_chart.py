"""The Helm chart as deployed with default and production values: lint and Kubernetes schema
validation of every object, the workers, settings and secrets, disruption budgets, metrics
services, ServiceMonitors and the Grafana dashboard."""

from __future__ import annotations

import json

import pytest

from schemas.settings import Settings
from tests.unit.helm.rendering import (
    CHART,
    CHART_SET,
    CONSUMER_METRICS,
    CRDS,
    DASHBOARD,
    KUBE_VERSION,
    NAMESPACE,
    REPO,
    REQUIRED,
    SECRET_ENV,
    STREAM_METRICS,
    check_custom_resource,
    deployments_by_component,
    helm,
    kubernetes_validate,
    merge,
    of_kind,
    production_values,
    render,
    settings_configmap,
    settings_from,
)

# --- lint and schema validation of every rendered object


@pytest.mark.parametrize("which", ["default", "production"])
def test_chart_lints_clean_in_strict_mode(which: str) -> None:
    values = REQUIRED if which == "default" else production_values()
    report = helm.lint(CHART, values, strict=True, kube_version=f"v{KUBE_VERSION}")
    problems = [m for m in report["messages"] if m["severity"] >= 2]
    assert report["errors"] == [] and problems == [], report


@pytest.mark.parametrize("which", ["default_docs", "production_docs"])
def test_every_manifest_is_valid_kubernetes(which: str, request: pytest.FixtureRequest) -> None:
    docs = request.getfixturevalue(which)
    kinds = sorted(doc["kind"] for doc in docs)
    assert kinds.count("Deployment") == 2 and kinds.count("PodDisruptionBudget") == 2
    for doc in docs:
        if doc["kind"] in CRDS:
            check_custom_resource(doc)
            continue
        try:
            kubernetes_validate.validate(doc, KUBE_VERSION, strict=True)
        except kubernetes_validate.ValidationError as err:
            path = ".".join(str(part) for part in err.path)
            pytest.fail(f"{doc['kind']}/{doc['metadata']['name']} at {path}: {err.message}")
        assert doc["metadata"].get("namespace") == NAMESPACE, doc["metadata"]


# --- the workers


@pytest.mark.parametrize("which", ["default_docs", "production_docs"])
def test_both_workers_run_the_right_command_with_settings_probes_and_a_locked_down_pod(
    which: str, request: pytest.FixtureRequest
) -> None:
    docs = request.getfixturevalue(which)
    settings_name = settings_configmap(docs)["metadata"]["name"]
    port = int(settings_configmap(docs)["data"]["DREAMSTREAM_METRICS_PORT"])
    for component, deployment in deployments_by_component(docs).items():
        pod = deployment["spec"]["template"]["spec"]
        (container,) = pod["containers"]
        assert container["command"] == ["dreamstream", "worker", component]
        assert container["envFrom"] == [{"configMapRef": {"name": settings_name}}]
        assert (
            deployment["spec"]["selector"]["matchLabels"].items()
            <= deployment["spec"]["template"]["metadata"]["labels"].items()
        )

        assert container["ports"] == [{"name": "metrics", "containerPort": port, "protocol": "TCP"}]
        for probe, path in (("startupProbe", "/healthz"), ("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
            assert container[probe]["httpGet"] == {"path": path, "port": "metrics"}, probe

        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        assert pod["automountServiceAccountToken"] is False
        for box in (container, *pod.get("initContainers", [])):
            assert box["securityContext"]["readOnlyRootFilesystem"] is True
            assert box["securityContext"]["allowPrivilegeEscalation"] is False
            assert box["securityContext"]["capabilities"] == {"drop": ["ALL"]}
            mounts = {m["mountPath"]: m["name"] for m in box["volumeMounts"]}
            assert mounts == {"/tmp": "tmp", "/var/lib/dreamstream": "home"}
        volumes = {v["name"]: v for v in pod["volumes"]}
        assert set(volumes) == {"tmp", "home"} and all("emptyDir" in v for v in volumes.values())
        # Faust's data directory is relative to the working directory: it must be writable.
        assert container["workingDir"] == settings_configmap(docs)["data"]["DREAMSTREAM_HOME"] == "/var/lib/dreamstream"
        assert container["resources"]["requests"] and container["resources"]["limits"]["memory"]

        (init,) = pod["initContainers"]
        assert init["command"][:3] == ["dreamstream", "kafka", "topics"]
        assert init["envFrom"] == container["envFrom"] and init["env"] == container["env"]


def test_default_and_production_replicas_and_spread(default_docs, production_docs) -> None:
    assert {c: d["spec"]["replicas"] for c, d in deployments_by_component(default_docs).items()} == {
        "streams": 2,
        "consumers": 2,
    }
    production = deployments_by_component(production_docs)
    assert {c: d["spec"]["replicas"] for c, d in production.items()} == {"streams": 6, "consumers": 6}
    for component, deployment in production.items():
        pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
        for constraint in deployment["spec"]["template"]["spec"]["topologySpreadConstraints"]:
            assert constraint["labelSelector"]["matchLabels"].items() <= pod_labels.items()
            assert constraint["labelSelector"]["matchLabels"]["app.kubernetes.io/component"] == component


def test_settings_change_rolls_the_pods(chart) -> None:
    def checksums(values):
        return {
            c: d["spec"]["template"]["metadata"]["annotations"]["checksum/settings"]
            for c, d in deployments_by_component(render(chart, values)).items()
        }

    before = checksums(REQUIRED)
    after = checksums(merge(REQUIRED, {"logLevel": "DEBUG"}))
    assert before["streams"] != after["streams"] and before["consumers"] != after["consumers"]


def test_topic_init_container_can_be_turned_off(chart) -> None:
    for deployment in deployments_by_component(render(chart, merge(REQUIRED, {"topics": {"create": False}}))).values():
        assert "initContainers" not in deployment["spec"]["template"]["spec"]


# --- settings and secrets


def test_default_settings_are_the_applications_defaults(default_docs, monkeypatch: pytest.MonkeyPatch) -> None:
    data = settings_configmap(default_docs)["data"]
    fields = {name.removeprefix("DREAMSTREAM_").lower() for name in data}
    assert fields - set(Settings.model_fields) == set(), "the chart sends a variable no setting reads"
    assert data["DREAMSTREAM_METRICS_HOST"] == "0.0.0.0"

    from_chart = settings_from(data, monkeypatch)
    app_defaults = settings_from({}, monkeypatch)
    drift = {
        name: (getattr(from_chart, name), getattr(app_defaults, name))
        for name in Settings.model_fields
        if name not in CHART_SET and getattr(from_chart, name) != getattr(app_defaults, name)
    }
    assert drift == {}, "values.yaml defaults differ from schemas/settings.py (chart, app)"
    assert from_chart.kafka_bootstrap_servers == "kafka.test:9092"
    assert from_chart.qdrant_url == "http://qdrant.test:6333"
    assert from_chart.metrics_port == 9100 and from_chart.metrics_host == "0.0.0.0"
    assert str(from_chart.home) == "/var/lib/dreamstream"


def test_production_settings_parse_into_the_intended_settings(production_docs, monkeypatch: pytest.MonkeyPatch) -> None:
    data = settings_configmap(production_docs)["data"]
    settings = settings_from(data, monkeypatch)
    assert settings.partitions == 12 and settings.replication_factor == 3
    assert settings.engine == "llm" and settings.llm_model == "openai/gpt-4o-mini"
    assert settings.qdrant_url == "http://qdrant.qdrant.svc:6333"
    assert settings.kafka_security_protocol == "SASL_SSL" and settings.kafka_sasl_mechanism == "SCRAM-SHA-512"
    assert settings.trigger.idle_s == 600 and settings.trigger.threshold_messages == 60
    assert settings.trigger.threshold_signals == 3  # unset keys keep the application's defaults
    assert settings.policy_for("acme").threshold_messages == 20 and settings.policy_for("acme").idle_s == 300
    # Secrets never travel through the ConfigMap.
    assert settings.llm_api_key is None and settings.qdrant_api_key is None and settings.kafka_sasl_password is None


def test_secrets_are_references_to_existing_secrets(default_docs, production_docs) -> None:
    production = production_values()
    expected = {
        "DREAMSTREAM_LLM_API_KEY": production["llm"]["apiKeySecret"],
        "DREAMSTREAM_QDRANT_API_KEY": production["qdrant"]["apiKeySecret"],
        "DREAMSTREAM_KAFKA_SASL_PASSWORD": production["kafka"]["sasl"]["passwordSecret"],
    }
    for deployment in deployments_by_component(production_docs).values():
        pod = deployment["spec"]["template"]["spec"]
        for box in (*pod["containers"], *pod["initContainers"]):
            env = {e["name"]: e for e in box["env"]}
            for name, ref in expected.items():
                assert "value" not in env[name], name
                assert env[name]["valueFrom"] == {"secretKeyRef": {"name": ref["name"], "key": ref["key"]}}
    for docs in (default_docs, production_docs):
        assert not of_kind(docs, "Secret"), "the chart must not create Secrets"
        assert not set(SECRET_ENV) & set(settings_configmap(docs)["data"])
    for deployment in deployments_by_component(default_docs).values():
        names = {e["name"] for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]}
        assert not set(SECRET_ENV) & names, "no secret reference unless one is configured"


# --- disruption budgets, metrics services, ServiceMonitors


@pytest.mark.parametrize("which", ["default_docs", "production_docs"])
def test_one_pod_disruption_budget_per_worker_kind(which: str, request: pytest.FixtureRequest) -> None:
    docs = request.getfixturevalue(which)
    budgets = list(of_kind(docs, "PodDisruptionBudget").values())
    deployments = deployments_by_component(docs)
    assert len(budgets) == 2
    for budget in budgets:
        component = budget["metadata"]["labels"]["app.kubernetes.io/component"]
        assert budget["spec"]["selector"] == deployments[component]["spec"]["selector"]
        assert budget["spec"]["maxUnavailable"] == 1


def test_service_monitors_only_when_enabled(default_docs, production_docs) -> None:
    assert not of_kind(default_docs, "ServiceMonitor") and not of_kind(default_docs, "Service")
    services = of_kind(production_docs, "Service")
    monitors = of_kind(production_docs, "ServiceMonitor")
    deployments = deployments_by_component(production_docs)
    assert len(services) == 2 and len(monitors) == 2
    for monitor in monitors.values():
        component = monitor["metadata"]["labels"]["app.kubernetes.io/component"]
        assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"
        (service,) = [
            s
            for s in services.values()
            if monitor["spec"]["selector"]["matchLabels"].items() <= s["metadata"]["labels"].items()
        ]
        assert service["spec"]["clusterIP"] == "None"
        assert service["spec"]["selector"] == deployments[component]["spec"]["selector"]["matchLabels"]
        assert service["spec"]["ports"] == [
            {"name": "metrics", "port": 9100, "targetPort": "metrics", "protocol": "TCP"}
        ]


# --- the Grafana dashboard


def test_dashboard_configmap_ships_the_dashboard_file(default_docs) -> None:
    (configmap,) = [
        d for d in of_kind(default_docs, "ConfigMap").values() if d["metadata"]["name"].endswith("-dashboard")
    ]
    assert configmap["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(configmap["data"]["dreamstream.json"]) == json.loads(DASHBOARD.read_text())
    # helm/dashboards/dreamstream.json is the same file, not a copy.
    assert (REPO / "helm" / "dashboards" / "dreamstream.json").resolve() == DASHBOARD.resolve()


def test_dashboard_can_be_turned_off(chart) -> None:
    docs = render(chart, merge(REQUIRED, {"dashboard": {"enabled": False}}))
    assert not [d for d in of_kind(docs, "ConfigMap") if d.endswith("-dashboard")]


def test_dashboard_is_valid_grafana_json_over_every_metric() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    assert isinstance(dashboard["schemaVersion"], int) and dashboard["uid"] and dashboard["title"]
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"

    panels = dashboard["panels"]
    ids = [p["id"] for p in panels]
    assert len(ids) == len(set(ids)), "panel ids must be unique"
    cells: set[tuple[int, int]] = set()
    for panel in panels:
        grid = panel["gridPos"]
        assert 0 <= grid["x"] and grid["x"] + grid["w"] <= 24, panel["title"]
        mine = {(grid["x"] + dx, grid["y"] + dy) for dx in range(grid["w"]) for dy in range(grid["h"])}
        assert not cells & mine, f"panel {panel['title']!r} overlaps another"
        cells |= mine
        if panel["type"] != "row":
            assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]
            assert panel["targets"] and all(t["expr"] and t["refId"] for t in panel["targets"]), panel["title"]

    exprs = "\n".join(t["expr"] for p in panels for t in p.get("targets", []))
    missing = [m for m in (*STREAM_METRICS, *CONSUMER_METRICS) if m not in exprs]
    assert missing == [], f"no panel plots {missing}"
    for label in (
        'outcome="accepted"',
        "histogram_quantile(0.5",
        "histogram_quantile(0.95",
        "by (le, phase)",
        "by (le, when)",
    ):
        assert label in exprs
    titles = " ".join(p["title"].lower() for p in panels)
    for wanted in (
        "event rate",
        "dead-letter",
        "consumer lag",
        "jobs by trigger",
        "pass outcomes",
        "p50 / p95",
        "before / after",
        "model calls",
        "model tokens",
        "cost",
        "quarantines and rollbacks",
    ):
        assert wanted in titles, wanted
