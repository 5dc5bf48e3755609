"""Awaiting a level's awaitables together, without a Task per coroutine.

asyncio.gather wraps every coroutine in a Task: a scheduling round-trip before it starts, another per
resumption, and callbacks to collect its result, about 5 µs each. A full 1000-article page has some 8,000
resolver coroutines, nearly all of which only wait for one dataloader future. Here every coroutine is
started at once and resumed inside the awaiting task itself: a future's done-callback only queues its
coroutine, and the task runs all that are ready in one go. Each coroutine runs in its own copy of the
context, as in a Task. The caller learns the order in which they finished, in waves: those resumed in
one go (released by the same event, as the futures of one loader batch) form a wave. graphql-core reports
errors as they arrive, and the run does too.

The coroutines therefore run in the request's task, as graphql-core runs a lone awaited field, so
`asyncio.current_task()` and `asyncio.timeout()` work in them (asyncpg needs both to connect). A
timeout that expires in a resolver cancels the request's task: every coroutine of the level is then
cancelled and run to its end. When the resolvers' timeouts took back all the cancellations, the level
ends with their errors, and each coroutine cancelled with them is answered with the first of those
errors (the expired timeout's): under graphql-core each resolver would have met its own timeout (a
database that does not answer), and waiting for each again would multiply the stall. Else the
cancellation goes on.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import Awaitable, Coroutine, Sequence
from types import CoroutineType
from typing import Any, NamedTuple


class Settled(NamedTuple):
    results: list[Any]  # in the order of the awaitables; an exception in place of a result for one that raised
    order: list[int]  # the awaitables' indices in the order they finished
    waves: list[int]  # where each wave of `order` ends


async def settle(awaitables: Sequence[Awaitable[Any]]) -> Settled:
    """The results of `awaitables`, once all have finished."""
    results: list[Any] = [None] * len(awaitables)
    level = _Level(results)
    for index, awaitable in enumerate(awaitables):
        coroutine = awaitable if type(awaitable) is CoroutineType else _awaiting(awaitable)
        level.start(_Driven(level, index, coroutine))
    await level.run()
    return Settled(results, level.order, level.waves)


async def _awaiting(awaitable: Awaitable[Any]) -> Any:
    # A future or other awaitable a resolver returned: awaited by a coroutine like the others.
    return await awaitable


class _Level:
    __slots__ = ("expired", "loop", "order", "ready", "results", "running", "suspended", "wakeup", "waves")

    def __init__(self, results: list[Any]) -> None:
        self.loop = asyncio.get_running_loop()
        self.results = results
        self.order: list[int] = []
        self.waves: list[int] = []
        self.expired: Exception | None = None  # the first error a coroutine ended with while cancelled
        self.running = 0  # started and not finished
        self.suspended: set[_Driven] = set()
        self.ready: deque[tuple[_Driven, Any, BaseException | None]] = deque()
        self.wakeup: asyncio.Future[None] | None = None

    def start(self, driven: _Driven) -> None:
        self.running += 1
        driven.resume(None, None)

    def finish(self, driven: _Driven, value: Any) -> None:
        self.results[driven.index] = value
        self.order.append(driven.index)
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
        # Resolvers' timeouts took the cancellations back: their errors are the results, and those of the
        # coroutines cancelled with them.
        expired = self.expired or TimeoutError("cancelled with its level when a resolver's timeout expired")
        for index, result in enumerate(self.results):
            if isinstance(result, asyncio.CancelledError):
                self.results[index] = expired

    async def cancel(self) -> None:
        """Cancel what each coroutine waits on (as Task.cancel does) and run them all to their end."""
        for driven in list(self.suspended):
            if driven.waiting is not None:
                driven.waiting.cancel()
        finished, waves = len(self.order), len(self.waves)
        await self._drive(stop_when_cancelled=False)  # cancelled again: they are being cancelled already
        # One wave, the coroutines whose timeouts expired first: the others would have failed after them.
        tail = self.order[finished:]
        cancelled = [isinstance(self.results[i], asyncio.CancelledError) for i in tail]
        self.order[finished:] = [i for i, c in zip(tail, cancelled, strict=True) if not c] + [
            i for i, c in zip(tail, cancelled, strict=True) if c
        ]
        del self.waves[waves:]
        self._wave_end()
        self.expired = next(
            (error for i in self.order[finished:] if isinstance(error := self.results[i], Exception)), None
        )

    async def _drive(self, *, stop_when_cancelled: bool) -> asyncio.CancelledError | None:
        """Resume ready coroutines until all have finished, or until the task is cancelled (returned)."""
        while self.running:
            while self.ready:
                driven, value, error = self.ready.popleft()
                driven.resume(value, error)
            if self.running:
                self._wave_end()
                self.wakeup = self.loop.create_future()
                try:
                    await self.wakeup
                except asyncio.CancelledError as cancelled:
                    if stop_when_cancelled:
                        return cancelled
        self._wave_end()
        return None

    def _wave_end(self) -> None:
        if len(self.order) > (self.waves[-1] if self.waves else 0):
            self.waves.append(len(self.order))


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
