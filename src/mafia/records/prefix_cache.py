"""A cache of results folded over append-only sequences, extended with only the new items.

The event log only grows, so anything computed from it (the parsed log, a player's view) can be
carried forward: a cached result stays valid while the last item it covered is the very same
object at the same position. Anything else (a reloaded checkpoint, a fork) is computed afresh.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


class PrefixCache(Generic[Item, Result]):
    """An LRU of ``fold`` results by key; ``fold(previous or None, new items)`` returns a new result
    and must not change ``previous`` (other threads may hold it). A ``get`` may bring its own fold
    (one that depends on the key)."""

    def __init__(
        self, size: int, fold: Callable[[Result | None, Sequence[Item]], Result] | None = None
    ) -> None:
        self.size = size
        self.fold = fold
        self._entries: OrderedDict[Hashable, tuple[int, object, Result]] = OrderedDict()
        self._lock = threading.Lock()

    def get(
        self,
        key: Hashable,
        items: Sequence[Item],
        fold: Callable[[Result | None, Sequence[Item]], Result] | None = None,
    ) -> Result:
        """The result for ``items``, folding only what was appended since the cached prefix."""
        fold = fold or self.fold
        if fold is None:
            raise TypeError("PrefixCache.get needs a fold: this cache has none of its own")
        with self._lock:
            cached = self._entries.get(key)
        previous: Result | None = None
        start = 0
        if cached is not None:
            n, last, result = cached
            if 0 < n <= len(items) and items[n - 1] is last:
                previous, start = result, n
        result = fold(previous, items[start:]) if start < len(items) or previous is None else previous
        if items:
            with self._lock:
                self._entries[key] = (len(items), items[-1], result)
                self._entries.move_to_end(key)
                while len(self._entries) > self.size:
                    self._entries.popitem(last=False)
        return result

    def drop(self, match: Callable[[Hashable], bool]) -> None:
        """Forget the entries whose key ``match`` accepts (a finished game's, say)."""
        with self._lock:
            for key in [k for k in self._entries if match(k)]:
                del self._entries[key]

    def __len__(self) -> int:
        return len(self._entries)
