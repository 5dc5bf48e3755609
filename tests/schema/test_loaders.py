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
