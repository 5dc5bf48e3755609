"""Batch fields: a field resolved for all the objects of a level at once, by one call.

A page of 1000 articles asks for each article's prices, stock, designation, ...: with a resolver per
object that is some 8,000 coroutines, each waiting for one dataloader future, about half of the page's
CPU. A batch field is written once, for many objects:

    async def _prices(articles: Sequence[Article], context: Context) -> list[list[Price] | None]: ...

    @strawberry.type
    class Article:
        prices: list[Price] | None = batch_field(_prices, description="Preis: ...")

and resolved two ways, with the same function:
- by the compiled plans (schema/execution): one call with every object of the level that selects it;
- by any other executor (graphql-core): through the field's own resolver, which hands its object to the
  request's `FieldBatches`; the objects asked for in one turn of the event loop go to one call.

The function answers one value per object, in their order; an error it raises is each object's field
error. Batch fields take no arguments, permissions or extensions: they belong to objects their parent
field already allowed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import strawberry
from strawberry.types.field import StrawberryField

# (the objects, the request's context) -> one value per object, in order
Many = Callable[[Sequence[Any], Any], Awaitable[Sequence[Any]]]

BATCH = "gateway-batch"  # where a batch field's metadata holds its function


def batch_field(many: Many, *, description: str) -> Any:
    """A field of a Strawberry type resolved by `many` for many objects at once; its type is the class
    annotation of the attribute it is assigned to."""

    async def resolve(root: Any, info: strawberry.Info) -> Any:
        batches: FieldBatches = info.context.batches
        return await batches.load(many, root)

    resolve.__name__ = getattr(many, "__name__", "batch")
    return strawberry.field(resolver=resolve, description=description, metadata={BATCH: many})


def batch_of(field: StrawberryField | None) -> Many | None:
    """The function of a batch field; None for any other field."""
    if field is None or not field.metadata:
        return None
    many: Many | None = field.metadata.get(BATCH)
    return many


class FieldBatches:
    """One request's batch fields resolved object by object (graphql-core): the objects asked for during one
    turn of the event loop go to their field's function together, when the turn ends."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self._waiting: dict[Many, list[tuple[Any, asyncio.Future[Any]]]] = {}
        self._running: set[asyncio.Task[None]] = set()  # kept from the collector until they end

    def load(self, many: Many, source: Any) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        waiting = self._waiting.get(many)
        if waiting is None:
            waiting = self._waiting[many] = []
            loop.call_soon(self._dispatch, many)
        waiting.append((source, future))
        return future

    def _dispatch(self, many: Many) -> None:
        waiting = self._waiting.pop(many)
        task = asyncio.get_running_loop().create_task(self._resolve(many, waiting))
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _resolve(self, many: Many, waiting: list[tuple[Any, asyncio.Future[Any]]]) -> None:
        try:
            values = checked(await many([source for source, _ in waiting], self.context), len(waiting))
        except Exception as error:
            for _, future in waiting:
                if not future.done():
                    future.set_exception(error)
            return
        for (_, future), value in zip(waiting, values, strict=True):
            if not future.done():  # its resolver was cancelled meanwhile
                future.set_result(value)


def checked(values: Sequence[Any], count: int) -> Sequence[Any]:
    """`values`, when there is one per object; a batch function that answers otherwise is a bug."""
    if not isinstance(values, Sequence) or len(values) != count:
        raise TypeError(f"a batch field's function answered {values!r:.80} for {count} objects")
    return values
