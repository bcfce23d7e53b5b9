"""A bounded mapping that drops its least recently used entries: numlir's executable caches.

Dropping an entry drops the cache's reference to a loaded executable; once no
one else holds it, the runtime unloads it (``nlrt_executable_release`` closes
the shared object), so a bounded cache bounds the memory and the mappings
that compiled code holds.

    >>> cache = LRUCache(lambda: 2)
    >>> cache.put("a", 1); cache.put("b", 2); cache.get("a"); cache.put("c", 3)
    1
    >>> sorted(cache.keys())
    ['a', 'c']
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Hashable


class LRUCache:
    """At most ``max_size()`` entries (read on every insertion, so a config change applies)."""

    def __init__(self, max_size: Callable[[], int]):
        self._max_size = max_size
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, default: Any = None) -> Any:
        with self._lock:
            value = self._entries.get(key, default)
            if value is not default:
                self._entries.move_to_end(key)
            return value

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            dropped = self._shrink()
        del dropped  # unloads outside the lock

    def pop(self, key: Hashable, default: Any = None) -> Any:
        with self._lock:
            return self._entries.pop(key, default)

    def shrink(self) -> None:
        """Drops entries beyond ``max_size()`` now (after the limit was lowered)."""
        with self._lock:
            dropped = self._shrink()
        del dropped

    def _shrink(self) -> list[Any]:
        dropped = []
        limit = max(self._max_size(), 0)
        while len(self._entries) > limit:
            dropped.append(self._entries.popitem(last=False)[1])
        return dropped

    def clear(self) -> None:
        with self._lock:
            entries, self._entries = self._entries, OrderedDict()
        del entries

    def keys(self) -> list[Hashable]:
        with self._lock:
            return list(self._entries)

    def values(self) -> list[Any]:
        with self._lock:
            return list(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries
