"""A stand-in for confluent-kafka's `Message` (which cannot be built from Python): the accessors
the stream worker reads, over a (topic, partition, offset, key, value) tuple. The stream processor's
tests and the benchmark's in-process phase both feed it."""

from __future__ import annotations


class Record:
    """confluent-kafka Message accessors over a (topic, partition, offset, key, value) tuple."""

    __slots__ = ("_t", "_p", "_o", "_k", "_v")

    def __init__(self, topic: str, partition: int, offset: int, key: bytes | None, value: bytes | None) -> None:
        self._t, self._p, self._o, self._k, self._v = topic, partition, offset, key, value

    def topic(self):
        return self._t

    def partition(self):
        return self._p

    def offset(self):
        return self._o

    def key(self):
        return self._k

    def value(self):
        return self._v

    def error(self):
        return None
