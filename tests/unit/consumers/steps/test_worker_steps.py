"""The consolidation worker's steps on the in-memory broker, and the same contract tests on
Kafka (`-m integration` selects those): jobs run once their watermarks are indexed, poison input
is never indexed and stalls nothing, a failing pass is published as failed and the next job runs.
The fault tests below the contract (commit refusals, outages, store errors) need the in-memory
broker's fault injection; the chaos suite does broker stops on a real broker."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from confluent_kafka import KafkaError, KafkaException
from qdrant_client.http.exceptions import ResponseHandlingException

from consumers.runtime import open_runtime
from consumers.worker import WorkerExit
from dreaming.engine import EngineResult
from dreaming.engine.offline import OfflineEngine
from plumbing.retry import TRANSIENT_ERRORS, RetryPolicy
from schemas import ConversationTurn, MemoryAdd
from schemas.settings import Settings
from tests.poison import OTHER, SCOPE, poison_records
from tests.worker_bus import Feeder, KafkaBus, MemoryBus, RunningWorker, wait_for_jobs, wait_until

SIBLING = "acme/support-bot/u2"


def turn(scope: str, index: int, content: str, session: str = "s") -> ConversationTurn:
    return ConversationTurn(
        scope=scope,
        session_id=session,
        message_id=f"{session}#{index}",
        role="user",
        content=content,
        ts=datetime(2026, 5, 1, 10, index, tzinfo=UTC),
    )


@pytest.fixture(params=["memory", pytest.param("kafka", marks=pytest.mark.integration)])
def bus(request, tmp_path: Path):
    if request.param == "memory":
        made = MemoryBus(Settings(home=tmp_path, partitions=2, trusted_producers=["ops-console"]))
    else:
        from tests.integration.kafka_env import unique_settings

        made = KafkaBus(
            unique_settings(request.getfixturevalue("kafka_bootstrap"), tmp_path, trusted_producers=["ops-console"])
        )
    yield made
    made.close()


@pytest.fixture
def memory_bus(tmp_path: Path):
    return MemoryBus(Settings(home=tmp_path, partitions=2))


@pytest.fixture
def runtime_of():
    opened = []

    def open_for(bus, engine=None):
        rt = open_runtime(bus.settings, engine=engine)
        opened.append(rt)
        return rt

    yield open_for
    for rt in opened:
        rt.close()


def texts(rt, scope: str) -> set[str]:
    return {m.text for m in rt.memories.active_records(scope)}


# --- the contract, on both brokers -----------------------------------------------------------


def test_a_job_runs_after_its_turns_are_indexed_and_offsets_are_committed(bus, runtime_of):
    rt = runtime_of(bus)
    feed = Feeder(bus)
    for i, content in enumerate(["I prefer aisle seats", "I am vegetarian"]):
        feed.event(bus.settings.topics.turns, turn(SCOPE, i, content))
    job = feed.job(SCOPE)
    with RunningWorker(bus, rt) as running:
        done = wait_for_jobs(bus, [job.job_id], running)
    assert done[job.job_id].status == "completed", done[job.job_id].reason
    assert any("aisle" in t for t in texts(rt, SCOPE))
    assert running.error is None


@pytest.mark.integration  # ~50 s even on the in-memory bus (the whole poison corpus): not for the unit lane
def test_poison_input_is_never_indexed_and_stalls_nothing(bus, runtime_of):
    rt = runtime_of(bus)
    feed = Feeder(bus)
    topics = {"turns": bus.settings.topics.turns, "memory-adds": bus.settings.topics.memory_adds}
    corpus = poison_records(bus.settings.max_event_bytes)
    for _name, kind, key, value in corpus:
        # A record without a key would land anywhere: put it in the scope's partition, as a
        # producer that forgot the key but not the partition would.
        feed.raw(topics[kind], key, value, None if key else _home(bus, SCOPE))
    # Same message id as the first good turn below, other content, sent first: the later one loses.
    feed.event(topics["turns"], turn(SCOPE, 0, "my favourite colour is green", session="dup"))
    feed.event(topics["turns"], turn(SCOPE, 0, "my favourite colour is purple", session="dup"))
    feed.event(topics["turns"], turn(SCOPE, 1, "I prefer aisle seats"))
    poisoned = feed.job(SCOPE, "job-after-poison")
    feed.event(topics["turns"], turn(SIBLING, 1, "I prefer window seats"))
    sibling = feed.job(SIBLING, "job-sibling")
    feed.raw(bus.settings.topics.jobs, SCOPE.encode(), b"{not a job", _home(bus, SCOPE))
    last = feed.job(SCOPE, "job-after-bad-job")

    with RunningWorker(bus, rt) as running:
        # ~50 s of work on a quiet machine (the poison corpus, a 100k-character turn embedded): 5x that
        done = wait_for_jobs(bus, [poisoned.job_id, sibling.job_id, last.job_id], running, timeout_s=300)
        skipped = running.worker._index.skipped
    assert {e.status for e in done.values()} <= {"completed", "no-op"}, {k: e.reason for k, e in done.items()}
    indexed = [t.content for t, _ in rt.transcripts.window(SCOPE, 100)]
    assert "my favourite colour is green" in indexed and "my favourite colour is purple" not in indexed
    assert all(t.ts.year in range(1900, 2200) for t, _ in rt.transcripts.window(SCOPE, 100))
    assert not any("\x00" in t or not t.strip() for t in indexed)
    assert rt.transcripts.window(OTHER, 100) == [] and rt.memories.active_records(OTHER) == []
    assert rt.transcripts.pending(SCOPE) == []
    accepted = {"unicode-100k"}  # a large but valid turn: indexed, as it should be
    assert skipped == len(corpus) - len(accepted) + 1, "every poison record, and the duplicate id, counted as skipped"
    assert running.error is None and running.alive is False


def test_a_pass_that_raises_is_published_as_failed_and_the_next_job_runs(bus, runtime_of):
    class Flaky:
        name = "flaky"

        def __init__(self) -> None:
            self.inner, self.calls = OfflineEngine(), 0

        def propose(self, snapshot, signals) -> EngineResult:
            self.calls += 1
            if snapshot.scope == SCOPE:
                raise OverflowError("date value out of range")
            return self.inner.propose(snapshot, signals)

        def verify(self, *args, **options):
            return self.inner.verify(*args, **options)

    rt = runtime_of(bus, Flaky())
    feed = Feeder(bus)
    feed.event(bus.settings.topics.turns, turn(SCOPE, 0, "I fly to Oslo tomorrow"))
    bad = feed.job(SCOPE)
    feed.event(bus.settings.topics.turns, turn(SIBLING, 0, "I prefer aisle seats"))
    good = feed.job(SIBLING)
    with RunningWorker(bus, rt) as running:
        done = wait_for_jobs(bus, [bad.job_id, good.job_id], running)
    assert done[bad.job_id].status == "failed" and "OverflowError" in done[bad.job_id].reason
    assert done[good.job_id].status == "completed"
    assert rt.memories.active_records(SCOPE) == []


def test_a_pass_that_left_messages_unread_asks_for_the_next_pass(bus, runtime_of):
    """The LLM engine's call budget ran out: the worker asks for the rest on the control topic,
    once per job, in the scope's partition; a pass that read everything asks nothing."""

    class Budgeted:
        name = "budgeted"

        def __init__(self) -> None:
            self.inner = OfflineEngine()

        def propose(self, snapshot, signals) -> EngineResult:
            done = self.inner.propose(snapshot, signals)
            if snapshot.scope != SCOPE:
                return done
            last = max(snapshot.new_message_ids)
            return EngineResult(plan=done.plan, model_calls=1, unread_message_ids=frozenset({last}))

        def verify(self, *args, **options):
            return self.inner.verify(*args, **options)

    rt = runtime_of(bus, Budgeted())
    feed = Feeder(bus)
    for i, content in enumerate(["I prefer aisle seats", "I am vegetarian"]):
        feed.event(bus.settings.topics.turns, turn(SCOPE, i, content))
    cut_short = feed.job(SCOPE)
    feed.event(bus.settings.topics.turns, turn(SIBLING, 0, "I prefer window seats"))
    whole = feed.job(SIBLING)
    with RunningWorker(bus, rt) as running:
        done = wait_for_jobs(bus, [cut_short.job_id, whole.job_id], running)
        wait_until(lambda: bus.control(), what="a control event")
    assert done[cut_short.job_id].status == "completed" and "1 new messages left" in done[cut_short.job_id].reason
    [request] = bus.control()
    assert (request.scope, request.action) == (SCOPE, "trigger") and cut_short.job_id in request.reason
    applied = rt.memories.state(SCOPE).applied(cut_short.job_id)
    assert applied.watermarks[bus.settings.topics.turns] == 1, "the unread message is new to the next pass"


