"""The Helm chart's values it must refuse, and its optional branches: the API, alerts, KEDA,
TLS and the NetworkPolicy."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.unit.helm.crd_schemas import crd_errors
from tests.unit.helm.rendering import (
    CHART,
    CRDS,
    EVERYTHING_ON,
    KUBE_VERSION,
    NAMESPACE,
    RELEASE,
    REQUIRED,
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

# --- values the chart must refuse


@pytest.mark.parametrize("component", ["streams", "consumers"])
def test_more_replicas_than_partitions_fails_with_a_clear_message(chart, component: str) -> None:
    values = merge(REQUIRED, {"topics": {"partitions": 6}, component: {"replicas": 7}})
    with pytest.raises(
        helm.HelmRenderError, match=rf"{component}\.replicas \(7\) must not exceed topics\.partitions \(6\)"
    ):
        chart.render(values=values, name=RELEASE, namespace=NAMESPACE)


def test_production_values_exceeding_partitions_fail_too(chart) -> None:
    values = merge(production_values(), {"topics": {"partitions": 4}})
    with pytest.raises(helm.HelmRenderError, match=r"streams\.replicas \(6\) must not exceed topics\.partitions \(4\)"):
        chart.render(values=values, name=RELEASE, namespace=NAMESPACE)


@pytest.mark.parametrize(
    ("override", "where"),
    [
        ({}, "/kafka/bootstrapServers"),  # the chart's own defaults lack the required values
        ({"kafka": {"bootstrapServers": ""}}, "/kafka/bootstrapServers"),
        ({"qdrant": {"url": "qdrant:6333"}}, "/qdrant/url"),
        ({"engine": "gpt"}, "/engine"),
        ({"dream": {"transcriptVectors": "text"}}, "/dream/transcriptVectors"),
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
    values = merge(REQUIRED, override) if override else None
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
            chart.render(values=merge(REQUIRED, override), name=RELEASE, namespace=NAMESPACE)


def test_optional_branches_render_valid_kubernetes(chart) -> None:
    values = merge(
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
    docs = render(chart, values)
    for doc in docs:
        kubernetes_validate.validate(doc, KUBE_VERSION, strict=True)
    deployments = deployments_by_component(docs)
    streams = deployments["streams"]["spec"]["template"]
    assert {"name": "EXTRA", "valueFrom": {"secretKeyRef": {"name": "extra", "key": "value"}}} in streams["spec"][
        "containers"
    ][0]["env"]
    assert streams["spec"]["serviceAccountName"] == "existing" and not of_kind(docs, "ServiceAccount")
    assert streams["metadata"]["annotations"]["team"] == "memory"
    assert settings_configmap(docs)["data"]["DREAMSTREAM_STREAMS_WEB_PORT"] == "6066"
    (budget,) = of_kind(docs, "PodDisruptionBudget").values()
    assert budget["spec"] == {"minAvailable": 1, "selector": deployments["streams"]["spec"]["selector"]}
    (dashboard,) = [d for name, d in of_kind(docs, "ConfigMap").items() if name.endswith("-dashboard")]
    assert dashboard["metadata"]["namespace"] == "monitoring"


# --- the API, alerts, KEDA, TLS and the NetworkPolicy, all on


def test_everything_on_lints_and_validates(chart, everything_docs) -> None:
    report = helm.lint(CHART, merge(REQUIRED, EVERYTHING_ON), strict=True, kube_version=f"v{KUBE_VERSION}")
    assert report["errors"] == [] and [m for m in report["messages"] if m["severity"] >= 2] == [], report
    kinds = sorted(d["kind"] for d in everything_docs)
    assert {"PrometheusRule", "ScaledObject", "NetworkPolicy"} <= set(kinds) and kinds.count("Service") == 3
    for doc in everything_docs:
        if doc["kind"] in CRDS:
            check_custom_resource(doc)
        else:
            kubernetes_validate.validate(doc, KUBE_VERSION, strict=True)
    assert sorted(d["kind"] for d in everything_docs if d["kind"] in CRDS) == [
        "PrometheusRule",
        "ScaledObject",
        "ServiceMonitor",
        "ServiceMonitor",
    ]


def test_the_crd_check_refuses_what_the_api_server_would(everything_docs) -> None:
    """The same custom resources with one mistake each: an unknown field, a number where the CRD
    wants a string, a duration Prometheus cannot read, a missing required field."""
    (rule,) = of_kind(everything_docs, "PrometheusRule").values()
    (scaled,) = of_kind(everything_docs, "ScaledObject").values()
    monitor = next(iter(of_kind(everything_docs, "ServiceMonitor").values()))
    cases = [
        (rule, ["spec", "groups", 0, "rules", 0, "for"], "15 minutes", "does not match"),
        (rule, ["spec", "groups", 0, "rules", 0, "severity"], "warning", "'severity' was unexpected"),
        (scaled, ["spec", "triggers", 0, "metadata", "threshold"], 1000, "is not of type 'string'"),
        (scaled, ["spec", "scaleTargetRef"], None, "'scaleTargetRef' is a required property"),
        (monitor, ["spec", "endpoints", 0, "scheme"], "ftp", "is not one of"),
        (monitor, ["metadata", "labels", "release"], "kube prometheus", "does not match"),
    ]
    for doc, path, value, message in cases:
        broken = copy.deepcopy(doc)
        *parents, last = path
        node = broken
        for part in parents:
            node = node[part]
        if value is None:
            del node[last]
        else:
            node[last] = value
        errors = crd_errors(broken)
        assert any(message in e for e in errors), (path, errors)
        assert not crd_errors(doc)


def test_the_api_is_served_by_the_consolidation_workers_with_a_token_from_a_secret(
    everything_docs, monkeypatch
) -> None:
    deployments = deployments_by_component(everything_docs)
    consumers = deployments["consumers"]["spec"]["template"]["spec"]["containers"][0]
    streams = deployments["streams"]["spec"]["template"]["spec"]["containers"][0]
    assert {"name": "api", "containerPort": 8080, "protocol": "TCP"} in consumers["ports"]
    assert [p["name"] for p in streams["ports"]] == ["metrics"]
    env = {e["name"]: e for e in consumers["env"]}
    assert env["DREAMSTREAM_API_TOKEN"]["valueFrom"] == {"secretKeyRef": {"name": "dreamstream-api", "key": "token"}}
    assert env["DREAMSTREAM_API_OPERATOR_TOKEN"]["valueFrom"] == {
        "secretKeyRef": {"name": "dreamstream-api", "key": "operator-token"}
    }
    assert env["DREAMSTREAM_API_HOST"]["value"] == "0.0.0.0" and env["DREAMSTREAM_API_PORT"]["value"] == "8080"
    assert not {"DREAMSTREAM_API_TOKEN", "DREAMSTREAM_API_PORT"} & {e["name"] for e in streams["env"]}
    (service,) = [s for n, s in of_kind(everything_docs, "Service").items() if n.endswith("-api")]
    assert service["spec"]["selector"] == deployments["consumers"]["spec"]["selector"]["matchLabels"]
    assert service["spec"]["ports"] == [{"name": "api", "port": 8080, "targetPort": "api", "protocol": "TCP"}]
    # The settings a consolidation pod reads: a token stands in for the secret, as Kubernetes would.
    data = dict(settings_configmap(everything_docs)["data"])
    data.update(
        {
            "DREAMSTREAM_API_HOST": "0.0.0.0",
            "DREAMSTREAM_API_PORT": "8080",
            "DREAMSTREAM_API_TOKEN": "token-from-the-secret-0123456789",
            "DREAMSTREAM_API_OPERATOR_TOKEN": "operator-token-from-its-secret-42",
            "DREAMSTREAM_KAFKA_SASL_PASSWORD": "x",
        }
    )
    settings = settings_from(data, monkeypatch)
    assert settings.api_port == 8080 and settings.api_token is not None and settings.api_operator_token is not None


def test_kafka_tls_files_come_from_secrets_and_reach_the_settings(everything_docs, monkeypatch) -> None:
    data = settings_configmap(everything_docs)["data"]
    settings = settings_from(data, monkeypatch)
    assert str(settings.kafka_ssl_ca_location) == "/etc/dreamstream/kafka-tls/ca/ca.crt"
    assert str(settings.kafka_ssl_certificate_location) == "/etc/dreamstream/kafka-tls/client/user.crt"
    assert str(settings.kafka_ssl_key_location) == "/etc/dreamstream/kafka-tls/client/user.key"
    config = settings.kafka_client_config()
    assert config["ssl.ca.location"].endswith("ca.crt") and config["ssl.key.location"].endswith("user.key")
    for deployment in deployments_by_component(everything_docs).values():
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
    (scaled,) = of_kind(everything_docs, "ScaledObject").values()
    deployments = deployments_by_component(everything_docs)
    assert scaled["apiVersion"] == "keda.sh/v1alpha1"
    assert scaled["spec"]["scaleTargetRef"] == {"name": deployments["consumers"]["metadata"]["name"]}
    assert "replicas" not in deployments["consumers"]["spec"], "KEDA owns the replica count"
    assert deployments["streams"]["spec"]["replicas"] == 2
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["type"] == "prometheus" and "dreamstream_consumer_lag" in trigger["metadata"]["query"]
    assert 1 <= scaled["spec"]["minReplicaCount"] <= scaled["spec"]["maxReplicaCount"] <= 6
    too_many = merge(
        REQUIRED, {"autoscaling": {"keda": {"enabled": True, "prometheusServer": "http://p", "maxReplicas": 7}}}
    )
    with pytest.raises(helm.HelmRenderError, match="must not exceed topics.partitions"):
        chart.render(values=too_many, name=RELEASE, namespace=NAMESPACE)


def test_alert_rules_cover_lag_failures_dead_letters_quarantines_and_workers_down(everything_docs) -> None:
    (rule,) = of_kind(everything_docs, "PrometheusRule").values()
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
        "DreamstreamReviewOverdue",
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
    # What waits now (a gauge that drops with the decision), not a counter's increase over an hour.
    for name in ("DreamstreamQuarantineWaiting", "DreamstreamReviewOverdue"):
        expr = rules[name]["expr"]
        assert "max by (tenant) (dreamstream_generations_awaiting_review" in expr and "increase(" not in expr
    assert rules["DreamstreamQuarantineWaiting"]["for"] == "5m" and rules["DreamstreamReviewOverdue"]["for"] == "24h"
    # The worker-down rule watches the Services the ServiceMonitors scrape.
    services = [n for n in of_kind(everything_docs, "Service") if n.endswith("-metrics")]
    assert services and all(n.rsplit("-", 2)[0] in rules["DreamstreamWorkerDown"]["expr"] for n in services)


def test_network_policy_opens_only_the_metrics_and_api_ports(everything_docs) -> None:
    policies = of_kind(everything_docs, "NetworkPolicy")
    deployments = deployments_by_component(everything_docs)
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
            chart.render(values=merge(REQUIRED, override), name=RELEASE, namespace=NAMESPACE)
