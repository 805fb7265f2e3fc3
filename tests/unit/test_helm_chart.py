"""The Helm chart: lint, render and validate it offline, then check what it deploys.

helm-python-sdk binds Helm's Go SDK (a shared library inside the wheel), so no helm binary and no
cluster are needed; kubernetes-validate checks every rendered object against the Kubernetes
1.30 OpenAPI schemas in strict mode (unknown fields are errors). The ServiceMonitor is a CRD those
schemas do not know, so its structure is checked with plain asserts instead.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

helm = pytest.importorskip(
    "helm_python", reason="helm-python-sdk is not installed (pip install 'helm-python-sdk>=0.2.2'); CI installs it"
)
kubernetes_validate = pytest.importorskip(
    "kubernetes_validate", reason="kubernetes-validate is not installed (pip install 'kubernetes-validate>=1.30')"
)

from schemas.settings import Settings  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "helm" / "dreamstream"
PRODUCTION_VALUES = REPO / "helm" / "values-production.yaml"
DASHBOARD = CHART / "dashboards" / "dreamstream.json"
KUBE_VERSION = "1.30.0"
RELEASE, NAMESPACE = "dream", "agents"

# The chart's only required values: with these, the defaults render.
REQUIRED = {"kafka": {"bootstrapServers": "kafka.test:9092"}, "qdrant": {"url": "http://qdrant.test:6333"}}
# Settings the chart sets on purpose rather than leaving at the application's default.
CHART_SET = {"kafka_bootstrap_servers", "qdrant_url", "home", "metrics_port", "metrics_host"}

STREAM_METRICS = (
    "dreamstream_events_total",
    "dreamstream_dead_letters_total",
    "dreamstream_jobs_emitted_total",
    "dreamstream_scopes_tracked",
)
CONSUMER_METRICS = (
    "dreamstream_indexed_total",
    "dreamstream_consumer_lag",
    "dreamstream_passes_total",
    "dreamstream_phase_duration_seconds_bucket",
    "dreamstream_pass_memories_bucket",
    "dreamstream_memory_changes_total",
    "dreamstream_model_calls_total",
    "dreamstream_model_tokens_total",
    "dreamstream_model_cost_usd_total",
    "dreamstream_quarantines_total",
    "dreamstream_rollbacks_total",
)
SECRET_ENV = ("DREAMSTREAM_LLM_API_KEY", "DREAMSTREAM_QDRANT_API_KEY", "DREAMSTREAM_KAFKA_SASL_PASSWORD")


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _production_values() -> dict[str, Any]:
    return helm.values_from_yaml(PRODUCTION_VALUES.read_text())


@pytest.fixture(scope="module")
def chart():
    with helm.Chart.load(CHART) as loaded:
        yield loaded


def _render(chart, values: dict[str, Any]) -> list[dict[str, Any]]:
    rendered = chart.render(values=values, name=RELEASE, namespace=NAMESPACE, is_install=True)
    docs = []
    for path, text in sorted(rendered.items()):
        if path.endswith("NOTES.txt"):
            continue
        docs.extend(doc for doc in yaml.safe_load_all(text) if doc)
    return docs


@pytest.fixture(scope="module")
def default_docs(chart) -> list[dict[str, Any]]:
    return _render(chart, REQUIRED)


@pytest.fixture(scope="module")
def production_docs(chart) -> list[dict[str, Any]]:
    return _render(chart, _production_values())


def _of_kind(docs: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {doc["metadata"]["name"]: doc for doc in docs if doc["kind"] == kind}


def _deployments(docs) -> dict[str, dict[str, Any]]:
    by_component = {
        d["metadata"]["labels"]["app.kubernetes.io/component"]: d for d in _of_kind(docs, "Deployment").values()
    }
    assert set(by_component) == {"streams", "consumers"}
    return by_component


def _settings_configmap(docs) -> dict[str, str]:
    (configmap,) = [d for d in _of_kind(docs, "ConfigMap").values() if d["metadata"]["name"].endswith("-settings")]
    return configmap


def _settings_from(data: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Settings:
    """What a worker reads from exactly these variables (the test's own environment removed)."""
    for name in list(os.environ):
        if name.startswith("DREAMSTREAM_") or name in {"KAFKA_BOOTSTRAP_SERVERS", "QDRANT_URL", "QDRANT_API_KEY"}:
            monkeypatch.delenv(name)
    for name, value in data.items():
        monkeypatch.setenv(name, value)
    return Settings()


# --- lint and schema validation of every rendered object


@pytest.mark.parametrize("which", ["default", "production"])
def test_chart_lints_clean_in_strict_mode(which: str) -> None:
    values = REQUIRED if which == "default" else _production_values()
    report = helm.lint(CHART, values, strict=True, kube_version=f"v{KUBE_VERSION}")
    problems = [m for m in report["messages"] if m["severity"] >= 2]
    assert report["errors"] == [] and problems == [], report


@pytest.mark.parametrize("which", ["default_docs", "production_docs"])
def test_every_manifest_is_valid_kubernetes(which: str, request: pytest.FixtureRequest) -> None:
    docs = request.getfixturevalue(which)
    kinds = sorted(doc["kind"] for doc in docs)
    assert kinds.count("Deployment") == 2 and kinds.count("PodDisruptionBudget") == 2
    for doc in docs:
        if doc["kind"] == "ServiceMonitor":
            _check_service_monitor(doc)
            continue
        try:
            kubernetes_validate.validate(doc, KUBE_VERSION, strict=True)
        except kubernetes_validate.ValidationError as err:
            path = ".".join(str(part) for part in err.path)
            pytest.fail(f"{doc['kind']}/{doc['metadata']['name']} at {path}: {err.message}")
        assert doc["metadata"].get("namespace") == NAMESPACE, doc["metadata"]


def _check_service_monitor(doc: dict[str, Any]) -> None:
    assert doc["apiVersion"] == "monitoring.coreos.com/v1"
    assert set(doc) == {"apiVersion", "kind", "metadata", "spec"}
    spec = doc["spec"]
    assert set(spec) == {"selector", "namespaceSelector", "endpoints"}
    assert spec["namespaceSelector"] == {"matchNames": [NAMESPACE]}
    assert isinstance(spec["selector"]["matchLabels"], dict) and spec["selector"]["matchLabels"]
    for endpoint in spec["endpoints"]:
        assert set(endpoint) <= {"port", "path", "interval", "scrapeTimeout"}
        assert endpoint["port"] == "metrics" and endpoint["path"] == "/metrics"
        for key in ("interval", "scrapeTimeout"):
            assert endpoint[key][-1] in "smh" and endpoint[key][:-1].isdigit(), endpoint


# --- the workers


@pytest.mark.parametrize("which", ["default_docs", "production_docs"])
def test_both_workers_run_the_right_command_with_settings_probes_and_a_locked_down_pod(
    which: str, request: pytest.FixtureRequest
) -> None:
    docs = request.getfixturevalue(which)
    settings_name = _settings_configmap(docs)["metadata"]["name"]
    port = int(_settings_configmap(docs)["data"]["DREAMSTREAM_METRICS_PORT"])
    for component, deployment in _deployments(docs).items():
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
        assert (
            container["workingDir"] == _settings_configmap(docs)["data"]["DREAMSTREAM_HOME"] == "/var/lib/dreamstream"
        )
        assert container["resources"]["requests"] and container["resources"]["limits"]["memory"]

        (init,) = pod["initContainers"]
        assert init["command"][:3] == ["dreamstream", "kafka", "topics"]
        assert init["envFrom"] == container["envFrom"] and init["env"] == container["env"]


def test_default_and_production_replicas_and_spread(default_docs, production_docs) -> None:
    assert {c: d["spec"]["replicas"] for c, d in _deployments(default_docs).items()} == {"streams": 2, "consumers": 2}
    production = _deployments(production_docs)
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
            for c, d in _deployments(_render(chart, values)).items()
        }

    before = checksums(REQUIRED)
    after = checksums(_merge(REQUIRED, {"logLevel": "DEBUG"}))
    assert before["streams"] != after["streams"] and before["consumers"] != after["consumers"]


