"""Running a plan: objects completed breadth-first, awaitables gathered level by level.

Everything synchronous is completed at once; every awaitable a level produces (dataloader-backed and
other async resolvers of all the objects of that level) is awaited together (driver.settle), and their
results complete the next level. So loaders see whole levels of keys per batch, and no coroutine waits
on another field's.

Any exception, or a value graphql-core would answer with an error, ends the run: the caller runs the
query through graphql-core instead. Coroutines that had not started yet are closed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from graphql.execution import Executor
from graphql.pyutils import Path

from schema.execution.driver import settle
from schema.execution.errors import Diverged
from schema.execution.leaves import GRAPHQL_MAX_INT as INT_MAX
from schema.execution.leaves import GRAPHQL_MIN_INT as INT_MIN
from schema.execution.plan import ObjectPlan, ResolvedField


class _Pending(NamedTuple):
    awaitable: Awaitable[Any]
    field: ResolvedField
    target: dict[str, Any]
    path: Path


class Run:
    __slots__ = ("executor", "is_awaitable", "pending")

    def __init__(self, executor: Executor[Any]) -> None:
        self.executor = executor
        self.is_awaitable: Callable[[Any], bool] = executor.is_awaitable
        self.pending: list[_Pending] = []

    async def execute(self, plan: ObjectPlan, root: Any) -> dict[str, Any]:
        try:
            data = self.object(plan, root, None)
            while self.pending:
                await self._next_level()
        except BaseException:
            _discard(self.pending)
            raise
        return data

    def object(self, plan: ObjectPlan, source: Any, path: Path | None) -> dict[str, Any]:
        result = dict.fromkeys(plan.keys)
        for key in plan.typenames:
            result[key] = plan.type_name
        for key, get, exact, output in plan.leaves:
            value = get(source)
            result[key] = value if value.__class__ is exact else output(value)
        for key, get, _, output in plan.ints:
            value = get(source)
            result[key] = value if value.__class__ is int and INT_MIN <= value <= INT_MAX else output(value)
        for key, get, _, output in plan.floats:
            value = get(source)
            # x - x == 0.0 holds for a finite float only (inf - inf and NaN - NaN are NaN)
            result[key] = value if value.__class__ is float and value - value == 0.0 else output(value)
        if plan.fields:
            type_name = plan.type_name
            for field in plan.fields:
                field_path = Path(path, field.key, type_name)
                value = field.resolve(source, self, field_path)
                if field.always_awaitable or self.is_awaitable(value):
                    self.pending.append(_Pending(value, field, result, field_path))
                else:
                    result[field.key] = field.complete(value, field_path, self)
        return result

    async def _next_level(self) -> None:
        level, self.pending = self.pending, []
        values = await settle([p.awaitable for p in level])
        for pending, value in zip(level, values, strict=True):
            if isinstance(value, BaseException):
                raise Diverged("a resolver raised") from value
            pending.target[pending.field.key] = pending.field.complete(value, pending.path, self)


def _discard(pending: list[_Pending]) -> None:
    """Close the coroutines a failed run never started; nothing is left pending or unawaited."""
    for item in pending:
        awaitable = item.awaitable
        if asyncio.iscoroutine(awaitable):
            awaitable.close()
        elif isinstance(awaitable, asyncio.Future):
            # A loader's future resolves with its batch; no one is there to read a failure.
            awaitable.add_done_callback(_retrieve)


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
