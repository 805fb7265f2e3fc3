"""The one contract of a worker's steps (arroyo's `ProcessingStrategy` is the model).

A step takes work with `submit` (never blocking on a resource longer than its own retry policy),
does what can be done without waiting in `poll`, finishes everything submitted in `join`, and
lets go of what it holds in `close`. None of them returns a value: what a step produces goes to
the next step's `submit` (the index step hands the offsets it wrote to the commit step), and what
a caller must know afterwards is a query of its own (`CommitStep.commit_now`). What `submit`
takes differs per step, hence the parameter: `Step[[Message]]`, `Step[[Offsets]]`, ...
"""

from __future__ import annotations

from typing import ParamSpec, Protocol

P = ParamSpec("P")

Offsets = dict[tuple[str, int], int]
"""The next offset to read per (topic, partition): what a commit stores."""


class Step(Protocol[P]):
    def submit(self, *args: P.args, **kwargs: P.kwargs) -> None:
        """Take one piece of work."""
        ...

    def poll(self) -> None:
        """Do what is ready, without waiting for what is not."""
        ...

    def join(self) -> None:
        """Finish everything submitted so far (retrying its resource as its policy allows)."""
        ...

    def close(self) -> None:
        """Let go of what it holds; work not joined is dropped, to be redelivered."""
        ...


class Forwarding:
    """`poll`, `join` and `close` passed on to the next step, for a step whose own work is all
    done in `submit` (it holds nothing between calls)."""

    _next: Step[...]

    def poll(self) -> None:
        self._next.poll()

    def join(self) -> None:
        self._next.join()

    def close(self) -> None:
        self._next.close()


__all__ = ["Forwarding", "Offsets", "Step"]
