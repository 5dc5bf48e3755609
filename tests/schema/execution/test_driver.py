"""Awaiting a level's coroutines without a Task each: results, errors, contexts and cancellation."""

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
    results = await settle([value_after(future, 2), immediate("now"), failing(), ready, value_after(future, 1)])
    assert results[:2] == [42, "now"]
    assert isinstance(results[2], ValueError)
    assert results[3:] == ["a future", 41]


async def test_coroutines_that_finish_at_once_do_not_end_the_wait_early() -> None:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[int] = loop.create_future()
    loop.call_later(0.01, future.set_result, 1)
    assert await settle([immediate(1), value_after(future, 1), immediate(3)]) == [1, 2, 3]


async def test_each_coroutine_has_its_own_context() -> None:
    async def mark(name: str) -> str:
        marker.set(name)
        await asyncio.sleep(0)
        return marker.get()

    assert await settle([mark("a"), mark("b")]) == ["a", "b"]
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
    assert await settle([]) == []


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
    assert await settle([guarded(), guarded()]) == [(True, 5), (True, 5)]


async def test_an_expired_timeout_in_one_coroutine_fails_the_level_not_the_request() -> None:
    never: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def slow() -> None:
        async with asyncio.timeout(0.01):
            await never

    async def sibling() -> str:
        await never
        return "unreachable"

    results = await settle([slow(), sibling()])
    assert isinstance(results[0], TimeoutError)
    assert isinstance(results[1], asyncio.CancelledError)  # cancelled with the level, never half-run
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0
