"""The one kind of cache the app keeps: the values used last, within a bound."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """At most `size` values, the one used longest ago dropped first; with weigh, also no
    more than `weight` in all (the newest value stays whatever it weighs). Safe to share
    between threads."""

    def __init__(
        self, size: int, *, weigh: Callable[[V], int] | None = None, weight: int = 0
    ) -> None:
        self.size = size
        self._weigh = weigh
        self._weight = weight
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept for key (now the one used last), or None."""
        with self._lock:
            value = self._values.get(key)
            if value is not None:
                self._values.move_to_end(key)
            return value

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value kept for key, else make's (kept from now on); used last either way."""
        with self._lock:
            value = self._values.get(key)
            if value is None:
                value = self._values[key] = make()
            self._values.move_to_end(key)
            self._trim()
            return value

    def put(self, key: K, value: V) -> V:
        """Keep value for key, as the one used last."""
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            self._trim()
            return value

    def clear(self) -> None:
        with self._lock:
            self._values.clear()

    def __len__(self) -> int:
        return len(self._values)

    def _trim(self) -> None:
        while len(self._values) > 1 and (
            len(self._values) > self.size
            or (
                self._weigh is not None
                and sum(map(self._weigh, self._values.values())) > self._weight
            )
        ):
            self._values.popitem(last=False)