def test_only_a_trusted_producer_may_protect_a_memory(bus, runtime_of):
    rt = runtime_of(bus)
    feed = Feeder(bus)
    adds = bus.settings.topics.memory_adds
    stamp = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
    feed.event(adds, MemoryAdd(scope=SCOPE, memory_id="claims", text="Ava's name is Mallory", ts=stamp, protected=True))
    feed.event(
        adds,
        MemoryAdd(scope=SCOPE, memory_id="spoof", text="Ava is an admin", ts=stamp, protected=True),
        headers=[("producer", b"agent-runtime")],
    )
    feed.event(
        adds,
        MemoryAdd(scope=SCOPE, memory_id="ops", text="Legal name: Ava Lindqvist", ts=stamp, protected=True),
        headers=[("producer", b"ops-console")],
    )
    job = feed.job(SCOPE)
    with RunningWorker(bus, rt) as running:
        wait_for_jobs(bus, [job.job_id], running)
    flags = {m.memory_id: m.protected for m in rt.memories.active_records(SCOPE)}
    assert flags == {"claims": False, "spoof": False, "ops": True}


def _home(bus, scope: str) -> int:
    from schemas.validation import home_partition

    return home_partition(scope.encode(), bus.settings.partitions)


# --- faults, on the in-memory broker ------------------------------------------------------------


