"""The kept aggregates' counting (datasources/catalogue/aggregate_cache.py): a question asked again while it is
being counted waits for that count, whoever asks; a failed count is not kept; a waiter that goes away leaves
the count to the others."""

from __future__ import annotations

import asyncio

import pytest

from datasources.catalogue.aggregate_cache import AggregateCache


class Count:
    def __init__(self, fail: bool = False) -> None:
        self.made = 0
        self.fail = fail
        self.release = asyncio.Event()

    async def __call__(self) -> int:
        self.made += 1
        await self.release.wait()
        if self.fail:
            raise RuntimeError("the database went away")
        return 42


async def test_asked_while_it_is_counted_it_is_counted_once() -> None:
    cache, count = AggregateCache(), Count()
    waiting = [asyncio.ensure_future(cache.answer(cache.generation, "groups", count)) for _ in range(4)]
    await asyncio.sleep(0)
    count.release.set()
    assert await asyncio.gather(*waiting) == [42] * 4
    assert count.made == 1
    assert await cache.answer(cache.generation, "groups", count) == 42  # kept
    assert count.made == 1


async def test_a_failed_count_reaches_every_waiter_and_is_not_kept() -> None:
    cache, failing = AggregateCache(), Count(fail=True)
    waiting = [asyncio.ensure_future(cache.answer(cache.generation, "groups", failing)) for _ in range(2)]
    await asyncio.sleep(0)
    failing.release.set()
    for outcome in await asyncio.gather(*waiting, return_exceptions=True):
        assert isinstance(outcome, RuntimeError)
    count = Count()
    count.release.set()
    assert await cache.answer(cache.generation, "groups", count) == 42
    assert (failing.made, count.made) == (1, 1)


async def test_a_waiter_that_goes_away_leaves_the_count_to_the_others() -> None:
    cache, count = AggregateCache(), Count()
    first = asyncio.ensure_future(cache.answer(cache.generation, "groups", count))
    second = asyncio.ensure_future(cache.answer(cache.generation, "groups", count))
    await asyncio.sleep(0)
    first.cancel()
    count.release.set()
    assert await second == 42
    with pytest.raises(asyncio.CancelledError):
        await first
    assert count.made == 1


async def test_a_count_of_an_older_generation_is_not_kept() -> None:
    cache, count = AggregateCache(), Count()
    old = cache.generation
    counting = asyncio.ensure_future(cache.answer(old, "groups", count))
    await asyncio.sleep(0)
    cache.generation += 1  # a change seen by another request meanwhile
    count.release.set()
    assert await counting == 42
    again = Count()
    again.release.set()
    assert await cache.answer(cache.generation, "groups", again) == 42
    assert again.made == 1
