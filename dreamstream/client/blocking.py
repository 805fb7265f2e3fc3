"""`Client`: the blocking face of `AsyncClient`, each method run to completion on a private loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, Concatenate, ParamSpec, TypeVar

from dreamstream.client.answers import Filter
from dreamstream.client.async_client import DEFAULT_TIMEOUT_S, AsyncClient
from schemas import MemoryRecord

P = ParamSpec("P")
T = TypeVar("T")


def _blocking(
    method: Callable[Concatenate[AsyncClient, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[Client, P], T]:
    """`Client.<name>`: the AsyncClient method of that name, run to completion."""

    def run(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._runner.run(method(self._async, *args, **kwargs))

    run.__name__, run.__qualname__, run.__doc__ = method.__name__, f"Client.{method.__name__}", method.__doc__
    return run


class Client:
    """The blocking face of `AsyncClient`: the same methods, each run to completion."""

    def __init__(self, base_url: str, token: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self._runner = asyncio.Runner()
        self._async = AsyncClient(base_url, token, timeout_s)
        self.base_url = self._async.base_url

    search = _blocking(AsyncClient.search)
    memories = _blocking(AsyncClient.memories)
    memory = _blocking(AsyncClient.memory)
    context = _blocking(AsyncClient.context)
    scopes = _blocking(AsyncClient.scopes)
    diary = _blocking(AsyncClient.diary)
    generations = _blocking(AsyncClient.generations)
    add = _blocking(AsyncClient.add)
    correct = _blocking(AsyncClient.correct)
    delete = _blocking(AsyncClient.delete)
    trigger = _blocking(AsyncClient.trigger)
    rollback = _blocking(AsyncClient.rollback)
    approve = _blocking(AsyncClient.approve)
    reject = _blocking(AsyncClient.reject)
    steering = _blocking(AsyncClient.steering)
    set_steering = _blocking(AsyncClient.set_steering)
    tenant_steering = _blocking(AsyncClient.tenant_steering)
    set_tenant_steering = _blocking(AsyncClient.set_tenant_steering)

    def all_memories(self, scope: str, page_size: int = 100, *, where: Filter | None = None) -> Iterator[MemoryRecord]:
        cursor = None
        while True:
            page = self.memories(scope, page_size, cursor, where=where)
            yield from page.memories
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def close(self) -> None:
        self._runner.run(self._async.aclose())
        self._runner.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