def test_topic_init_container_can_be_turned_off(chart) -> None:
    for deployment in _deployments(_render(chart, _merge(REQUIRED, {"topics": {"create": False}}))).values():
        assert "initContainers" not in deployment["spec"]["template"]["spec"]


# --- settings and secrets


def test_default_settings_are_the_applications_defaults(default_docs, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _settings_configmap(default_docs)["data"]
    fields = {name.removeprefix("DREAMSTREAM_").lower() for name in data}
    assert fields - set(Settings.model_fields) == set(), "the chart sends a variable no setting reads"
    assert data["DREAMSTREAM_METRICS_HOST"] == "0.0.0.0"

    from_chart = _settings_from(data, monkeypatch)
    app_defaults = _settings_from({}, monkeypatch)
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
    data = _settings_configmap(production_docs)["data"]
    settings = _settings_from(data, monkeypatch)
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
    production = _production_values()
    expected = {
        "DREAMSTREAM_LLM_API_KEY": production["llm"]["apiKeySecret"],
        "DREAMSTREAM_QDRANT_API_KEY": production["qdrant"]["apiKeySecret"],
        "DREAMSTREAM_KAFKA_SASL_PASSWORD": production["kafka"]["sasl"]["passwordSecret"],
    }
    for deployment in _deployments(production_docs).values():
        pod = deployment["spec"]["template"]["spec"]
        for box in (*pod["containers"], *pod["initContainers"]):
            env = {e["name"]: e for e in box["env"]}
            for name, ref in expected.items():
                assert "value" not in env[name], name
                assert env[name]["valueFrom"] == {"secretKeyRef": {"name": ref["name"], "key": ref["key"]}}
    for docs in (default_docs, production_docs):
        assert not _of_kind(docs, "Secret"), "the chart must not create Secrets"
        assert not set(SECRET_ENV) & set(_settings_configmap(docs)["data"])
    for deployment in _deployments(default_docs).values():
        names = {e["name"] for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]}
        assert not set(SECRET_ENV) & names, "no secret reference unless one is configured"


