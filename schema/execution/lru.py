"""An LRU bounded by the memory its entries take, not by their number: the caches a client's documents fill
(parsed and validated documents, compiled plans, persisted-query texts) are weighed by their text, so ten
8 MiB documents cannot hold what ten small ones would."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

# Measured with tracemalloc: a parsed document with locations takes ~87 bytes per byte of its text, the
# compiled plans of the REST layer's documents 30-85.
MEMORY_PER_BYTE = 100


def weight(text: str) -> int:
    """What a document of this text takes once parsed (or compiled: its plans take about as much)."""
    return len(text.encode()) * MEMORY_PER_BYTE


class WeightedLRU(Generic[K, V]):
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> V | None:
        """The value, marked as used most recently; None when absent."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[0]

    def values(self) -> list[V]:
        return [value for value, _ in self._entries.values()]

    def put(self, key: K, value: V, weight: int) -> None:
        """Keep the value, evicting the least recently used ones past the bound; one heavier than the whole
        bound is not kept at all (it would evict everything and stay alone)."""
        old = self._entries.pop(key, None)
        if old is not None:
            self.bytes -= old[1]
        if weight > self.max_bytes:
            return
        self._entries[key] = (value, weight)
        self.bytes += weight
        while self.bytes > self.max_bytes:
            _, (_, evicted) = self._entries.popitem(last=False)
            self.bytes -= evicted