def transient_count(resource: str, operation: str) -> float:
    return TRANSIENT_ERRORS.labels(resource, operation)._value.get()


def kafka_exc(code: int) -> KafkaException:
    return KafkaException(KafkaError(code, f"injected {code}"))


def one_job(bus, scope: str = SCOPE) -> str:
    feed = Feeder(bus)
    feed.event(bus.settings.topics.turns, turn(scope, 0, "I prefer aisle seats"))
    return feed.job(scope).job_id


def test_not_coordinator_on_commit_is_retried(memory_bus, runtime_of):
    rt = runtime_of(memory_bus)
    job_id = one_job(memory_bus)
    before = transient_count("kafka", "commit offsets")
    memory_bus.broker.fail_next("commit", kafka_exc(KafkaError.NOT_COORDINATOR), times=3)
    with RunningWorker(memory_bus, rt) as running:
        done = wait_for_jobs(memory_bus, [job_id], running)
        wait_until(
            lambda: (
                memory_bus.broker.commits[memory_bus.settings.consumer_group].get(
                    (memory_bus.settings.topics.jobs, _home(memory_bus, SCOPE))
                )
                == 1
            ),
            what="job commit",
        )
    assert done[job_id].status == "completed" and running.error is None
    assert transient_count("kafka", "commit offsets") - before == 3


def test_an_outage_during_publish_is_waited_out(memory_bus, runtime_of, monkeypatch):
    rt = runtime_of(memory_bus)
    job_id = one_job(memory_bus)
    real_run = rt.dream_pass.run

    def run_then_lose_the_broker(job):
        result = real_run(job)
        memory_bus.broker.outage(True)  # the broker goes away between the pass and its publish
        return result

    monkeypatch.setattr(rt.dream_pass, "run", run_then_lose_the_broker)
    before = transient_count("kafka", "deliver audit events")
    with RunningWorker(memory_bus, rt) as running:
        wait_until(
            lambda: transient_count("kafka", "deliver audit events") > before + 3 or running.error, what="retries"
        )
        assert running.alive and [e.status for e in memory_bus.audit()] == ["running"]
        memory_bus.broker.outage(False)
        done = wait_for_jobs(memory_bus, [job_id], running)
    assert done[job_id].status == "completed" and running.error is None


