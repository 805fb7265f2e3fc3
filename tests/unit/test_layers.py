"""The layers import in one direction only (the README's Layout table says which).

Every module's imports are read with `ast` (imports inside functions included, since a lazy import
is still a dependency) and checked against the allowed directions:

- `language` (how English text is read) -> `schemas`;
- `schemas` (the contracts) -> nothing of ours;
- `plumbing` (Kafka clients, the metrics/probe server) -> `schemas`;
- `streams` (the stream worker) -> `schemas`, `language`, `plumbing`;
- `consumers` (the consolidation worker) -> `schemas`, `language`, `plumbing`; inside it, the engines never
  import the phases (`consumers/engine/**` -> no `consumers.passes`), and the verify phase uses the
  engine interface, not the offline engine's rules;
- `dreamstream` (the CLI and harness) -> anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OURS = ("language", "schemas", "plumbing", "streams", "consumers", "dreamstream", "bench", "tests")
ALLOWED: dict[str, frozenset[str]] = {
    "language": frozenset({"language", "schemas"}),
    "schemas": frozenset({"schemas"}),
    "plumbing": frozenset({"plumbing", "schemas"}),
    "streams": frozenset({"streams", "schemas", "language", "plumbing"}),
    "consumers": frozenset({"consumers", "schemas", "language", "plumbing"}),
    "dreamstream": frozenset(OURS),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
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
            # `from consumers.passes import patterns` imports the module consumers.passes.patterns
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def modules(layer: str) -> list[Path]:
    return sorted(p for p in (REPO / layer).rglob("*.py") if "__pycache__" not in p.parts)


def ours(name: str) -> str | None:
    top = name.split(".")[0]
    return top if top in OURS else None


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_each_layer_imports_only_what_it_may(layer: str) -> None:
    files = modules(layer)
    assert files, f"no modules found under {layer}/"
    wrong = []
    for path in files:
        name = module_name(path)
        for imported in sorted(imports_of(path)):
            top = ours(imported)
            if top is None or top in ALLOWED[layer]:
                continue
            wrong.append(f"{name} imports {imported}")
    assert wrong == []


def test_engines_do_not_import_the_phases() -> None:
    wrong = [
        f"{module_name(p)} imports {i}"
        for p in modules("consumers/engine")
        for i in sorted(imports_of(p))
        if within(i, "consumers.passes") or within(i, "consumers.dream_pass")
    ]
    assert wrong == []


def test_the_verify_phase_reaches_the_engine_through_its_interface_only() -> None:
    path = REPO / "consumers" / "passes" / "verify.py"
    assert [i for i in sorted(imports_of(path)) if within(i, "consumers.engine.offline")] == []
    assert "consumers.engine.base" in imports_of(path)


def test_the_checker_sees_imports() -> None:
    """The checks above pass only if nothing is found: make sure something is."""
    assert "consumers.passes.gather" in imports_of(REPO / "consumers" / "dream_pass.py")
    assert "language.patterns" in imports_of(REPO / "streams" / "extract.py")
    assert "plumbing.kafka_io" in imports_of(REPO / "streams" / "loop.py")
    assert "consumers.passes" not in ALLOWED["streams"]  # the rule the old exception broke
    assert "consumers.engine.offline.contradiction" in imports_of(
        REPO / "consumers" / "engine" / "offline" / "verifier.py"
    )
