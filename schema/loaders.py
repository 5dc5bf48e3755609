"""The dataloader pattern every domain shares: one batched fetch per request and key set.

Every batch reads through the process's compiled reads (datasources/reads), which run every batch their
request and the requests beside it start in one turn in one hop: no session, so loaders resolving
concurrently never share one.

The keys asked for during one turn of the event loop are fetched together when it ends (one statement
per loader and level of the result). A loader keeps, per request, the values it was answered and, per
key asked for, its batch; a batch has one future, settled when its fetch ends. It is Strawberry's
DataLoader cut to what the schema uses (load, load_many, prime), with a future per batch rather than per
key: a 1000-article page asks its loaders for some 9,600 keys, and each now costs a dictionary lookup.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Iterable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from datasources.database import Database

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SharedFuture(asyncio.Future[V]):
    """A future awaited by every resolver that asks for one of its keys. Cancelling one of them (graphql-core
    cancels a list's other items when one fails) must not cancel it for the others: `cancel` refuses, so a
    cancelled Task gets its CancelledError when the value arrives, and the other resolvers get the value."""

    def cancel(self, msg: Any = None) -> bool:
        return False


class _Batch(Generic[K]):
    """Keys asked for in one turn; `done` settles when their values are known, or with the fetch's error."""

    __slots__ = ("done", "keys")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.keys: list[K] = []
        self.done: SharedFuture[None] = SharedFuture(loop=loop)


class BatchLoader(Generic[K, V]):
    """Loads one value per key with `fetch(reads, keys) -> {key: value}`; keys the fetch does not
    mention get `missing()`. Subclasses name their entity and key: `AddressByIdLoader`."""

    # Typed loosely: mypy reads a callable ClassVar as a method and would drop its first parameter.
    fetch: ClassVar[Callable[..., Awaitable[dict[Any, Any]]]]
    missing: ClassVar[Callable[[], Any]] = staticmethod(lambda: None)

    def __init__(self, db: Database) -> None:
        self.db = db
        self._values: dict[K, V] = {}  # answered (fetched or primed)
        self._asked: dict[K, _Batch[K]] = {}  # every key fetched or being fetched: its batch
        self._batch: _Batch[K] | None = None  # asked for in this turn, not yet dispatched
        self._dispatched: set[asyncio.Task[None]] = set()  # running batches, kept from the collector

    def load(self, key: K) -> Awaitable[V]:
        """The value of `key`, fetched with the other keys asked for in this turn."""
        return self._value_of(key, self._ask((key,)))

    def load_many(self, keys: Iterable[K]) -> Awaitable[list[V]]:
        """The values of `keys`, in order: every key is asked for at once, so that keys other loaders are
        asked for before this is awaited go to the database in the same batch."""
        keys = list(keys)
        return self._values_in(keys, self._ask(keys))

    def prime(self, key: K, value: V, force: bool = False) -> None:
        """Make `value` the answer for `key` (a record just written), unless one is known and not `force`."""
        if not force and (key in self._values or key in self._asked):
            return
        self._values[key] = value

    def _ask(self, keys: Iterable[K]) -> list[_Batch[K]]:
        """The batches `keys` wait for: a new one for the keys never asked for, and those still running or
        failed (awaiting a failed batch raises its error)."""
        values, asked = self._values, self._asked
        waits: list[_Batch[K]] = []
        for key in keys:
            if key in values:
                continue
            batch = asked.get(key)
            if batch is None:
                batch = self._batch or self._start_batch()
                batch.keys.append(key)
                asked[key] = batch
            if not waits or (waits[-1] is not batch and batch not in waits):
                waits.append(batch)
        return waits

    def _start_batch(self) -> _Batch[K]:
        loop = asyncio.get_running_loop()
        self._batch = _Batch(loop)
        loop.call_soon(self._dispatch)  # after every load of this turn
        return self._batch

    async def _values_in(self, keys: list[K], waits: list[_Batch[K]]) -> list[V]:
        for batch in waits:
            await batch.done
        values = self._values
        return [values[key] for key in keys]

    async def _value_of(self, key: K, waits: list[_Batch[K]]) -> V:
        return (await self._values_in([key], waits))[0]

    def _dispatch(self) -> None:
        batch, self._batch = self._batch, None
        assert batch is not None
        task = asyncio.get_running_loop().create_task(self._resolve(batch))
        self._dispatched.add(task)
        task.add_done_callback(self._dispatched.discard)

    async def _resolve(self, batch: _Batch[K]) -> None:
        try:
            found = await self._load(batch.keys)
        except Exception as error:
            batch.done.set_exception(error)
            batch.done.exception()  # retrieved: a batch whose waiters all went away is no unhandled error
            return
        values = self._values
        for key, value in zip(batch.keys, found, strict=True):
            values.setdefault(key, value)  # a value primed with force meanwhile stays
        batch.done.set_result(None)

    async def _load(self, keys: Sequence[K]) -> list[V]:
        found = await self._fetch(keys)
        return [found[key] if key in found else type(self).missing() for key in keys]

    async def _fetch(self, keys: Sequence[K]) -> dict[Any, Any]:
        return await type(self).fetch(self.db.reads, keys)
