"""Awaiting a level's coroutines without a Task each: results, errors, the order they finished in, contexts
and cancellation."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

import pytest

from schema.execution.driver import settle

marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="outside")


async def value_after(future: asyncio.Future[int], plus: int) -> int:
    return await future + plus


async def immediate(value: Any) -> Any:
    return value


async def failing() -> None:
    await asyncio.sleep(0)
    raise ValueError("no")


async def test_results_come_in_order_with_errors_in_place() -> None:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[int] = loop.create_future()
    loop.call_later(0.01, future.set_result, 40)
    ready: asyncio.Future[str] = loop.create_future()
    ready.set_result("a future")
    results = (
        await settle([value_after(future, 2), immediate("now"), failing(), ready, value_after(future, 1)])
    ).results
    assert results[:2] == [42, "now"]
    assert isinstance(results[2], ValueError)
    assert results[3:] == ["a future", 41]


async def test_coroutines_that_finish_at_once_do_not_end_the_wait_early() -> None:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[int] = loop.create_future()
    loop.call_later(0.01, future.set_result, 1)
    assert (await settle([immediate(1), value_after(future, 1), immediate(3)])).results == [1, 2, 3]


async def test_each_coroutine_has_its_own_context() -> None:
    async def mark(name: str) -> str:
        marker.set(name)
        await asyncio.sleep(0)
        return marker.get()

    assert (await settle([mark("a"), mark("b")])).results == ["a", "b"]
    assert marker.get() == "outside"


async def test_cancelling_the_wait_cancels_what_the_coroutines_wait_on() -> None:
    cleaned: list[str] = []
    never: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def waits(name: str) -> None:
        try:
            await never
        except asyncio.CancelledError:
            cleaned.append(name)
            raise

    waiting = asyncio.ensure_future(settle([waits("a"), waits("b")]))
    await asyncio.sleep(0.01)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await asyncio.sleep(0)
    assert sorted(cleaned) == ["a", "b"]


async def test_nothing_to_wait_for() -> None:
    assert await settle([]) == ([], [], [])


async def test_coroutines_run_in_the_awaiting_task_so_timeouts_work() -> None:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[int] = loop.create_future()
    loop.call_later(0.01, future.set_result, 5)

    async def guarded() -> tuple[bool, int]:
        await future  # resumed from the future's callback, not at start
        async with asyncio.timeout(10):  # as asyncpg does to connect: needs a current task
            await asyncio.sleep(0)
            return asyncio.current_task() is outer, await future

    outer = asyncio.current_task()
    assert (await settle([guarded(), guarded()])).results == [(True, 5), (True, 5)]


async def test_an_expired_timeout_answers_the_level_with_its_error_not_the_request() -> None:
    never: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    cancelled: list[str] = []

    async def sibling() -> str:
        try:
            await never
        except asyncio.CancelledError:
            cancelled.append("sibling")  # cancelled with the level, and run to its end
            raise
        return "unreachable"

    async def slow() -> None:
        async with asyncio.timeout(0.01):
            await never

    settled = await settle([sibling(), slow(), immediate("done")])
    assert isinstance(settled.results[1], TimeoutError)
    assert settled.results[0] is settled.results[1]  # the sibling is answered with the expired timeout's error
    assert settled.results[2] == "done"
    assert cancelled == ["sibling"]
    assert settled.order == [2, 1, 0]  # the expired one before those cancelled with it, in one wave
    assert settled.waves == [1, 3]
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0


async def test_the_order_they_finished_in_by_waves() -> None:
    loop = asyncio.get_running_loop()
    first: asyncio.Future[int] = loop.create_future()
    second: asyncio.Future[int] = loop.create_future()
    loop.call_later(0.01, first.set_result, 1)
    loop.call_later(0.03, second.set_result, 2)
    settled = await settle([value_after(second, 0), value_after(first, 0), immediate(0), value_after(first, 10)])
    assert settled.results == [2, 1, 0, 11]
    # At once; then those the first future released, in the order they awaited it; then the last.
    assert settled.order == [2, 1, 3, 0]
    assert settled.waves == [1, 3, 4]
