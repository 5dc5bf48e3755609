"""A small schema with every case of completion and of errors, for the compiled path's rules.

Nothing here waits on I/O but for a few sleeps that stand for a query: graphql-core's answer, and its order
of errors, is then fixed and can be compared exactly.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from enum import Enum
from functools import cached_property
from typing import Any

import strawberry

from datasources.statistics import QueryStats, current_stats
from schema.batches import FieldBatches, batch_field
from schema.execution import COMPILED
from schema.schema import Schema
from tests.schema.execution.differential import Counted, counting, response


@strawberry.enum
class Colour(Enum):
    RED = "red"
    BLUE = "blue"


class SmallContext:
    """What batch fields need of a context: the request's batches (for graphql-core), and its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []  # (batch function, objects) of every call

    @cached_property
    def batches(self) -> FieldBatches:
        return FieldBatches(self)


# Batch fields: one call for many items. Each notes its call, so that a test can tell how many were made.


async def _shout(items: Sequence[Item], context: SmallContext) -> list[str]:
    context.calls.append(("shout", len(items)))
    return [f"{item.name.upper()}!" for item in items]


async def _later(items: Sequence[Item], context: SmallContext) -> list[str | None]:
    await asyncio.sleep(0.01)  # as after a query
    return [item.maybe for item in items]


async def _friend(items: Sequence[Item], context: SmallContext) -> list[Item | None]:
    context.calls.append(("friend", len(items)))
    found = {item.name: item for item in _items()}
    return [found.get(chr(ord(item.name) + 1)) for item in items]


async def _batch_broken(items: Sequence[Item], context: SmallContext) -> list[str | None]:
    raise ValueError(f"{len(items)} items are broken")


async def _batch_broken_later(items: Sequence[Item], context: SmallContext) -> list[str | None]:
    await asyncio.sleep(0.01)
    raise ValueError(f"{len(items)} items are broken later")


async def _some_broken(items: Sequence[Item], context: SmallContext) -> list[str | None]:
    # An error returned as an item's value is that item's field error, as for any resolver.
    return [ValueError(f"{item.name} is broken") if item.name in "bd" else item.name for item in items]  # type: ignore[misc]


async def _batch_missing(items: Sequence[Item], context: SmallContext) -> list[str]:
    return [None if item.name == "c" else item.name for item in items]  # type: ignore[misc]  # a null, non-null


async def _too_few(items: Sequence[Item], context: SmallContext) -> list[str | None]:
    return [item.name for item in items[1:]]  # not one value per item: a bug, every item's error


@strawberry.type
class Item:
    name: str
    size: int
    ratio: float | None
    colour: Colour
    tags: list[str]
    maybe: str | None = None
    count: int = 1  # plain attributes of Int and Float: checked inline
    weight: float = 1.5
    broken_attribute: int | None = None  # Int attributes beyond 32 bits, one nullable, one not
    strict_attribute: int = 0

    @strawberry.field
    async def twice(self, times: int = 2) -> str:
        return self.name * times

    @strawberry.field
    def upper(self, info: strawberry.Info) -> str:
        assert info.path.key in ("upper", "u")
        return self.name.upper()

    @strawberry.field
    async def broken(self) -> str | None:
        raise ValueError(f"{self.name} is broken")

    @strawberry.field
    def broken_at_once(self) -> str | None:
        raise ValueError(f"{self.name} is broken at once")

    @strawberry.field
    async def broken_later(self) -> str | None:
        await asyncio.sleep(0.01)  # as after a query
        raise ValueError(f"{self.name} is broken later")

    @strawberry.field
    async def timed(self) -> str:
        # As asyncpg connecting from a resolver that first waited on something else: asyncio.timeout
        # needs a current task after the coroutine is resumed, not only when it starts.
        await asyncio.sleep(0)
        async with asyncio.timeout(5):
            await asyncio.sleep(0)
            return self.name

    @strawberry.field
    def missing(self) -> str:
        return None  # type: ignore[return-value]  # a null for a non-null field

    @strawberry.field
    async def missing_later(self) -> str:
        return None  # type: ignore[return-value]  # the same, awaited

    @strawberry.field
    def error_value(self) -> str | None:
        return ValueError("returned, not raised")  # type: ignore[return-value]  # graphql-core: an error

    @strawberry.field
    def odd_colour(self) -> Colour | None:
        return "PURPLE"  # type: ignore[return-value]  # not a value of the enum

    @strawberry.field
    def numbers(self) -> list[int | None]:
        return [1, 2**40, self.size]  # the item beyond 32 bits is null

    @strawberry.field
    def strict_numbers(self) -> list[int] | None:
        return [1, 2**40, self.size]  # an item beyond 32 bits nulls the list

    @strawberry.field
    def lazy_tags(self) -> list[str]:
        return (tag for tag in self.tags)  # type: ignore[return-value]  # any iterable is a list

    @strawberry.field
    def not_a_list(self) -> list[str] | None:
        return 5  # type: ignore[return-value]

    @strawberry.field
    def awaited_tags(self) -> list[str]:
        return [asyncio.sleep(0, result=tag) for tag in self.tags]  # type: ignore[misc]  # items are awaited

    @strawberry.field
    def awaited_numbers(self) -> list[int | None]:
        return [asyncio.sleep(0, result=n) for n in (1, 2**40)]  # type: ignore[misc]

    @strawberry.field
    def itself(self) -> Item:
        return self

    @strawberry.field
    def maybe_itself(self) -> Item | None:
        return self

    @strawberry.field
    async def siblings(self) -> list[Item | None]:
        return list(_items())

    @strawberry.field
    async def strict_siblings(self) -> list[Item] | None:
        return _items()

    @strawberry.field
    def awaitable(self) -> str:
        return asyncio.sleep(0, result=self.name)  # type: ignore[return-value]  # a sync resolver's awaitable

    shout: str = batch_field(_shout, description="Batch: the name, loud.")
    later: str | None = batch_field(_later, description="Batch: maybe, after a wait.")
    friend: Item | None = batch_field(_friend, description="Batch: the item named by the next letter.")
    batch_broken: str | None = batch_field(_batch_broken, description="Batch: raises.")
    batch_broken_later: str | None = batch_field(_batch_broken_later, description="Batch: raises after a wait.")
    some_broken: str | None = batch_field(_some_broken, description="Batch: b's and d's values are errors.")
    batch_missing: str = batch_field(_batch_missing, description="Batch: null for c, non-null.")
    too_few: str | None = batch_field(_too_few, description="Batch: one value fewer than items.")

    @strawberry.field
    def streamed(self) -> list[str]:
        return _stream(self.tags)  # type: ignore[return-value]  # an async iterable: graphql-core's to complete


