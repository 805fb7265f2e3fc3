"""Every step of the consolidation worker honours the one step contract (`plumbing.step.Step`):
submit, poll, join and close, none of which returns a value (before: the commit step's join
returned a bool, the index step's a dict, the job step's None)."""

from __future__ import annotations

import inspect

import pytest

from consumers.steps.commit import CommitStep
from consumers.steps.index import IndexStep
from consumers.steps.jobs import JobStep
from consumers.steps.publish import PublishStep
from consumers.worker import IndexedOffsets
from plumbing.step import Step

STEPS = [CommitStep, IndexStep, JobStep, PublishStep, IndexedOffsets]


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.__name__)
def test_each_step_has_the_four_methods_and_none_returns_a_value(step: type) -> None:
    for name in ("submit", "poll", "join", "close"):
        method = getattr(step, name, None)
        assert callable(method), f"{step.__name__}.{name} missing"
        returns = inspect.signature(method).return_annotation
        assert returns in (None, "None"), f"{step.__name__}.{name} returns {returns!r}: the contract returns nothing"


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.__name__)
def test_poll_join_and_close_need_no_argument(step: type) -> None:
    for name in ("poll", "join", "close"):
        required = [
            p
            for p in list(inspect.signature(getattr(step, name)).parameters.values())[1:]
            if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        assert required == [], f"{step.__name__}.{name} requires {[p.name for p in required]}"


def test_the_contract_lists_the_four_methods() -> None:
    assert {"submit", "poll", "join", "close"} <= set(dir(Step))