def test_timed_out_deliveries_are_produced_again(memory_bus, runtime_of):
    rt = runtime_of(memory_bus)
    job_id = one_job(memory_bus)
    memory_bus.broker.fail_next("produce", kafka_exc(KafkaError._MSG_TIMED_OUT), times=2)
    with RunningWorker(memory_bus, rt) as running:
        done = wait_for_jobs(memory_bus, [job_id], running)
    assert done[job_id].status == "completed" and running.error is None


def test_an_undeliverable_event_stops_the_worker_saying_why(memory_bus, runtime_of):
    rt = runtime_of(memory_bus)
    one_job(memory_bus)
    memory_bus.broker.fail_next("produce", kafka_exc(KafkaError.TOPIC_AUTHORIZATION_FAILED))
    with RunningWorker(memory_bus, rt) as running:
        wait_until(lambda: not running.alive, what="the worker to exit")
    assert isinstance(running.error, WorkerExit)
    assert "TOPIC_AUTHORIZATION_FAILED" in str(running.error) and "retrying will not help" in str(running.error)


def test_a_broker_away_longer_than_the_policy_allows_stops_the_worker_saying_why(memory_bus, runtime_of):
    rt = runtime_of(memory_bus)
    one_job(memory_bus)
    memory_bus.broker.fail_next("commit", kafka_exc(KafkaError._TRANSPORT), times=1000)
    short = RetryPolicy(initial_s=0.01, max_s=0.05, log_every_s=5.0, give_up_after_s=0.5)
    with RunningWorker(memory_bus, rt, retry=short) as running:
        wait_until(lambda: not running.alive, what="the worker to exit")
    assert isinstance(running.error, WorkerExit) and "still failing after" in str(running.error)


def test_a_commit_refused_after_a_rebalance_is_not_fatal(memory_bus, runtime_of):
    rt = runtime_of(memory_bus)
    job_id = one_job(memory_bus)
    memory_bus.broker.fail_next("commit", kafka_exc(KafkaError.ILLEGAL_GENERATION))
    with RunningWorker(memory_bus, rt) as running:
        done = wait_for_jobs(memory_bus, [job_id], running)
        later = one_job(memory_bus, SIBLING)
        wait_for_jobs(memory_bus, [later], running)
    assert done[job_id].status == "completed" and running.error is None
    assert running.worker._commit.lost_commits == 1
    # The job ran once: whoever gets it redelivered finds it recorded and republishes the same event id.
    events = [
        e
        for e in memory_bus.audit()
        if getattr(e, "type", "") == "job" and e.job_id == job_id and e.status == "completed"
    ]
    assert len({e.event_id for e in events}) == 1


def test_a_consumer_transport_error_is_logged_not_fatal(memory_bus, runtime_of):
    rt = runtime_of(memory_bus)
    job_id = one_job(memory_bus)
    memory_bus.broker.fail_next("consume", kafka_exc(KafkaError._ALL_BROKERS_DOWN), times=5)
    with RunningWorker(memory_bus, rt) as running:
        done = wait_for_jobs(memory_bus, [job_id], running)
    assert done[job_id].status == "completed" and running.error is None


def test_an_unreachable_store_is_retried_while_indexing_and_dreaming(memory_bus, runtime_of, monkeypatch):
    rt = runtime_of(memory_bus)
    job_id = one_job(memory_bus)
    failures = {"index_turns": 2, "write_candidate": 2}
    for name, owner in (("index_turns", rt.transcripts), ("write_candidate", rt.memories)):
        real = getattr(owner, name)

        def flaky(*args, _name=name, _real=real, **kwargs):
            if failures[_name] > 0:
                failures[_name] -= 1
                raise ResponseHandlingException(ConnectionRefusedError("qdrant down"))
            return _real(*args, **kwargs)

        monkeypatch.setattr(owner, name, flaky)
    with RunningWorker(memory_bus, rt) as running:
        done = wait_for_jobs(memory_bus, [job_id], running)
    assert done[job_id].status == "completed" and running.error is None
    assert failures == {"index_turns": 0, "write_candidate": 0}


