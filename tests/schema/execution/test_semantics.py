"""The compiled path's rules, on a small schema that has every case: each document is run by the compiled
plans and by graphql-core alone, and the responses must be byte-identical (errors, paths and nulls too)."""

from __future__ import annotations

import asyncio
import logging
from enum import Enum
from typing import Any

import pytest
import strawberry
from graphql import GraphQLError

from datasources.statistics import QueryStats, current_stats
from schema.execution import COMPILED, FALLBACK, GRAPHQL_CORE
from schema.execution.compiler import Compiler
from schema.schema import Schema
from tests.schema.execution.differential import response


@strawberry.enum
class Colour(Enum):
    RED = "red"
    BLUE = "blue"


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
    def awaitable(self) -> str:
        return asyncio.sleep(0, result=self.name)  # type: ignore[return-value]  # a sync resolver's awaitable


@strawberry.input
class Filter:
    prefix: str = ""
    colours: list[Colour] | None = None


def _items() -> list[Item]:
    return [
        Item(name="a", size=1, ratio=0.5, colour=Colour.RED, tags=["x", "y"]),
        Item(name="b", size=2, ratio=None, colour=Colour.BLUE, tags=[], maybe="m"),
        Item(name="c", size=3, ratio=2.0, colour=Colour.RED, tags=["z"]),
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
    def huge(self) -> int:
        return 2**40  # not a GraphQL Int

    @strawberry.field
    def nan(self) -> float:
        return float("nan")

    @strawberry.field
    def number_as_text(self) -> str:
        return 42  # type: ignore[return-value]  # graphql-core's String output turns it into "42"


COMPILED_SCHEMA = Schema(query=Query)
REFERENCE_SCHEMA = Schema(query=Query, compiled=False)


async def run(schema: Schema, document: str, variables: dict[str, Any] | None) -> tuple[bytes, list[str]]:
    stats = QueryStats()
    token = current_stats.set(stats)
    try:
        result = await schema.execute(document, variable_values=variables)
    finally:
        current_stats.reset(token)
    return response(result), stats.graphql_paths


async def same(document: str, variables: dict[str, Any] | None = None, path: str = COMPILED) -> bytes:
    compiled, paths = await run(COMPILED_SCHEMA, document, variables)
    reference, _ = await run(REFERENCE_SCHEMA, document, variables)
    assert paths == [path]
    assert compiled == reference
    return compiled


@pytest.mark.parametrize(
    ("document", "variables"),
    [
        ("{ items { name size ratio colour tags maybe } }", None),
        ('{ items(filter: {prefix: "a"}) { count weight } }', None),
        ("{ items { twice t3: twice(times: 3) upper u: upper } }", None),
        ('{ item(name: "b") { name } none: item(name: "zz") { name } }', None),
        ("query($f: Filter) { items(filter: $f) { name colour } }", {"f": {"colours": ["RED"]}}),
        ('{ items(filter: {prefix: "c", colours: [RED, BLUE]}) { name } }', None),
        ("query($f: Filter, $n: Int) { items(filter: $f, first: $n) { name } }", {"f": {"prefix": "b"}}),
        ("query($n: Int = 1) { items(first: $n) { name } }", None),
        ("{ numberAsText }", None),
        ("{ items { ...F ... on Item { size } ... { tags } } } fragment F on Item { name size }", None),
        ("{ items { a: name a: name b: __typename } __typename }", None),
        ("query($s: Boolean!) { items { name @skip(if: $s) size @include(if: true) } }", {"s": True}),
        ("query($s: Boolean!) { items { name @skip(if: $s) size @include(if: true) } }", {"s": False}),
        ("{ items { awaitable } }", None),
        (
            "{ items { timed } }",
            None,
        ),  # resumed resolvers run inside a task  # a sync resolver's awaitable is awaited, as graphql-core does
    ],
)
async def test_compiled_like_graphql_core(document: str, variables: dict[str, Any] | None) -> None:
    await same(document, variables)


@pytest.mark.parametrize(
    "document",
    [
        "{ items { name broken } }",  # an async resolver raises deep in a list
        "{ items { name missing } }",  # null for a non-null field: the error nulls the item
        "{ huge }",  # an Int out of range
        "{ nan }",  # a Float that is not finite
        "{ items { name } huge }",
        "{ items { count } }",  # an attribute beyond 32 bits
        "{ items { weight } }",  # an infinite attribute
    ],
)
async def test_what_graphql_core_answers_with_errors_falls_back(document: str) -> None:
    body = await same(document, path=FALLBACK)
    assert b'"errors"' in body


async def test_variables_that_do_not_coerce_never_reach_an_executor() -> None:
    document = "query($n: Int) { items(first: $n) { name } }"
    compiled, paths = await run(COMPILED_SCHEMA, document, {"n": "three"})
    assert paths == []
    assert compiled == (await run(REFERENCE_SCHEMA, document, {"n": "three"}))[0]


async def test_a_document_is_compiled_once_per_skip_outcome() -> None:
    schema = Schema(query=Query)
    document = "query($s: Boolean!) { items { name @skip(if: $s) } }"
    for skip in (True, False, True, False):
        await schema.execute(document, variable_values={"s": skip})
    [entry] = schema.plans._entries.values()
    assert entry.conditions == ("s",)
    assert set(entry.variants) == {(True,), (False,)}


async def test_the_plan_cache_is_bounded() -> None:
    schema = Schema(query=Query)
    schema.plans.maxsize = 3
    for size in range(5):
        await schema.execute(f"{{ items(first: {size}) {{ name }} }}")
    assert len(schema.plans) == 3


async def test_a_compiler_failure_is_logged_and_graphql_core_answers(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(self: Compiler) -> None:
        raise RuntimeError("a compiler bug")

    monkeypatch.setattr(Compiler, "operation_plan", broken)
    schema = Schema(query=Query)
    stats = QueryStats()
    token = current_stats.set(stats)
    try:
        with caplog.at_level(logging.ERROR, "gateway.graphql.execution"):
            result = await schema.execute("query Broken { items { name } }")
    finally:
        current_stats.reset(token)
    assert result.data == {"items": [{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}]}
    assert stats.graphql_paths == [GRAPHQL_CORE]
    assert [r.getMessage() for r in caplog.records] == ["compiling Broken failed; graphql-core runs it"]


async def test_errors_keep_their_codes_on_both_paths() -> None:
    result = await COMPILED_SCHEMA.execute("{ items { broken } }")
    assert result.errors is not None
    assert all(isinstance(e, GraphQLError) for e in result.errors)
    assert {e.extensions["code"] for e in result.errors if e.extensions} == {"internal"}