# --- disruption budgets, metrics services, ServiceMonitors


@pytest.mark.parametrize("which", ["default_docs", "production_docs"])
def test_one_pod_disruption_budget_per_worker_kind(which: str, request: pytest.FixtureRequest) -> None:
    docs = request.getfixturevalue(which)
    budgets = list(_of_kind(docs, "PodDisruptionBudget").values())
    deployments = _deployments(docs)
    assert len(budgets) == 2
    for budget in budgets:
        component = budget["metadata"]["labels"]["app.kubernetes.io/component"]
        assert budget["spec"]["selector"] == deployments[component]["spec"]["selector"]
        assert budget["spec"]["maxUnavailable"] == 1


def test_service_monitors_only_when_enabled(default_docs, production_docs) -> None:
    assert not _of_kind(default_docs, "ServiceMonitor") and not _of_kind(default_docs, "Service")
    services = _of_kind(production_docs, "Service")
    monitors = _of_kind(production_docs, "ServiceMonitor")
    deployments = _deployments(production_docs)
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
        d for d in _of_kind(default_docs, "ConfigMap").values() if d["metadata"]["name"].endswith("-dashboard")
    ]
    assert configmap["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(configmap["data"]["dreamstream.json"]) == json.loads(DASHBOARD.read_text())
    # helm/dashboards/dreamstream.json is the same file, not a copy.
    assert (REPO / "helm" / "dashboards" / "dreamstream.json").resolve() == DASHBOARD.resolve()


def test_dashboard_can_be_turned_off(chart) -> None:
    docs = _render(chart, _merge(REQUIRED, {"dashboard": {"enabled": False}}))
    assert not [d for d in _of_kind(docs, "ConfigMap") if d.endswith("-dashboard")]


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


# --- values the chart must refuse


@pytest.mark.parametrize("component", ["streams", "consumers"])
def test_more_replicas_than_partitions_fails_with_a_clear_message(chart, component: str) -> None:
    values = _merge(REQUIRED, {"topics": {"partitions": 6}, component: {"replicas": 7}})
    with pytest.raises(
        helm.HelmRenderError, match=rf"{component}\.replicas \(7\) must not exceed topics\.partitions \(6\)"
    ):
        chart.render(values=values, name=RELEASE, namespace=NAMESPACE)


def test_production_values_exceeding_partitions_fail_too(chart) -> None:
    values = _merge(_production_values(), {"topics": {"partitions": 4}})
    with pytest.raises(helm.HelmRenderError, match=r"streams\.replicas \(6\) must not exceed topics\.partitions \(4\)"):
        chart.render(values=values, name=RELEASE, namespace=NAMESPACE)


@pytest.mark.parametrize(
    ("override", "where"),
    [
        ({}, "/kafka/bootstrapServers"),  # the chart's own defaults lack the required values
        ({"kafka": {"bootstrapServers": ""}}, "/kafka/bootstrapServers"),
        ({"qdrant": {"url": "qdrant:6333"}}, "/qdrant/url"),
        ({"engine": "gpt"}, "/engine"),
        ({"topics": {"partitions": 0}}, "/topics/partitions"),
        ({"topics": {"partitions": "6"}}, "/topics/partitions"),
        ({"streams": {"replicas": 0}}, "/streams/replicas"),
        ({"consumers": {"replicas": 1.5}}, "/consumers/replicas"),
        ({"llm": {"apiKey": "sk-not-here"}}, "/llm"),  # a secret value is not a value
        ({"llm": {"apiKeySecret": {"name": "llm", "key": ""}}}, "/llm/apiKeySecret/key"),
        ({"qdrant": {"apiKeySecret": {"name": "q", "key": "k", "value": "secret"}}}, "/qdrant/apiKeySecret"),
        ({"trigger": {"idle_minutes": 5}}, "/trigger"),
        ({"trigger": {"idle_s": 0}}, "/trigger/idle_s"),
        ({"tenantPolicies": {"acme": {"threshold_messages": 0}}}, "/tenantPolicies/acme/threshold_messages"),
        ({"metrics": {"port": 0}}, "/metrics/port"),
        ({"logLevel": "TRACE"}, "/logLevel"),
    ],
)
def test_values_violating_the_schema_fail(chart, override: dict[str, Any], where: str) -> None:
    values = _merge(REQUIRED, override) if override else None
    with pytest.raises(helm.HelmValuesError) as failure:
        chart.render(values=values, name=RELEASE, namespace=NAMESPACE)
    assert where in str(failure.value), str(failure.value)


def test_render_refuses_inconsistent_kafka_and_port_settings(chart) -> None:
    cases = [
        ({"kafka": {"sasl": {"passwordSecret": {"name": "k", "key": "p"}}}}, "kafka.sasl.mechanism is empty"),
        ({"kafka": {"sasl": {"mechanism": "PLAIN"}}}, "kafka.securityProtocol is PLAINTEXT"),
        ({"streams": {"webPort": 9100}}, "streams.webPort and metrics.port are both 9100"),
    ]
    for override, message in cases:
        with pytest.raises(helm.HelmRenderError, match=message):
            chart.render(values=_merge(REQUIRED, override), name=RELEASE, namespace=NAMESPACE)


def test_optional_branches_render_valid_kubernetes(chart) -> None:
    values = _merge(
        REQUIRED,
        {
            "imagePullSecrets": [{"name": "registry"}],
            "extraEnv": [{"name": "EXTRA", "valueFrom": {"secretKeyRef": {"name": "extra", "key": "value"}}}],
            "serviceAccount": {"create": False, "name": "existing"},
            "streams": {
                "webPort": 6066,
                "podDisruptionBudget": {"enabled": True, "minAvailable": 1},
                "nodeSelector": {"pool": "stream"},
                "tolerations": [{"key": "pool", "operator": "Exists"}],
                "podAnnotations": {"team": "memory"},
            },
            "consumers": {"podDisruptionBudget": {"enabled": False}},
            "dashboard": {"namespace": "monitoring"},
        },
    )
    docs = _render(chart, values)
    for doc in docs:
        kubernetes_validate.validate(doc, KUBE_VERSION, strict=True)
    deployments = _deployments(docs)
    streams = deployments["streams"]["spec"]["template"]
    assert {"name": "EXTRA", "valueFrom": {"secretKeyRef": {"name": "extra", "key": "value"}}} in streams["spec"][
        "containers"
    ][0]["env"]
    assert streams["spec"]["serviceAccountName"] == "existing" and not _of_kind(docs, "ServiceAccount")
    assert streams["metadata"]["annotations"]["team"] == "memory"
    assert _settings_configmap(docs)["data"]["DREAMSTREAM_STREAMS_WEB_PORT"] == "6066"
    (budget,) = _of_kind(docs, "PodDisruptionBudget").values()
    assert budget["spec"] == {"minAvailable": 1, "selector": deployments["streams"]["spec"]["selector"]}
    (dashboard,) = [d for name, d in _of_kind(docs, "ConfigMap").items() if name.endswith("-dashboard")]
    assert dashboard["metadata"]["namespace"] == "monitoring"


# --- the API, alerts, KEDA, TLS and the NetworkPolicy, all on
EVERYTHING_ON = {
    "kafka": {
        "securityProtocol": "SASL_SSL",
        "sasl": {
            "mechanism": "SCRAM-SHA-512",
            "username": "dreamstream",
            "passwordSecret": {"name": "kafka-user", "key": "password"},
        },
        "tls": {
            "caSecret": {"name": "my-cluster-cluster-ca-cert", "key": "ca.crt"},
            "clientCertSecret": {"name": "dreamstream", "certKey": "user.crt", "keyKey": "user.key"},
            "keyPasswordSecret": {"name": "dreamstream-key", "key": "password"},
        },
    },
    "api": {"enabled": True, "tokenSecret": {"name": "dreamstream-api", "key": "token"}},
    "alerts": {"enabled": True, "labels": {"release": "kube-prometheus-stack"}},
    "autoscaling": {
        "keda": {"enabled": True, "prometheusServer": "http://prometheus-operated.monitoring:9090", "maxReplicas": 6}
    },
    "networkPolicy": {
        "enabled": True,
        "metricsFrom": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}],
        "apiFrom": [{"podSelector": {"matchLabels": {"app": "agent"}}}],
    },
    "metrics": {"serviceMonitor": {"enabled": True}},
}
CRDS = {"ServiceMonitor", "PrometheusRule", "ScaledObject"}


