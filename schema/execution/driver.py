"""Awaiting a level's awaitables together, without a Task per coroutine.

asyncio.gather wraps every coroutine in a Task: a scheduling round-trip before it starts, another per
resumption, and callbacks to collect its result, about 5 µs each. A full 1000-article page has some 8,000
resolver coroutines, nearly all of which only wait for one dataloader future. Here every coroutine is
started at once and resumed inside the awaiting task itself: a future's done-callback only queues its
coroutine, and the task runs all that are ready in one go. Each coroutine runs in its own copy of the
context, as in a Task.

The coroutines therefore run in the request's task, as graphql-core runs a lone awaited field, so
`asyncio.current_task()` and `asyncio.timeout()` work in them (asyncpg needs both to connect). A
timeout that expires in a resolver cancels the request's task: every coroutine of the level is then
cancelled and run to its end; when the resolvers' timeouts took back all the cancellations, the level
ends with their errors in place of results (and graphql-core answers the query), else the cancellation
goes on.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import Awaitable, Coroutine, Sequence
from types import CoroutineType
from typing import Any


async def settle(awaitables: Sequence[Awaitable[Any]]) -> list[Any]:
    """The results of `awaitables`, in order; an exception in place of the result of one that raised."""
    results: list[Any] = [None] * len(awaitables)
    level = _Level(results)
    for index, awaitable in enumerate(awaitables):
        coroutine = awaitable if type(awaitable) is CoroutineType else _awaiting(awaitable)
        level.start(_Driven(level, index, coroutine))
    await level.run()
    return results


async def _awaiting(awaitable: Awaitable[Any]) -> Any:
    # A future or other awaitable a resolver returned: awaited by a coroutine like the others.
    return await awaitable


class _Level:
    __slots__ = ("loop", "ready", "results", "running", "suspended", "wakeup")

    def __init__(self, results: list[Any]) -> None:
        self.loop = asyncio.get_running_loop()
        self.results = results
        self.running = 0  # started and not finished
        self.suspended: set[_Driven] = set()
        self.ready: deque[tuple[_Driven, Any, BaseException | None]] = deque()
        self.wakeup: asyncio.Future[None] | None = None

    def start(self, driven: _Driven) -> None:
        self.running += 1
        driven.resume(None, None)

    def finish(self, driven: _Driven, value: Any) -> None:
        self.results[driven.index] = value
        self.running -= 1

    def resumable(self, driven: _Driven, value: Any, error: BaseException | None) -> None:
        """Called back by what the coroutine waited on: queue it for the task to resume."""
        self.ready.append((driven, value, error))
        if self.wakeup is not None and not self.wakeup.done():
            self.wakeup.set_result(None)

    async def run(self) -> None:
        """Resume the ready coroutines, in the calling task, until every one has finished."""
        cancelled = await self._drive(stop_when_cancelled=True)
        if cancelled is None:
            return
        await self.cancel()
        task = asyncio.current_task()
        if task is None or task.cancelling():
            raise cancelled
        # Resolvers' timeouts took the cancellations back: their errors are the results.

    async def cancel(self) -> None:
        """Cancel what each coroutine waits on (as Task.cancel does) and run them all to their end."""
        for driven in list(self.suspended):
            if driven.waiting is not None:
                driven.waiting.cancel()
        await self._drive(stop_when_cancelled=False)  # cancelled again: they are being cancelled already

    async def _drive(self, *, stop_when_cancelled: bool) -> asyncio.CancelledError | None:
        """Resume ready coroutines until all have finished, or until the task is cancelled (returned)."""
        while self.running:
            while self.ready:
                driven, value, error = self.ready.popleft()
                driven.resume(value, error)
            if self.running:
                self.wakeup = self.loop.create_future()
                try:
                    await self.wakeup
                except asyncio.CancelledError as cancelled:
                    if stop_when_cancelled:
                        return cancelled
        return None


class _Driven:
    """One coroutine, stepped the way Task.__step steps it."""

    __slots__ = ("context", "coroutine", "index", "level", "waiting")

    def __init__(self, level: _Level, index: int, coroutine: Coroutine[Any, Any, Any]) -> None:
        self.level = level
        self.index = index
        self.coroutine = coroutine
        self.context = contextvars.copy_context()
        self.waiting: asyncio.Future[Any] | None = None

    def resume(self, value: Any, error: BaseException | None) -> None:
        self.context.run(self._step, value, error)

    def _step(self, value: Any, error: BaseException | None) -> None:
        level = self.level
        try:
            yielded = self.coroutine.send(value) if error is None else self.coroutine.throw(error)
        except StopIteration as stop:
            level.suspended.discard(self)
            level.finish(self, stop.value)
            return
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as raised:  # the caller gets it as the result, as with gather
            level.suspended.discard(self)
            level.finish(self, raised)
            return
        level.suspended.add(self)
        if getattr(yielded, "_asyncio_future_blocking", False):
            yielded._asyncio_future_blocking = False
            self.waiting = yielded
            yielded.add_done_callback(self._done)
        elif yielded is None:  # a bare yield: let the loop run once, then go on
            level.loop.call_soon(level.resumable, self, None, None)
        else:
            problem = RuntimeError(f"a resolver coroutine yielded {yielded!r}, which asyncio does not await")
            level.loop.call_soon(level.resumable, self, None, problem)

    def _done(self, future: asyncio.Future[Any]) -> None:
        self.waiting = None
        try:
            value = future.result()
        except BaseException as error:  # thrown into the coroutine, as a Task does
            self.level.resumable(self, None, error)
            return
        self.level.resumable(self, value, None)
