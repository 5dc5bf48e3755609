"""The dataloader pattern every domain shares: one batched fetch per request and key set.

Each batch opens its own short read session, so loaders resolving concurrently never share one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from strawberry.dataloader import DataLoader

from datasources.database import Database

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BatchLoader(DataLoader[K, V], Generic[K, V]):
    """Loads one value per key with `fetch(session, keys) -> {key: value}`; keys the fetch does not
    mention get `missing()`. Subclasses name their entity and key: `AddressByIdLoader`."""

    # Typed loosely: mypy reads a callable ClassVar as a method and would drop its first parameter.
    fetch: ClassVar[Callable[..., Awaitable[dict[Any, Any]]]]
    missing: ClassVar[Callable[[], Any]] = staticmethod(lambda: None)

    def __init__(self, db: Database) -> None:
        super().__init__(load_fn=self._load)
        self.db = db

    async def _load(self, keys: Sequence[K]) -> list[V]:
        async with self.db.reader() as session:
            found = await type(self).fetch(session, keys)
        return [found[key] if key in found else type(self).missing() for key in keys]