@pytest.fixture(scope="module")
def everything_docs(chart) -> list[dict[str, Any]]:
    return _render(chart, _merge(REQUIRED, EVERYTHING_ON))


def test_everything_on_lints_and_validates(chart, everything_docs) -> None:
    report = helm.lint(CHART, _merge(REQUIRED, EVERYTHING_ON), strict=True, kube_version=f"v{KUBE_VERSION}")
    assert report["errors"] == [] and [m for m in report["messages"] if m["severity"] >= 2] == [], report
    kinds = sorted(d["kind"] for d in everything_docs)
    assert {"PrometheusRule", "ScaledObject", "NetworkPolicy"} <= set(kinds) and kinds.count("Service") == 3
    for doc in everything_docs:
        if doc["kind"] in CRDS:
            continue  # custom resources: checked below
        kubernetes_validate.validate(doc, KUBE_VERSION, strict=True)


def test_the_api_is_served_by_the_consolidation_workers_with_a_token_from_a_secret(
    everything_docs, monkeypatch
) -> None:
    deployments = _deployments(everything_docs)
    consumers = deployments["consumers"]["spec"]["template"]["spec"]["containers"][0]
    streams = deployments["streams"]["spec"]["template"]["spec"]["containers"][0]
    assert {"name": "api", "containerPort": 8080, "protocol": "TCP"} in consumers["ports"]
    assert [p["name"] for p in streams["ports"]] == ["metrics"]
    env = {e["name"]: e for e in consumers["env"]}
    assert env["DREAMSTREAM_API_TOKEN"]["valueFrom"] == {"secretKeyRef": {"name": "dreamstream-api", "key": "token"}}
    assert env["DREAMSTREAM_API_HOST"]["value"] == "0.0.0.0" and env["DREAMSTREAM_API_PORT"]["value"] == "8080"
    assert not {"DREAMSTREAM_API_TOKEN", "DREAMSTREAM_API_PORT"} & {e["name"] for e in streams["env"]}
    (service,) = [s for n, s in _of_kind(everything_docs, "Service").items() if n.endswith("-api")]
    assert service["spec"]["selector"] == deployments["consumers"]["spec"]["selector"]["matchLabels"]
    assert service["spec"]["ports"] == [{"name": "api", "port": 8080, "targetPort": "api", "protocol": "TCP"}]
    # The settings a consolidation pod reads: a token stands in for the secret, as Kubernetes would.
    data = dict(_settings_configmap(everything_docs)["data"])
    data.update(
        {
            "DREAMSTREAM_API_HOST": "0.0.0.0",
            "DREAMSTREAM_API_PORT": "8080",
            "DREAMSTREAM_API_TOKEN": "t" * 32,
            "DREAMSTREAM_KAFKA_SASL_PASSWORD": "x",
        }
    )
    settings = _settings_from(data, monkeypatch)
    assert settings.api_port == 8080 and settings.api_token is not None


