"""The layers import in one direction only (the README's Layout table says which).

Every module's imports are read with `ast` (imports inside functions included, since a lazy import
is still a dependency) and checked against the allowed directions:

- `language` (how English text is read) -> `schemas`;
- `schemas` (the contracts) -> nothing of ours;
- `plumbing` (Kafka clients, the metrics/probe server) -> `schemas`;
- `streams` (the stream worker) -> `schemas`, `language`, `plumbing`;
- `dreaming` (the dreaming core: the dream pass, its phases, engines, store, embedders) -> `schemas`,
  `language` only: Kafka-free (no `plumbing`, no Kafka client) and never the workers; inside it, the
  engines never import the phases (`dreaming/engine/**` -> no `dreaming.passes`), and the verify phase
  uses the engine interface, not the offline engine's rules;
- `consumers` (the consolidation worker: its loop, steps, HTTP API and process runtime) -> `dreaming`,
  `schemas`, `language`, `plumbing`; inside it, the steps and the API never import each other or the
  worker that drives them;
- `dreamstream` (the operator CLI, topic admin, replay, client, MCP server) -> any runtime layer;
- `dreamstream_tools` (tools/dreamstream_tools: the local broker, the pipeline harness, the demo,
  the evaluation suite) -> any runtime layer; no runtime layer ever imports it, so the runtime
  wheel and the image work without it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / "tools"  # the dreamstream-tools distribution: its package is tools/dreamstream_tools
RUNTIME = frozenset({"language", "schemas", "plumbing", "streams", "dreaming", "consumers", "dreamstream"})
OURS = (*sorted(RUNTIME), "dreamstream_tools", "bench", "tests")
ALLOWED: dict[str, frozenset[str]] = {
    "language": frozenset({"language", "schemas"}),
    "schemas": frozenset({"schemas"}),
    "plumbing": frozenset({"plumbing", "schemas"}),
    "streams": frozenset({"streams", "schemas", "language", "plumbing"}),
    "dreaming": frozenset({"dreaming", "schemas", "language"}),
    "consumers": frozenset({"consumers", "dreaming", "schemas", "language", "plumbing"}),
    "dreamstream": RUNTIME,
    "dreamstream_tools": RUNTIME | {"dreamstream_tools"},
}
KAFKA_CLIENTS = ("confluent_kafka", "aiokafka", "faust", "mode")
"""What makes a module Kafka-bound: the dreaming core imports none of them."""


def source_root(path: Path) -> Path:
    """Module names are relative to the repository root, or to tools/ for the tools package."""
    return TOOLS if path.is_relative_to(TOOLS) else REPO


def module_name(path: Path) -> str:
    parts = path.relative_to(source_root(path)).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Absolute names of the modules `path` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            found.add(base)
            # `from dreaming.passes import gather` imports the module dreaming.passes.gather
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def modules(layer: str) -> list[Path]:
    """The modules under `layer` (a package path such as `dreaming/engine`)."""
    base = (TOOLS if layer.split("/")[0] == "dreamstream_tools" else REPO) / layer
    return sorted(p for p in base.rglob("*.py") if "__pycache__" not in p.parts)


def ours(name: str) -> str | None:
    top = name.split(".")[0]
    return top if top in OURS else None


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def wrong_imports(layer: str, files: list[Path]) -> list[str]:
    """`module imports name` for every import of ours in `files` that `layer`'s rule forbids."""
    wrong = []
    for path in files:
        name = module_name(path)
        for imported in sorted(imports_of(path)):
            top = ours(imported)
            if top is None or top in ALLOWED[layer]:
                continue
            wrong.append(f"{name} imports {imported}")
    return wrong


def imports_within(layer: str, forbidden: tuple[str, ...]) -> list[str]:
    return [
        f"{module_name(p)} imports {i}"
        for p in modules(layer)
        for i in sorted(imports_of(p))
        if any(within(i, f) for f in forbidden)
    ]


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_each_layer_imports_only_what_it_may(layer: str) -> None:
    files = modules(layer)
    assert files, f"no modules found under {layer}/"
    assert wrong_imports(layer, files) == []


@pytest.mark.parametrize("layer", sorted(RUNTIME))
def test_the_runtime_never_imports_the_tools(layer: str) -> None:
    """The runtime wheel and the image carry no dreamstream_tools: an import of it would fail there."""
    assert "dreamstream_tools" not in ALLOWED[layer]
    assert imports_within(layer, ("dreamstream_tools",)) == []


def test_the_dreaming_core_is_kafka_free() -> None:
    assert imports_within("dreaming", KAFKA_CLIENTS) == []


def test_engines_do_not_import_the_phases() -> None:
    assert imports_within("dreaming/engine", ("dreaming.passes", "dreaming.dream_pass", "dreaming.dream_phases")) == []


def test_the_verify_phase_reaches_the_engine_through_its_interface_only() -> None:
    path = REPO / "dreaming" / "passes" / "verify.py"
    assert [i for i in sorted(imports_of(path)) if within(i, "dreaming.engine.offline")] == []
    assert "dreaming.engine.base" in imports_of(path)


def test_the_steps_and_the_api_stay_below_the_worker_and_apart() -> None:
    assert imports_within("consumers/steps", ("consumers.api", "consumers.worker")) == []
    assert imports_within("consumers/api", ("consumers.steps", "consumers.worker")) == []


def test_the_checker_sees_imports() -> None:
    """The checks above pass only if nothing is found: make sure something is."""
    assert "dreaming.passes.gather" in imports_of(REPO / "dreaming" / "dream_phases.py")
    assert "language.patterns" in imports_of(REPO / "streams" / "extract.py")
    assert "plumbing.kafka_io" in imports_of(REPO / "streams" / "loop.py")
    assert "dreaming.passes" not in ALLOWED["streams"]  # the rule the old exception broke
    assert "dreaming.engine.offline.contradiction" in imports_of(
        REPO / "dreaming" / "engine" / "offline" / "verifier.py"
    )
    # The worker drives the core, never the other way round; the core's rule catches a worker import.
    assert "dreaming.dream_pass" in imports_of(REPO / "consumers" / "steps" / "jobs.py")
    jobs = REPO / "consumers" / "steps" / "jobs.py"
    assert "consumers.steps.jobs imports consumers.runtime" in wrong_imports("dreaming", [jobs])
    assert "consumers.audit_publisher imports confluent_kafka" in imports_within("consumers", KAFKA_CLIENTS)
    # The tools package is scanned under its own name, and an import of it breaks a runtime rule.
    demo = TOOLS / "dreamstream_tools" / "demo.py"
    assert demo in modules("dreamstream_tools") and module_name(demo) == "dreamstream_tools.demo"
    assert "dreamstream_tools.pipeline" in imports_of(demo) and "dreamstream.replay" in imports_of(demo)
    assert "dreamstream_tools.demo imports dreamstream_tools.pipeline" in wrong_imports("dreamstream", [demo])
    assert wrong_imports("dreamstream_tools", [demo]) == []
