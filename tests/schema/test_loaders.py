"""The shared dataloader (schema/loaders.py): one key's future is awaited by every resolver asking for it."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from datasources.database import Database
from schema.loaders import BatchLoader


class SquareByNumberLoader(BatchLoader[int, int]):
    calls: list[list[int]]

    async def _load(self, keys: Sequence[int]) -> list[int]:
        self.calls.append(list(keys))
        await asyncio.sleep(0.01)  # the batch is still running when a resolver is cancelled
        return [key * key for key in keys]


def loader(db: Database) -> SquareByNumberLoader:
    instance = SquareByNumberLoader(db)
    instance.calls = []
    return instance


async def test_a_cancelled_resolver_does_not_cancel_the_key_for_the_others(db: Database) -> None:
    """graphql-core cancels a list's other items when one of them fails; a sibling field of another item
    waiting for the same key still gets its value (it used to get CancelledError: a 500)."""
    squares = loader(db)

    async def resolve(key: int) -> Any:
        return await squares.load(key)

    cancelled, kept = asyncio.create_task(resolve(3)), asyncio.create_task(resolve(3))
    await asyncio.sleep(0)  # both wait on the key's future; the batch is dispatched
    cancelled.cancel()
    assert await kept == 9
    await asyncio.gather(cancelled, return_exceptions=True)
    assert cancelled.cancelled()
    assert squares.calls == [[3]]
    assert await squares.load(3) == 9  # the answer stays known for the request
    assert squares.calls == [[3]]


class FailingLoader(BatchLoader[int, int]):
    calls: int = 0

    async def _load(self, keys: Sequence[int]) -> list[int]:
        self.calls += 1
        raise RuntimeError(f"no values for {list(keys)}")


async def test_keys_asked_for_in_one_turn_are_fetched_in_one_batch_each_once(db: Database) -> None:
    squares = loader(db)
    single, many = squares.load(2), squares.load_many([3, 2, 4, 3])
    assert await many == [9, 4, 16, 9]
    assert await single == 4
    assert squares.calls == [[2, 3, 4]]
    # Known keys are answered from the request's values; new ones make the next batch.
    assert await squares.load_many([4, 5, 2]) == [16, 25, 4]
    assert squares.calls == [[2, 3, 4], [5]]


async def test_a_key_asked_for_while_its_batch_runs_waits_for_that_batch(db: Database) -> None:
    squares = loader(db)
    first = asyncio.ensure_future(squares.load_many([1, 2]))
    await asyncio.sleep(0)  # dispatched, still running
    assert await squares.load_many([2, 3]) == [4, 9]
    assert await first == [1, 4]
    assert squares.calls == [[1, 2], [3]]


async def test_a_failed_batch_fails_each_of_its_keys_every_time_they_are_asked_for(db: Database) -> None:
    failing = FailingLoader(db)
    failing.prime(7, 49)
    many, single = failing.load_many([1, 7, 2]), failing.load(2)
    for awaitable in (many, single, failing.load(1)):
        try:
            await awaitable
        except RuntimeError as error:
            assert str(error) == "no values for [1, 2]"
        else:
            raise AssertionError("a key of a failed batch got a value")
    assert await failing.load_many([7]) == [49]  # primed: never fetched
    assert failing.calls == 1


async def test_prime_keeps_a_known_value_unless_forced(db: Database) -> None:
    squares = loader(db)
    assert await squares.load(3) == 9
    squares.prime(3, 10)
    assert await squares.load(3) == 9
    squares.prime(3, 10, force=True)
    assert await squares.load(3) == 10
    # Forced while its batch runs: the primed value (a record just written) wins over the fetched one.
    running = asyncio.ensure_future(squares.load(4))
    await asyncio.sleep(0)
    squares.prime(4, 17, force=True)
    assert await running == 17
    assert await squares.load(4) == 17