def test_jobs_of_a_revoked_partition_are_left_to_the_next_owner(memory_bus, runtime_of):
    rt = runtime_of(memory_bus)
    feed = Feeder(memory_bus)
    feed.event(memory_bus.settings.topics.turns, turn(SCOPE, 0, "I prefer aisle seats"))
    job = feed.job(SCOPE)
    running = RunningWorker(memory_bus, rt)
    consumer = running.worker._consumer
    consumer.consume(num_messages=1)  # assigns every partition
    consumer.revoke_all()
    with running:
        done = wait_for_jobs(memory_bus, [job.job_id], running)
    assert done[job.job_id].status == "completed"
    assert json.loads(memory_bus.broker.messages(memory_bus.settings.topics.jobs)[0].value())["job_id"] == job.job_id


def test_a_ready_job_runs_before_the_rest_of_the_backlog_is_indexed(tmp_path: Path, runtime_of):
    """Time-to-generation is about one pass, not the backlog: the worker indexes a batch, then
    runs the jobs it has made ready, then indexes the next batch."""
    bus = MemoryBus(Settings(home=tmp_path, partitions=1, embedder="hashing"))
    rt = runtime_of(bus)
    feed = Feeder(bus)
    for i, content in enumerate(["I prefer aisle seats", "I am vegetarian", "I live in Graz"]):
        feed.event(bus.settings.topics.turns, turn(SCOPE, i, content))
    job = feed.job(SCOPE)
    backlog = 3_000
    for i in range(backlog):  # other scopes' turns, behind the job's watermark in the same partition
        feed.event(bus.settings.topics.turns, turn(f"acme/bulk/u{i % 300}", i % 60, f"bulk message {i}", f"b{i}"))
    indexed_when_it_ran: list[int] = []
    run = rt.dream_pass.run

    def counting_run(j):
        indexed_when_it_ran.append(rt.client.count(rt.transcripts.transcripts).count)
        return run(j)

    rt.dream_pass.run = counting_run
    with RunningWorker(bus, rt) as running:
        done = wait_for_jobs(bus, [job.job_id], running)
        wait_until(lambda: rt.client.count(rt.transcripts.transcripts).count == backlog + 3, 60)
    assert done[job.job_id].status == "completed"
    assert indexed_when_it_ran and indexed_when_it_ran[0] <= 1_000 < backlog  # one batch of 500, not 3,003


def test_ready_jobs_of_distinct_scopes_run_as_one_group(tmp_path: Path, runtime_of):
    """The ready jobs at the head of a partition run as one group (`DreamPass.run_many`: their first
    embeddings in one model call); a second job of a scope already in the group, and a forget job,
    start the next one. Each job is published as if it had run alone: running, then its outcome."""
    bus = MemoryBus(Settings(home=tmp_path, partitions=1, embedder="hashing"))
    rt = runtime_of(bus)
    groups: list[list[str]] = []
    run_many = rt.dream_pass.run_many

    def recording(jobs):
        groups.append([j.job_id for j in jobs])
        return run_many(jobs)

    rt.dream_pass.run_many = recording
    feed = Feeder(bus)
    scopes = [f"acme/support-bot/g{i}" for i in range(4)]
    for i, scope in enumerate(scopes):
        feed.event(bus.settings.topics.turns, turn(scope, i, f"I prefer aisle seats and live in Graz {i}"))
    jobs = [
        feed.job(scopes[0], "first"),
        feed.job(scopes[1], "second"),
        feed.job(scopes[0], "first-again"),
        feed.job(scopes[2], "third"),
        feed.job(scopes[3], "forget", trigger="forget"),
        feed.job(scopes[3], "fourth-after-forget"),
    ]
    with RunningWorker(bus, rt) as running:
        done = wait_for_jobs(bus, [j.job_id for j in jobs], running)
    assert groups == [["first", "second"], ["first-again", "third"], ["fourth-after-forget"]]
    assert {k: e.status for k, e in done.items()} == {
        "first": "completed",
        "second": "completed",
        "first-again": "no-op",
        "third": "completed",
        "forget": "completed",
        "fourth-after-forget": "no-op",
    }
    events = [(e.job_id, e.status) for e in bus.audit() if getattr(e, "type", "") == "job"]
    for job in jobs:
        mine = [status for job_id, status in events if job_id == job.job_id]
        ran = [] if job.trigger == "forget" else ["running"]  # a forget job is published when done
        assert mine == [*ran, done[job.job_id].status], (job.job_id, mine)
    assert running.error is None
