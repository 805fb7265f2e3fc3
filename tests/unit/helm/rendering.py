"""What the Helm chart tests share: the chart's paths, values and metric names, rendering, and
the lookups over rendered objects. The tests lint, render and validate the chart offline.

helm-python-sdk binds Helm's Go SDK (a shared library inside the wheel), so no helm binary and no
cluster are needed; kubernetes-validate checks every rendered object against the Kubernetes
1.30 OpenAPI schemas in strict mode (unknown fields are errors). The custom resources
(PrometheusRule, ServiceMonitor, ScaledObject) are checked against their CRDs' schemas, shipped in
`crds/` (`crd_schemas.py`), just as strictly.
"""

from __future__ import annotations

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

REPO = Path(__file__).resolve().parents[3]
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
    "dreamstream_generations_awaiting_review",
)
SECRET_ENV = ("DREAMSTREAM_LLM_API_KEY", "DREAMSTREAM_QDRANT_API_KEY", "DREAMSTREAM_KAFKA_SASL_PASSWORD")


def merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def production_values() -> dict[str, Any]:
    return helm.values_from_yaml(PRODUCTION_VALUES.read_text())


def render(chart, values: dict[str, Any]) -> list[dict[str, Any]]:
    rendered = chart.render(values=values, name=RELEASE, namespace=NAMESPACE, is_install=True)
    docs = []
    for path, text in sorted(rendered.items()):
        if path.endswith("NOTES.txt"):
            continue
        docs.extend(doc for doc in yaml.safe_load_all(text) if doc)
    return docs


def of_kind(docs: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {doc["metadata"]["name"]: doc for doc in docs if doc["kind"] == kind}


def deployments_by_component(docs) -> dict[str, dict[str, Any]]:
    by_component = {
        d["metadata"]["labels"]["app.kubernetes.io/component"]: d for d in of_kind(docs, "Deployment").values()
    }
    assert set(by_component) == {"streams", "consumers"}
    return by_component


def settings_configmap(docs) -> dict[str, str]:
    (configmap,) = [d for d in of_kind(docs, "ConfigMap").values() if d["metadata"]["name"].endswith("-settings")]
    return configmap


def settings_from(data: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Settings:
    """What a worker reads from exactly these variables (the test's own environment removed)."""
    for name in list(os.environ):
        if name.startswith("DREAMSTREAM_") or name in {"KAFKA_BOOTSTRAP_SERVERS", "QDRANT_URL", "QDRANT_API_KEY"}:
            monkeypatch.delenv(name)
    for name, value in data.items():
        monkeypatch.setenv(name, value)
    return Settings()


def check_custom_resource(doc: dict[str, Any]) -> None:
    """A rendered custom resource against its CRD's schema; fails naming every wrong field."""
    from tests.unit.helm.crd_schemas import crd_errors

    errors = crd_errors(doc)
    assert not errors, f"{doc['kind']}/{doc['metadata']['name']}: " + "; ".join(errors)
    assert doc["metadata"].get("namespace") == NAMESPACE, doc["metadata"]
    if doc["kind"] == "ServiceMonitor":
        check_service_monitor(doc)


def check_service_monitor(doc: dict[str, Any]) -> None:
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


# Every optional branch on at once: the API, alerts, KEDA, TLS, the NetworkPolicy.
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
    "api": {
        "enabled": True,
        "tokenSecret": {"name": "dreamstream-api", "key": "token"},
        "operatorTokenSecret": {"name": "dreamstream-api", "key": "operator-token"},
    },
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