@strawberry.type
class Wrapper:
    items: list[Item]  # [Item!]!: a non-null error in an item nulls the wrapper


@strawberry.input
class Filter:
    prefix: str = ""
    colours: list[Colour] | None = None


async def _stream(tags: list[str]) -> AsyncIterator[str]:
    for tag in tags:
        yield tag


def _items() -> list[Item]:
    return [
        Item(name="a", size=1, ratio=0.5, colour=Colour.RED, tags=["x", "y"]),
        Item(name="b", size=2, ratio=None, colour=Colour.BLUE, tags=[], maybe="m", broken_attribute=2**31),
        Item(name="c", size=3, ratio=2.0, colour=Colour.RED, tags=["z"], strict_attribute=-(2**40)),
        Item(name="d", size=4, ratio=None, colour=Colour.BLUE, tags=[], count=2**31, weight=float("inf")),
    ]


@strawberry.type
class Query:
    @strawberry.field
    async def items(self, filter: Filter | None = None, first: int | None = None) -> list[Item]:
        found = [
            item
            for item in _items()
            if filter is None
            or (item.name.startswith(filter.prefix) and (filter.colours is None or item.colour in filter.colours))
        ]
        return found[:first] if first is not None else found

    @strawberry.field
    def item(self, root: Any, name: str) -> Item | None:
        return next((item for item in _items() if item.name == name), None)

    @strawberry.field
    async def strict_item(self, name: str) -> Item:
        return next(item for item in _items() if item.name == name)

    @strawberry.field
    async def wrapper(self) -> Wrapper | None:
        return Wrapper(items=_items())

    @strawberry.field
    def huge(self) -> int:
        return 2**40  # not a GraphQL Int

    @strawberry.field
    def nan(self) -> float:
        return float("nan")

    @strawberry.field
    def number_as_text(self) -> str:
        return 42  # type: ignore[return-value]  # graphql-core's String output turns it into "42"

    @strawberry.field
    async def fails(self, message: str) -> str | None:
        raise ValueError(message)

    @strawberry.field
    async def fails_later(self, message: str, seconds: float = 0.02) -> str | None:
        await asyncio.sleep(seconds)  # as after a query
        raise ValueError(message)

    @strawberry.field
    async def strict_fails_later(self, message: str, seconds: float = 0.02) -> str:
        await asyncio.sleep(seconds)
        raise ValueError(message)


COMPILED_SCHEMA = counting(Schema(query=Query))
REFERENCE_SCHEMA = Schema(query=Query, compiled=False)


async def run(
    schema: Schema, document: str, variables: dict[str, Any] | None, context: SmallContext | None = None
) -> tuple[bytes, list[str], list[str]]:
    stats = QueryStats()
    token = current_stats.set(stats)
    try:
        with Counted() as counted:
            result = await schema.execute(document, variable_values=variables, context_value=context or SmallContext())
    finally:
        current_stats.reset(token)
    return response(result), stats.graphql_paths, counted.runs


async def same(document: str, variables: dict[str, Any] | None = None) -> bytes:
    compiled, paths, runs = await run(COMPILED_SCHEMA, document, variables)
    reference, _, _ = await run(REFERENCE_SCHEMA, document, variables)
    assert paths == [COMPILED]
    assert runs == []  # graphql-core's executor did not run: the compiled run answered alone
    assert compiled == reference
    return compiled
