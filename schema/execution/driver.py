"""Awaiting a level's awaitables together, without a Task per coroutine.

asyncio.gather wraps every coroutine in a Task: a scheduling round-trip before it starts, another per
resumption, and callbacks to collect its result, about 5 µs each. A full 1000-article page has some 8,000
resolver coroutines, nearly all of which only wait for one dataloader future. Here each coroutine is
started at once (the way Python 3.12's eager tasks start) and resumed straight from the future's
done-callback, each in its own copy of the context, as a Task would run it. Anything else (an awaitable
that is not a coroutine) is gathered by asyncio as usual.

A coroutine driven here is not a Task: `asyncio.current_task()` inside it is the request's task. Resolvers
below the root only wait on loaders; ones that need a task of their own (asyncio.timeout, TaskGroup) are
root fields, which Strawberry's resolver runs (see resolvers.py), or wrap their work in a task.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Coroutine, Sequence
from types import CoroutineType
from typing import Any


async def settle(awaitables: Sequence[Awaitable[Any]]) -> list[Any]:
    """The results of `awaitables`, in order; an exception in place of the result of one that raised."""
    results: list[Any] = [None] * len(awaitables)
    group = _Group(asyncio.get_running_loop().create_future(), results)
    others: list[tuple[int, Awaitable[Any]]] = []
    for index, awaitable in enumerate(awaitables):
        if type(awaitable) is CoroutineType:
            group.running += 1
            _Driven(group, index, awaitable).start()
        else:
            others.append((index, awaitable))
    group.started()
    try:
        if others:
            settled = await asyncio.gather(*(a for _, a in others), return_exceptions=True)
            for (index, _), value in zip(others, settled, strict=True):
                results[index] = value
        await group.done
    except asyncio.CancelledError:
        group.cancel()
        raise
    return results


class _Group:
    __slots__ = ("done", "driven", "results", "running")

    def __init__(self, done: asyncio.Future[None], results: list[Any]) -> None:
        self.done = done
        self.results = results
        self.running = 1  # the starting itself: `done` is not set before every coroutine has started
        self.driven: set[_Driven] = set()

    def started(self) -> None:
        self._one_less()

    def finish(self, driven: _Driven, index: int, value: Any) -> None:
        self.results[index] = value
        self.driven.discard(driven)
        self._one_less()

    def _one_less(self) -> None:
        self.running -= 1
        if self.running == 0:
            self.done.set_result(None)

    def cancel(self) -> None:
        """As Task.cancel: cancel what each coroutine waits on, so that it gets CancelledError and cleans up."""
        for driven in list(self.driven):
            if driven.waiting is not None:
                driven.waiting.cancel()


class _Driven:
    """One coroutine, resumed by the futures it waits on (Task.__step, without the scheduling)."""

    __slots__ = ("context", "coroutine", "group", "index", "waiting")

    def __init__(self, group: _Group, index: int, coroutine: Coroutine[Any, Any, Any]) -> None:
        self.group = group
        self.index = index
        self.coroutine = coroutine
        self.context = contextvars.copy_context()
        self.waiting: asyncio.Future[Any] | None = None

    def start(self) -> None:
        self.context.run(self.step, None, None)

    def step(self, value: Any, error: BaseException | None) -> None:
        """Runs the coroutine to its next suspension; always called inside self.context."""
        coroutine = self.coroutine
        try:
            yielded = coroutine.send(value) if error is None else coroutine.throw(error)
        except StopIteration as stop:
            self.group.finish(self, self.index, stop.value)
            return
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as raised:
            self.group.finish(self, self.index, raised)
            return
        self.group.driven.add(self)  # suspended: cancellable
        # Callbacks run in self.context, as a Task's steps do.
        if getattr(yielded, "_asyncio_future_blocking", False):
            yielded._asyncio_future_blocking = False
            self.waiting = yielded
            yielded.add_done_callback(self.wake, context=self.context)
        elif yielded is None:  # a bare yield: run again on the next loop iteration
            asyncio.get_running_loop().call_soon(self.step, None, None, context=self.context)
        else:
            problem = RuntimeError(f"a resolver coroutine yielded {yielded!r}, which asyncio does not await")
            asyncio.get_running_loop().call_soon(self.step, None, problem, context=self.context)

    def wake(self, future: asyncio.Future[Any]) -> None:
        self.waiting = None
        try:
            value = future.result()
        except BaseException as error:
            self.step(None, error)
            return
        self.step(value, None)
