"""Memoised functions of tenant text, and the one call that empties them all.

The engine memoises what it derives from sentences (a sentence's kind, its masked values, its
tokens, its vector): a fleet repeats itself. Those caches hold tenant text, so forgetting a scope
empties every one of them; no cache knows which scope a sentence came from.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from functools import _lru_cache_wrapper, lru_cache
from typing import TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_functions: list[_lru_cache_wrapper[object]] = []
_instances: list[weakref.WeakMethod[Callable[[], None]]] = []


def text_cache(maxsize: int) -> Callable[[Callable[..., T]], _lru_cache_wrapper[T]]:
    """`functools.lru_cache(maxsize)`, emptied by `clear_text_caches`."""

    def decorate(function: Callable[..., T]) -> _lru_cache_wrapper[T]:
        cached = lru_cache(maxsize=maxsize)(function)
        with _lock:
            _functions.append(cached)
        return cached

    return decorate


def register_clear(clear: Callable[[], None]) -> None:
    """An object's own cache of text (its bound `clear` method), emptied by `clear_text_caches`
    for as long as the object lives."""
    with _lock:
        _instances[:] = [ref for ref in _instances if ref() is not None]
        _instances.append(weakref.WeakMethod(clear))


def clear_text_caches() -> int:
    """Empty every cache of text in this process; returns how many were emptied."""
    with _lock:
        functions = list(_functions)
        clears = [clear for clear in (ref() for ref in _instances) if clear is not None]
    for function in functions:
        function.cache_clear()
    for clear in clears:
        clear()
    return len(functions) + len(clears)