def test_kafka_tls_files_come_from_secrets_and_reach_the_settings(everything_docs, monkeypatch) -> None:
    data = _settings_configmap(everything_docs)["data"]
    settings = _settings_from(data, monkeypatch)
    assert str(settings.kafka_ssl_ca_location) == "/etc/dreamstream/kafka-tls/ca/ca.crt"
    assert str(settings.kafka_ssl_certificate_location) == "/etc/dreamstream/kafka-tls/client/user.crt"
    assert str(settings.kafka_ssl_key_location) == "/etc/dreamstream/kafka-tls/client/user.key"
    config = settings.kafka_client_config()
    assert config["ssl.ca.location"].endswith("ca.crt") and config["ssl.key.location"].endswith("user.key")
    for deployment in _deployments(everything_docs).values():
        pod = deployment["spec"]["template"]["spec"]
        volumes = {v["name"]: v for v in pod["volumes"]}
        assert volumes["kafka-ca"]["secret"]["secretName"] == "my-cluster-cluster-ca-cert"
        assert volumes["kafka-client"]["secret"]["secretName"] == "dreamstream"
        for box in (*pod["containers"], *pod["initContainers"]):
            mounts = {m["name"]: m for m in box["volumeMounts"]}
            assert mounts["kafka-ca"]["readOnly"] is True and mounts["kafka-client"]["readOnly"] is True
            env = {e["name"]: e for e in box["env"]}
            assert env["DREAMSTREAM_KAFKA_SSL_KEY_PASSWORD"]["valueFrom"]["secretKeyRef"]["name"] == "dreamstream-key"


