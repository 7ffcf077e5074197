"""What the simulated listings keep of what they build: at most so many values, the least recently
used dropped first, shared by the server's threads."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """At most ``size`` values by key. A value is built outside the lock, so a slow build holds no
    other request back; two threads may then build one key, and the first kept is the one every
    caller gets (each value is a pure function of its key, so either would do)."""

    def __init__(self, size: int) -> None:
        self._items: OrderedDict[K, V] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key: K, build: Callable[[], V]) -> V:
        with self._lock:
            got = self._items.get(key)
            if got is not None:
                self._items.move_to_end(key)
                return got
        built = build()
        with self._lock:
            got = self._items.setdefault(key, built)
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return got
