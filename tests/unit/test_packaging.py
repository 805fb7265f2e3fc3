"""The two distributions: the runtime (`dreamstream`, pyproject.toml: the operator CLI and the
workers; the wheel and the image) and the development tools (`dreamstream-tools`, tools/: the
local broker, the pipeline harness, the demo, the evaluation suite).

Checked without building: the versions agree, the tools declare every third-party package they
import with a lower and an upper bound (the runtime's own bounds, so requirements.lock, compiled
from the runtime, covers them), and the runtime's package discovery finds none of the tooling."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
ROOT = tomllib.loads((REPO / "pyproject.toml").read_text())
TOOLS = tomllib.loads((REPO / "tools" / "pyproject.toml").read_text())
TOOLS_PACKAGE = REPO / "tools" / "dreamstream_tools"
OURS = {"schemas", "plumbing", "language", "streams", "consumers", "dreaming", "dreamstream", "dreamstream_tools"}


def requirements(project: dict) -> dict[str, Requirement]:
    reqs = [Requirement(line) for line in project["project"]["dependencies"]]
    return {canonicalize_name(r.name): r for r in reqs}


def third_party_imports(package: Path) -> set[str]:
    """Top-level names of the modules `package` imports that are neither stdlib nor ours."""
    found: set[str] = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.add(node.module.split(".")[0])
    return found - OURS - set(sys.stdlib_module_names) - {"__future__"}


def test_the_tools_carry_the_runtime_version_and_depend_on_exactly_it() -> None:
    version = ROOT["project"]["version"]
    assert TOOLS["project"]["version"] == version
    assert str(requirements(TOOLS)["dreamstream"]) == f"dreamstream=={version}"
    assert TOOLS["project"]["requires-python"] == ROOT["project"]["requires-python"]


def test_every_package_the_tools_import_is_declared_with_bounds() -> None:
    declared = requirements(TOOLS)
    imported = third_party_imports(TOOLS_PACKAGE)
    assert {"click", "numpy", "confluent_kafka"} <= imported, "the scan finds the tools' imports"
    distributions = packages_distributions()
    for module in sorted(imported):
        names = {canonicalize_name(d) for d in distributions.get(module, [])}
        assert names & set(declared), f"dreamstream_tools imports {module} but tools/pyproject.toml does not declare it"
    for requirement in declared.values():
        operators = {spec.operator for spec in requirement.specifier}
        assert "==" in operators or (operators & {">=", ">", "~="} and operators & {"<", "<="}), (
            f"{requirement} needs a lower and an upper bound"
        )


def test_the_tools_bounds_are_the_runtimes_and_the_lock_satisfies_them() -> None:
    runtime = requirements(ROOT)
    locked = dict(re.findall(r"^([A-Za-z0-9_.-]+)==([^\s\\]+)", (REPO / "requirements.lock").read_text(), re.M))
    locked = {canonicalize_name(name): version for name, version in locked.items()}
    for name, requirement in requirements(TOOLS).items():
        if name == "dreamstream":
            continue
        assert name in runtime and runtime[name].specifier == requirement.specifier, (
            f"{requirement}: keep it as the runtime declares it ({runtime.get(name)})"
        )
        assert name in locked and requirement.specifier.contains(locked[name]), f"requirements.lock: {name}"


def test_the_runtime_package_discovery_finds_no_tooling() -> None:
    setuptools = pytest.importorskip("setuptools")
    find = ROOT["tool"]["setuptools"]["packages"]["find"]
    runtime = setuptools.find_namespace_packages(str(REPO), include=find["include"], exclude=find.get("exclude", ()))
    assert {"dreamstream", "dreaming.engine", "schemas", "streams", "plumbing", "language"} <= set(runtime)
    tooling = {"dreamstream_tools", "tools", "tests", "bench"}
    assert not [name for name in runtime if name.split(".")[0] in tooling]
    assert "dreamstream" not in ROOT["tool"]["setuptools"].get("package-data", {}), "the broker's pom is the tools'"

    find = TOOLS["tool"]["setuptools"]["packages"]["find"]
    tools = setuptools.find_namespace_packages(str(REPO / "tools"), include=find["include"])
    assert {"dreamstream_tools", "dreamstream_tools.evaluation"} <= set(tools)
    assert TOOLS["tool"]["setuptools"]["package-data"]["dreamstream_tools"] == ["*.xml"]
    assert (TOOLS_PACKAGE / "kafka_pom.xml").exists()


RUNTIME_PACKAGES = ("schemas", "plumbing", "language", "streams", "consumers", "dreaming", "dreamstream")


def test_every_package_the_runtime_imports_is_declared_with_a_lower_bound() -> None:
    declared = requirements(ROOT)
    imported = set().union(*(third_party_imports(REPO / package) for package in RUNTIME_PACKAGES))
    assert {"faust", "confluent_kafka", "qdrant_client", "polars", "msgspec"} <= imported, "the scan finds imports"
    distributions = packages_distributions()
    undeclared = []
    for module in sorted(imported):
        names = {canonicalize_name(d) for d in distributions.get(module, [])}
        if not names & set(declared):
            undeclared.append(f"{module} (from {sorted(names) or 'no installed distribution'})")
    assert undeclared == [], "imported by the runtime but not declared in pyproject.toml"
    unbounded = [str(r) for r in declared.values() if not {s.operator for s in r.specifier} & {">=", ">", "~=", "=="}]
    assert unbounded == [], "every runtime dependency needs a lower bound"


def test_every_file_of_the_review_page_is_package_data() -> None:
    """The wheel (and so the image) carries the page only through these globs: a new kind of file
    under consumers/api/ui/ must be added to them, or /ui/ would miss it once installed."""
    globs = ROOT["tool"]["setuptools"]["package-data"]["consumers.api"]
    base = REPO / "consumers" / "api"
    files = sorted(p.relative_to(base) for p in (base / "ui").iterdir() if p.is_file())
    assert files and "ui/index.html" in {str(f) for f in files}
    assert [f for f in files if not any(f.match(g) for g in globs)] == []


def test_ci_installs_a_hash_pinned_pip_before_the_lock() -> None:
    """A new machine's pip (23.2) refuses requirements.lock once the index has a newer release of a
    package the lock pins and another asks for with an extra; CI brings its own pip first."""
    bootstrap = (REPO / ".ci" / "pip.lock").read_text()
    pins = re.findall(r"^([A-Za-z0-9_.-]+)==(\S+) \\\n\s+--hash=sha256:[0-9a-f]{64}$", bootstrap, re.M)
    assert [name for name, _ in pins] == ["pip"], ".ci/pip.lock pins pip alone, with its hash"
    script = (REPO / ".ci" / "run").read_text()
    bootstrap_at = script.index("pip install --require-hashes -r .ci/pip.lock")
    assert bootstrap_at < script.index("pip install --require-hashes -r requirements.lock")
