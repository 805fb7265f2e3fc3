"""Which input offsets the stream worker may commit: a batch's, once everything it and every
earlier batch produced is acknowledged by the broker, strictly in publication order."""

from __future__ import annotations

from collections import deque

from confluent_kafka import KafkaError, Message

from plumbing.kafka_io import DeliveryFailed


class _Pending:
    """One published batch: its input offsets, and the deliveries it still waits for."""

    __slots__ = ("offsets", "remaining", "error")
    error: KafkaError | None

    def __init__(self, offsets: dict[tuple[str, int], int]) -> None:
        self.offsets, self.remaining, self.error = offsets, 0, None

    def delivered(self, err: KafkaError | None, _msg: Message) -> None:
        self.remaining -= 1
        if err is not None and self.error is None:
            self.error = err


class CommitTracker:
    """Batches in publication order; offsets become committable strictly in that order."""

    def __init__(self) -> None:
        self.batches: deque[_Pending] = deque()

    def add(self, offsets: dict[tuple[str, int], int]) -> _Pending:
        pending = _Pending(offsets)
        self.batches.append(pending)
        return pending

    def ready(self) -> dict[tuple[str, int], int]:
        """Offsets of the finished head batches (removed); raises DeliveryFailed on a failure."""
        done: dict[tuple[str, int], int] = {}
        batches = self.batches
        while batches and batches[0].remaining <= 0:
            if batches[0].error is not None:  # stays at the head: nothing past it is ever handed out
                raise DeliveryFailed(f"an output was not delivered: {batches[0].error}")
            done.update(batches.popleft().offsets)
        for pending in batches:
            if pending.error is not None:
                raise DeliveryFailed(f"an output was not delivered: {pending.error}")
        return done

    def clear(self) -> None:
        self.batches.clear()
