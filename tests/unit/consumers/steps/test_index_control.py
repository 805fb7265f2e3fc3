"""The consolidation worker's index step on control events: corrections into their inbox (an
operator role honoured only from a trusted producer), steering for the API, the rest ignored."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from consumers.runtime import open_runtime
from consumers.steps.index import IndexStep
from plumbing.kafka_io import API_PRODUCER, PRODUCER_HEADER
from plumbing.retry import Retrier
from plumbing.tenant_broadcast import carrier_scopes
from schemas import ControlEvent, MemoryCorrection, SteeringChange
from schemas.settings import Settings
from schemas.validation import home_partition
from tests.kafka_record import Record

SCOPE = "acme/notes-bot/ida"
T0 = datetime(2026, 7, 1, tzinfo=UTC)


class Message(Record):
    """A record with headers (the producer identity)."""

    def __init__(self, topic: str, offset: int, event: ControlEvent, producer: str | None) -> None:
        key = event.scope.encode()
        super().__init__(topic, home_partition(key, 6), offset, key, event.model_dump_json(exclude_none=True).encode())
        self._headers = [(PRODUCER_HEADER, producer.encode())] if producer else None

    def headers(self):
        return self._headers


class OffsetsWritten:
    """The step after the index (a `Step[[Offsets]]`): keeps what the index handed on."""

    def __init__(self) -> None:
        self.offsets: dict[tuple[str, int], int] = {}
        self.joined = 0

    def submit(self, offsets: dict[tuple[str, int], int]) -> None:
        self.offsets.update(offsets)

    def poll(self) -> None:
        pass

    def join(self) -> None:
        self.joined += 1

    def close(self) -> None:
        pass


def correction(cid: str, role: str) -> ControlEvent:
    change = MemoryCorrection(memory_id="m-1", op="update", text="Ida sings in a choir", by="someone", role=role)
    return ControlEvent(scope=SCOPE, action="correct", request_id=cid, reason="fix", ts=T0, correction=change)


def test_corrections_and_steering_are_indexed_and_an_untrusted_operator_claim_is_read_as_an_agents(tmp_path: Path):
    settings = Settings(home=tmp_path, partitions=6, trusted_producers=["ops-console"])
    rt = open_runtime(settings)
    try:
        written = OffsetsWritten()
        step = IndexStep(settings, rt, Retrier("qdrant"), next_step=written)
        control = settings.topics.control
        steer = SteeringChange(text="keep music exact", by="ops", applies_to="tenant")
        events = [
            (correction("c-api", "operator"), API_PRODUCER),
            (correction("c-ops", "operator"), "ops-console"),
            (correction("c-forged", "operator"), "some-script"),
            (correction("c-agent", "agent"), None),
            (
                ControlEvent(scope=carrier_scopes("acme", 6)[0], action="steer", request_id="s", ts=T0, steering=steer),
                None,
            ),
            (ControlEvent(scope=SCOPE, action="trigger", request_id="t", ts=T0), None),
        ]
        for offset, (event, producer) in enumerate(events):
            step.submit(Message(control, offset, event, producer))
        step.join()
        positions = written.offsets
        roles = {e.request_id: e.correction.role for e in rt.corrections.pending(SCOPE)}
        assert roles == {"c-api": "operator", "c-ops": "operator", "c-forged": "agent", "c-agent": "agent"}
        assert rt.steering.get("acme").text == "keep music exact" and rt.steering.get("acme", SCOPE) is None
        home = home_partition(SCOPE.encode(), 6)
        assert positions == {(control, home): 6, (control, 0): 5}, "every control event moves the offsets"
        assert written.joined == 1, "the index joins the step after it once the batch is written"
    finally:
        rt.close()
