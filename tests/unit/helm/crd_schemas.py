"""Validation of the chart's custom resources (PrometheusRule, ServiceMonitor, ScaledObject)
against their CRDs' OpenAPI schemas, shipped as test data in `crds/` (sources in crds/NOTICE.md).

An `openAPIV3Schema` becomes a JSON Schema the way the API server reads it with strict field
validation: an object that lists its properties accepts no other field (unless the CRD says
`x-kubernetes-preserve-unknown-fields`), `apiVersion` and `kind` must name the CRD's group, version
and kind, and `metadata` is the part of ObjectMeta a chart writes (name, namespace, labels,
annotations), names as Kubernetes spells them.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

CRDS = Path(__file__).with_name("crds")
_NAME = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
_LABEL_VALUE = r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"
_OBJECT_META = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "maxLength": 253, "pattern": _NAME},
        "namespace": {"type": "string", "maxLength": 63, "pattern": _NAME},
        "labels": {
            "type": "object",
            "additionalProperties": {"type": "string", "maxLength": 63, "pattern": _LABEL_VALUE},
        },
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}


def _strict(node: Any) -> Any:
    """The openAPIV3Schema as JSON Schema: vendor extensions dropped, closed objects closed."""
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _strict(value) for key, value in node.items() if not key.startswith("x-")}
    if isinstance(out.get("pattern"), str) and out["pattern"].startswith("^(?i)"):
        out["pattern"] = "(?i)^" + out["pattern"][5:]  # Go's RE2 takes a flag anywhere, Python's re only first
    open_ended = node.get("x-kubernetes-preserve-unknown-fields")
    if "properties" in out and "additionalProperties" not in out and not open_ended:
        out["additionalProperties"] = False
    return out


@cache
def crd_schemas() -> dict[tuple[str, str], dict[str, Any]]:
    """(apiVersion, kind) -> the JSON Schema of that custom resource."""
    schemas = {}
    for path in sorted(CRDS.glob("*.yaml")):
        crd = yaml.safe_load(path.read_text())
        api_version = f"{crd['group']}/{crd['version']}"
        schema = _strict(crd["openAPIV3Schema"])
        schema["required"] = sorted({"apiVersion", "kind", "metadata", *schema.get("required", ())})
        schema["properties"]["apiVersion"] = {"const": api_version}
        schema["properties"]["kind"] = {"const": crd["kind"]}
        schema["properties"]["metadata"] = _OBJECT_META
        jsonschema.Draft7Validator.check_schema(schema)
        schemas[(api_version, crd["kind"])] = schema
    return schemas


def crd_errors(doc: dict[str, Any]) -> list[str]:
    """What is wrong with a rendered custom resource, one line per error ('' path = the object)."""
    schema = crd_schemas().get((doc.get("apiVersion", ""), doc.get("kind", "")))
    if schema is None:
        known = ", ".join(f"{v} {k}" for v, k in crd_schemas())
        return [f"no CRD schema for {doc.get('apiVersion')} {doc.get('kind')} (known: {known})"]
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    return [f"{'.'.join(str(p) for p in e.absolute_path)}: {e.message}" for e in errors]
