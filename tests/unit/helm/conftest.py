"""The chart, loaded once per module, and its renderings with the default, production and
every-option values. `rendering` is imported inside the fixtures: it skips when helm-python-sdk
is missing, and a skip raised while a conftest is imported would be an error, not a skip."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def chart() -> Iterator[Any]:
    from tests.unit.helm.rendering import CHART, helm

    with helm.Chart.load(CHART) as loaded:
        yield loaded


@pytest.fixture(scope="module")
def default_docs(chart: Any) -> list[dict[str, Any]]:
    from tests.unit.helm.rendering import REQUIRED, render

    return render(chart, REQUIRED)


@pytest.fixture(scope="module")
def production_docs(chart: Any) -> list[dict[str, Any]]:
    from tests.unit.helm.rendering import production_values, render

    return render(chart, production_values())


@pytest.fixture(scope="module")
def everything_docs(chart: Any) -> list[dict[str, Any]]:
    from tests.unit.helm.rendering import EVERYTHING_ON, REQUIRED, merge, render

    return render(chart, merge(REQUIRED, EVERYTHING_ON))
