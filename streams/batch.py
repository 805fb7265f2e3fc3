"""What a batch of the stream worker reads and produces: the record accessors it reads
(`Record`), what folding one event emits (`Outputs`, `Emits`), and what a whole batch hands to
the output step (`Batch`), each output tagged with the partition it goes to."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from schemas import DeadLetter, DreamJob, JobLifecycleEvent
from streams.signals import ScopeSignals

if TYPE_CHECKING:
    from confluent_kafka import KafkaError

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)


class Record(Protocol):
    """What the worker reads of a consumed record: confluent-kafka's Message accessors. Its stubs
    type topic, partition and offset Optional, as a client-level error event lacks them; they are
    read only off records without an error (and the partition off a partition-EOF event)."""

    def error(self) -> KafkaError | None: ...
    def topic(self) -> str: ...
    def partition(self) -> int: ...
    def offset(self) -> int: ...
    def key(self) -> bytes | None: ...
    def value(self) -> bytes | None: ...


class Appends(Protocol[T_contra]):
    def append(self, item: T_contra, /) -> None: ...


class Emits(Protocol):
    """Where `forget` and `decide` put what they emit: an Outputs, or a batch's PartitionSink."""

    @property
    def jobs(self) -> Appends[DreamJob]: ...
    @property
    def events(self) -> Appends[JobLifecycleEvent]: ...

    forgotten: bool


@dataclass
class Outputs:
    dead_letters: list[DeadLetter] = field(default_factory=list)
    jobs: list[DreamJob] = field(default_factory=list)
    events: list[JobLifecycleEvent] = field(default_factory=list)
    forgotten: bool = False
    """The scope asked to be forgotten: its signals row must be deleted, not written."""


@dataclass
class Batch(Outputs):
    """What one batch of records produces. Jobs, lifecycle events and dead letters keep the
    partition they must be published to (the input's: co-partitioning)."""

    job_partitions: list[int] = field(default_factory=list)
    event_partitions: list[int] = field(default_factory=list)
    letter_partitions: list[int] = field(default_factory=list)
    rows: dict[tuple[int, str], ScopeSignals | None] = field(default_factory=dict)
    """(partition, scope) → the row to write, or None for a tombstone (forgotten scope)."""
    guards: set[int] = field(default_factory=set)
    """Partitions whose storm-guard window changed (their guard row is written with the batch)."""
    offsets: dict[tuple[str, int], int] = field(default_factory=dict)
    """(topic, partition) → the offset to commit once everything above is delivered."""
    counts: dict[tuple[str, str], int] = field(default_factory=dict)
    """(topic, outcome) → events: accepted | dead_lettered | duplicate."""


class PartitionSink:
    """An Outputs-like view of a batch that records the partition of whatever is appended."""

    __slots__ = ("jobs", "events", "forgotten")

    def __init__(self, batch: Batch, partition: int) -> None:
        self.jobs = _Tagged(batch.jobs, batch.job_partitions, partition)
        self.events = _Tagged(batch.events, batch.event_partitions, partition)
        self.forgotten = False


class _Tagged(Generic[T]):
    __slots__ = ("items", "tags", "tag")

    def __init__(self, items: list[T], tags: list[int], tag: int) -> None:
        self.items, self.tags, self.tag = items, tags, tag

    def append(self, item: T) -> None:
        self.items.append(item)
        self.tags.append(self.tag)