def test_keda_scales_the_consolidation_workers_on_lag_within_the_partitions(everything_docs, chart) -> None:
    (scaled,) = _of_kind(everything_docs, "ScaledObject").values()
    deployments = _deployments(everything_docs)
    assert scaled["apiVersion"] == "keda.sh/v1alpha1"
    assert scaled["spec"]["scaleTargetRef"] == {"name": deployments["consumers"]["metadata"]["name"]}
    assert "replicas" not in deployments["consumers"]["spec"], "KEDA owns the replica count"
    assert deployments["streams"]["spec"]["replicas"] == 2
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["type"] == "prometheus" and "dreamstream_consumer_lag" in trigger["metadata"]["query"]
    assert 1 <= scaled["spec"]["minReplicaCount"] <= scaled["spec"]["maxReplicaCount"] <= 6
    too_many = _merge(
        REQUIRED, {"autoscaling": {"keda": {"enabled": True, "prometheusServer": "http://p", "maxReplicas": 7}}}
    )
    with pytest.raises(helm.HelmRenderError, match="must not exceed topics.partitions"):
        chart.render(values=too_many, name=RELEASE, namespace=NAMESPACE)


def test_alert_rules_cover_lag_failures_dead_letters_quarantines_and_workers_down(everything_docs) -> None:
    (rule,) = _of_kind(everything_docs, "PrometheusRule").values()
    assert (
        rule["apiVersion"] == "monitoring.coreos.com/v1"
        and rule["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    )
    rules = {r["alert"]: r for group in rule["spec"]["groups"] for r in group["rules"]}
    assert set(rules) == {
        "DreamstreamLagGrowing",
        "DreamstreamFailureGateTripping",
        "DreamstreamPassesFailing",
        "DreamstreamDeadLetters",
        "DreamstreamQuarantineWaiting",
        "DreamstreamWorkerDown",
    }
    for name, r in rules.items():
        assert set(r) <= {"alert", "expr", "for", "labels", "annotations"}, name
        assert r["labels"]["severity"] in {"info", "warning", "critical"} and r["annotations"]["summary"]
        assert f'namespace="{NAMESPACE}"' in r["expr"], name
        assert r["expr"].count("(") == r["expr"].count(")"), name
    assert "dreamstream_consumer_lag" in rules["DreamstreamLagGrowing"]["expr"]
    assert 'outcome="skipped"' in rules["DreamstreamFailureGateTripping"]["expr"]
    assert "dreamstream_dead_letters_total" in rules["DreamstreamDeadLetters"]["expr"]
    assert "dreamstream_quarantines_total" in rules["DreamstreamQuarantineWaiting"]["expr"]
    # The worker-down rule watches the Services the ServiceMonitors scrape.
    services = [n for n in _of_kind(everything_docs, "Service") if n.endswith("-metrics")]
    assert services and all(n.rsplit("-", 2)[0] in rules["DreamstreamWorkerDown"]["expr"] for n in services)


def test_network_policy_opens_only_the_metrics_and_api_ports(everything_docs) -> None:
    policies = _of_kind(everything_docs, "NetworkPolicy")
    deployments = _deployments(everything_docs)
    assert len(policies) == 2
    for policy in policies.values():
        component = policy["metadata"]["labels"]["app.kubernetes.io/component"]
        assert policy["spec"]["podSelector"] == deployments[component]["spec"]["selector"]
        assert policy["spec"]["policyTypes"] == ["Ingress"]
        ports = [p["port"] for rule in policy["spec"]["ingress"] for p in rule["ports"]]
        assert ports == (["metrics", "api"] if component == "consumers" else ["metrics"])
        assert all(rule["from"] for rule in policy["spec"]["ingress"])


def test_inconsistent_api_and_tls_values_are_refused(chart) -> None:
    cases = [
        ({"api": {"enabled": True}}, "api.enabled needs api.tokenSecret"),
        ({"kafka": {"tls": {"caSecret": {"name": "ca", "key": "ca.crt"}}}}, "kafka.securityProtocol is PLAINTEXT"),
        ({"autoscaling": {"keda": {"enabled": True}}}, "needs autoscaling.keda.prometheusServer"),
    ]
    for override, message in cases:
        with pytest.raises(helm.HelmRenderError, match=message):
            chart.render(values=_merge(REQUIRED, override), name=RELEASE, namespace=NAMESPACE)
