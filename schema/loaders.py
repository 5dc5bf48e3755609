"""The dataloader pattern every domain shares: one batched fetch per request and key set.

Each batch opens its own short read session, so loaders resolving concurrently never share one; the
catalogue's loaders (ReadsLoader) read through the process's compiled reads instead, which run every
batch their request and the requests beside it start in one turn in one hop (datasources/reads).

A loader keeps, per request, a future per key; the keys asked for during one turn of the event loop are
fetched together when it ends (one statement per loader and level of the result). It is Strawberry's
DataLoader cut to what the schema uses (load, prime): a 1000-article page makes some 9,600 `load` calls,
and this one costs a third of DataLoader's per call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Iterable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from datasources.database import Database

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SharedFuture(asyncio.Future[V]):
    """A key's future, awaited by every resolver that asks for the key. Cancelling one of them (graphql-core
    cancels a list's other items when one fails) must not cancel it for the others: `cancel` refuses, so a
    cancelled Task gets its CancelledError when the value arrives, and the other resolvers get the value."""

    def cancel(self, msg: Any = None) -> bool:
        return False


class BatchLoader(Generic[K, V]):
    """Loads one value per key with `fetch(session, keys) -> {key: value}`; keys the fetch does not
    mention get `missing()`. Subclasses name their entity and key: `AddressByIdLoader`."""

    # Typed loosely: mypy reads a callable ClassVar as a method and would drop its first parameter.
    fetch: ClassVar[Callable[..., Awaitable[dict[Any, Any]]]]
    missing: ClassVar[Callable[[], Any]] = staticmethod(lambda: None)

    def __init__(self, db: Database) -> None:
        self.db = db
        self._futures: dict[K, asyncio.Future[V]] = {}
        self._batch: list[tuple[K, SharedFuture[V]]] | None = None  # asked for, not yet dispatched
        self._dispatched: set[asyncio.Task[None]] = set()  # running batches, kept from the collector

    def load(self, key: K) -> asyncio.Future[V]:
        future = self._futures.get(key)
        if future is not None:
            return future
        loop = asyncio.get_running_loop()
        future = SharedFuture(loop=loop)
        self._futures[key] = future
        if self._batch is None:
            self._batch = []
            loop.call_soon(self._dispatch)  # after every load of this turn
        self._batch.append((key, future))
        return future

    def load_many(self, keys: Iterable[K]) -> Awaitable[list[V]]:
        """The values of `keys`, in order: every key is asked for at once (as many `load`s), so that keys
        other loaders are asked for before this is awaited go to the database in the same batch."""
        futures, load = self._futures, self.load
        return _all([futures.get(key) or load(key) for key in keys])

    def prime(self, key: K, value: V, force: bool = False) -> None:
        """Make `value` the answer for `key` (a record just written), unless one is known and not `force`."""
        if key in self._futures and not force:
            return
        future = asyncio.get_running_loop().create_future()
        future.set_result(value)
        self._futures[key] = future

    def _dispatch(self) -> None:
        batch, self._batch = self._batch or [], None
        task = asyncio.get_running_loop().create_task(self._resolve(batch))
        self._dispatched.add(task)
        task.add_done_callback(self._dispatched.discard)

    async def _resolve(self, waiting: list[tuple[K, SharedFuture[V]]]) -> None:
        try:
            values: Sequence[V] | Exception = await self._load([key for key, _ in waiting])
        except Exception as error:
            values = error
        answer(waiting, values)

    async def _load(self, keys: Sequence[K]) -> list[V]:
        found = await self._fetch(keys)
        return [found[key] if key in found else type(self).missing() for key in keys]

    async def _fetch(self, keys: Sequence[K]) -> dict[Any, Any]:
        async with self.db.reader() as session:
            return await type(self).fetch(session, keys)


def answer(waiting: Iterable[tuple[Any, asyncio.Future[V]]], values: Sequence[V] | Exception) -> None:
    """Each waiting future its value, in order, or every one the batch's error; a future already done (its
    resolver was cancelled meanwhile) is left as it is."""
    if isinstance(values, Exception):
        for _, future in waiting:
            if not future.done():
                future.set_exception(values)
        return
    for (_, future), value in zip(waiting, values, strict=True):
        if not future.done():
            future.set_result(value)


async def _all(futures: list[asyncio.Future[V]]) -> list[V]:
    # The futures of one batch are settled together: this waits once per batch, not once per key.
    for future in futures:
        if not future.done():
            await future
    return [future.result() for future in futures]


class ReadsLoader(BatchLoader[K, V]):
    """A loader whose `fetch(reads, keys)` reads through the process's compiled reads: no session."""

    async def _fetch(self, keys: Sequence[K]) -> dict[Any, Any]:
        return await type(self).fetch(self.db.reads, keys)
