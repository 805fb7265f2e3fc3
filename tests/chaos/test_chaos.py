"""Chaos trials (`pytest -m chaos tests/chaos`): kill -9 of the consolidation worker at random
points, a broker stopped and restarted under it, a model that fails requests; poison records sit
among the input of every trial. Each trial's final memories are compared with an uninterrupted
run of the same input: nothing lost, nothing duplicated, nothing partially promoted.

A few trials run in the default suite; a longer run is one environment variable away:

    CHAOS_TRIALS=30 CHAOS_KILLS=2 CHAOS_BROKER_TRIALS=3 CHAOS_OUTAGE_S=60 CHAOS_MODEL_TRIALS=3 \\
        python -m pytest -m chaos tests/chaos -p no:cacheprovider

The broker trials start a private broker (CHAOS_KAFKA_HOME, CHAOS_KAFKA_PORT) so the shared one
is never stopped; every trial is bounded (CHAOS_RUN_TIMEOUT_S per worker run).
"""

from __future__ import annotations

import os
import random
import time

import pytest
from pydantic import SecretStr

from dreamstream_tools import local_kafka
from tests.chaos.faulty_model import FaultyModel
from tests.chaos.harness import (
    KAFKA_HOME,
    KAFKA_PORT,
    RESULTS,
    Run,
    build_scenario,
    compare,
    read_outcome,
    run_settings,
    uninterrupted,
    wait_done,
    with_kills,
)
from tests.integration.kafka_env import unique_settings

pytestmark = [pytest.mark.chaos, pytest.mark.integration, pytest.mark.timeout(1800)]

TRIALS = int(os.environ.get("CHAOS_TRIALS", "2"))
KILLS = int(os.environ.get("CHAOS_KILLS", "1"))
BROKER_TRIALS = int(os.environ.get("CHAOS_BROKER_TRIALS", "1"))
OUTAGE_S = float(os.environ.get("CHAOS_OUTAGE_S", "8"))
MODEL_TRIALS = int(os.environ.get("CHAOS_MODEL_TRIALS", "1"))
COPIES = int(os.environ.get("CHAOS_COPIES", "2"))
SEED = int(os.environ.get("CHAOS_SEED", str(int(time.time()))))


def describe(comparison) -> str:
    return f"seed {SEED}: " + "; ".join(comparison.details[:15])


# --- kill -9 ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def killed(kafka_bootstrap, tmp_path_factory):
    home = tmp_path_factory.mktemp("chaos-kill")
    scenario = build_scenario(unique_settings(kafka_bootstrap, home), copies=COPIES)
    reference = uninterrupted(scenario, home / "reference")
    assert reference.statuses and set(reference.statuses.values()) <= {"completed", "no-op"}, reference.statuses
    assert sum(len(r) for r in reference.records.values()) > 10, "the reference dreamed something to compare"
    return scenario, reference


@pytest.mark.parametrize("trial", range(TRIALS))
def test_kill_9_loses_duplicates_and_half_promotes_nothing(killed, trial, tmp_path):
    scenario, reference = killed
    outcome, run = with_kills(scenario, tmp_path, KILLS, random.Random(SEED * 1000 + trial))
    result = compare(reference, outcome)
    RESULTS.append(("kill -9", trial, run.kills_mid_run, result))
    assert result.clean, describe(result)


# --- broker stopped and restarted -----------------------------------------------------------------


@pytest.fixture(scope="module")
def private_broker(chaos_broker, tmp_path_factory):
    home = tmp_path_factory.mktemp("chaos-broker")
    scenario = build_scenario(unique_settings(chaos_broker.bootstrap, home), copies=COPIES)
    reference = uninterrupted(scenario, home / "reference")
    return scenario, reference


@pytest.mark.parametrize("trial", range(BROKER_TRIALS))
def test_a_broker_outage_is_waited_out_and_every_job_finishes(private_broker, trial, tmp_path):
    scenario, reference = private_broker
    rng = random.Random(SEED * 1000 + 500 + trial)
    run = Run(run_settings(scenario.settings, tmp_path), tmp_path / "worker.log")
    run.start()
    try:
        time.sleep(rng.uniform(2.0, 6.0))  # during startup, indexing or passes
        local_kafka.stop(KAFKA_HOME, port=KAFKA_PORT)
        time.sleep(OUTAGE_S)
        assert run.exited is None, f"the worker died during the outage:\n{run.tail()}"
        local_kafka.start(KAFKA_HOME, port=KAFKA_PORT)
        wait_done(run)
    finally:
        local_kafka.start(KAFKA_HOME, port=KAFKA_PORT)  # whatever happened, the next trial has a broker
        run.stop()
    result = compare(reference, read_outcome(run.settings, scenario.scopes))
    RESULTS.append((f"broker {OUTAGE_S:g}s", trial, 1, result))
    assert result.clean, describe(result)


# --- model timeouts, 500s and garbage --------------------------------------------------------------


@pytest.fixture(scope="module")
def model_scenario(kafka_bootstrap, tmp_path_factory):
    home = tmp_path_factory.mktemp("chaos-model")
    scenario = build_scenario(unique_settings(kafka_bootstrap, home), copies=1)
    with FaultyModel(fault_rate=0.0, stall_s=0, seed=0) as model:
        reference = uninterrupted(scenario, home / "reference", **llm_settings(model.url))
    return scenario, reference


def llm_settings(url: str) -> dict:
    return {
        "engine": "llm",
        "llm_model": "openai/test-model",
        "llm_api_base": url,
        "llm_api_key": SecretStr("chaos"),
        "llm_timeout_s": 2.0,
        "llm_retries": 1,
    }


@pytest.mark.parametrize("trial", range(MODEL_TRIALS))
def test_model_faults_are_retried_and_change_nothing(model_scenario, trial, tmp_path):
    scenario, reference = model_scenario
    with FaultyModel(fault_rate=0.6, stall_s=3.0, seed=SEED * 1000 + 900 + trial) as model:
        outcome = uninterrupted(scenario, tmp_path, **llm_settings(model.url))
        faults = model.faults
    result = compare(reference, outcome)
    RESULTS.append(("model faults", trial, faults, result))
    assert faults > 0, "the trial injected no fault: it would prove nothing"
    assert result.clean, describe(result)
