"""The compiled path's rules, on a small schema that has every case: each document is run by the compiled
plans and by graphql-core alone, and the responses must be byte-identical (errors, paths and nulls too),
with graphql-core's executor never running for the compiled schema.

Nothing here waits on I/O, so graphql-core's order of errors is fixed, and compared exactly: where two
fields fail concurrently, the one that fails first (before any await, or after a shorter sleep) comes
first. The rules of errors are those of graphql-core and the spec: an error nulls its position when that
is nullable, else the nearest nullable position above it (a field or a list item), or `data`; of several
errors that null the same position only the first is reported; each is located at its field's nodes,
with the path of response keys (aliases) and list indices.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
import strawberry

from schema.execution import FALLBACK, GRAPHQL_CORE
from schema.execution.compiler import Compiler
from schema.execution.lru import MEMORY_PER_BYTE
from schema.execution.run import Run
from schema.schema import Schema
from tests.schema.execution.differential import Counted, counting
from tests.schema.execution.small_schema import COMPILED_SCHEMA, REFERENCE_SCHEMA, Query, run, same


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
        ("{ items { awaitable } }", None),  # a sync resolver's awaitable is awaited, as graphql-core does
        ("{ items { timed } }", None),  # resumed resolvers run inside a task
        ("{ items { lazyTags } }", None),  # any iterable completes a list
        ("{ items { awaitedTags } }", None),  # awaitable items are awaited
    ],
)
async def test_compiled_like_graphql_core(document: str, variables: dict[str, Any] | None) -> None:
    body = await same(document, variables)
    assert b'"errors"' not in body


@pytest.mark.parametrize(
    "document",
    [
        # A nullable field's error nulls the field: raised, raised later, returned, at once.
        "{ items { name broken } }",
        "{ items { name brokenAtOnce } }",
        "{ items { name brokenLater } }",
        "{ items { name errorValue } }",
        '{ item(name: "a") { oddColour } }',  # an enum value it does not have
        "{ items { name brokenAttribute } }",  # an attribute beyond 32 bits
        # A non-null field's error nulls the nearest nullable position above it.
        '{ item(name: "a") { name missing } }',  # the object
        '{ item(name: "a") { itself { itself { missing } } } }',  # through non-null objects
        '{ item(name: "a") { maybeItself { itself { missing } } } }',  # the nearest nullable only
        '{ item(name: "a") { name missingLater } }',  # awaited: the built object is nulled in place
        '{ item(name: "a") { maybeItself { itself { missingLater } } } }',
        "{ items { name missing } }",  # up to data: [Item!]! of a non-null root field
        "{ items { name strictAttribute } }",
        "{ wrapper { items { name missingLater } } }",  # awaited, through a non-null list: the wrapper
        '{ item(name: "a") { siblings { name missingLater } } }',  # [Item]: each item
        '{ item(name: "a") { strictSiblings { name missingLater } } }',  # [Item!]: the list
        '{ strictItem(name: "b") { name missing } item(name: "a") { name } }',  # a non-null root: data
        "{ huge }",  # an Int out of range at a non-null root field
        "{ nan }",  # a Float that is not finite
        "{ items { name } huge }",
        "{ items { count } }",  # an Int attribute beyond 32 bits in a non-null field: data
        "{ items { weight } }",  # an infinite attribute
        # List items by their nullability.
        '{ item(name: "a") { numbers } }',  # [Int]!: the item
        '{ item(name: "a") { strictNumbers } }',  # [Int!]: the list
        '{ item(name: "a") { notAList } }',
        '{ item(name: "a") { awaitedNumbers } }',  # an awaited item that is not an Int
        # Locations and paths: merged fields give every node; aliases and indices make the path.
        '{ item(name: "a") { broken broken } i: item(name: "b") { b: broken, ...F } } fragment F on Item { b: broken }',
        "{ first: items(first: 2) { n: name m: missing } }",
        # Order: at once in graphql-core's order (keys, depth first), awaited ones as they arrive.
        "{ items { broken brokenAtOnce } }",
        "{ items { brokenAttribute brokenAtOnce } }",  # a leaf after a resolved field fails in key order
        "{ items { brokenAtOnce brokenAttribute __typename } }",
        "{ items { strictAttribute brokenAtOnce } }",  # the first error nulls the item: the other never runs
        "{ items { brokenAtOnce strictAttribute } }",  # the error before it stays
        '{ late: failsLater(message: "late") soon: fails(message: "soon") }',  # the first to fail first
        '{ a: failsLater(message: "a", seconds: 0.03) b: failsLater(message: "b", seconds: 0.01) }',
        '{ items { brokenLater } soon: fails(message: "soon") }',
        # Of errors that null the same position only the first is reported.
        '{ item(name: "a") { missing again: missing } }',
        '{ item(name: "a") { missingLater again: missingLater } }',
        '{ item(name: "a") { brokenAtOnce missingLater } }',  # an error before the null stays
        '{ item(name: "a") { missing broken } }',  # a field below the null never runs
        '{ a: strictFailsLater(message: "a", seconds: 0.01) b: strictFailsLater(message: "b", seconds: 0.03) }',
        '{ x: failsLater(message: "x", seconds: 0.01) s: strictFailsLater(message: "s") y: failsLater(message: "y") }',
    ],
)
async def test_errors_and_nulls_like_graphql_core(document: str) -> None:
    body = await same(document)
    assert b'"errors"' in body


async def test_errors_keep_their_codes() -> None:
    result = await COMPILED_SCHEMA.execute("{ items { broken } }")
    assert result.errors is not None
    assert {e.extensions["code"] for e in result.errors if e.extensions} == {"internal"}


EVENTS: list[str] = []


@strawberry.type
class Below:
    @strawberry.field
    async def value(self) -> str:
        EVENTS.append("below the null, started")
        return "v"


@strawberry.type
class Siblings:
    @strawberry.field
    async def strict(self) -> str:
        await asyncio.sleep(0.01)
        raise ValueError("strict")

    @strawberry.field
    async def slow(self) -> Below:
        try:
            await asyncio.sleep(0.03)
        except asyncio.CancelledError:
            EVENTS.append("slow cancelled")
            raise
        EVENTS.append("slow finished")
        return Below()

    @strawberry.field
    async def expires(self) -> str | None:
        async with asyncio.timeout(0.01):
            await asyncio.sleep(1)
        return "never"

    @strawberry.field
    async def waits(self) -> str | None:
        await asyncio.sleep(1)
        return "never"


SIBLINGS = counting(Schema(query=Siblings))


async def test_a_null_stops_what_is_below_it_but_not_what_already_runs() -> None:
    # graphql-core cancels the siblings of a failed non-null field; the compiled run lets the level's
    # coroutines finish (a database session is never cancelled half-way) and never starts the next level's.
    EVENTS.clear()
    with Counted() as counted:
        result = await SIBLINGS.execute("{ strict slow { value } }")
    assert result.data is None
    assert [(e.message, e.path) for e in result.errors or ()] == [("Unexpected error.", ["strict"])]
    assert EVENTS == ["slow finished"]
    assert counted.runs == []


async def test_a_resolver_timeout_answers_its_level_with_its_error() -> None:
    # The level's coroutines share the request's task: when one's timeout expires, all are cancelled, and
    # those cancelled with it get its error, as each would have met its own timeout under graphql-core
    # when the database does not answer (driver.py).
    with Counted() as counted:
        result = await SIBLINGS.execute("{ waits expires }")
    assert result.data == {"waits": None, "expires": None}
    assert [e.path for e in result.errors or ()] == [["expires"], ["waits"]]  # the expired one first
    assert counted.runs == []


async def test_variables_that_do_not_coerce_never_reach_an_executor() -> None:
    document = "query($n: Int) { items(first: $n) { name } }"
    compiled, paths, _ = await run(COMPILED_SCHEMA, document, {"n": "three"})
    assert paths == []
    assert compiled == (await run(REFERENCE_SCHEMA, document, {"n": "three"}))[0]


async def test_a_document_is_compiled_once_per_skip_outcome() -> None:
    schema = Schema(query=Query)
    document = "query($s: Boolean!) { items { name @skip(if: $s) } }"
    for skip in (True, False, True, False):
        await schema.execute(document, variable_values={"s": skip})
    [entry] = schema.plans.operations()
    assert entry.conditions == ("s",)
    assert set(entry.variants) == {(True,), (False,)}


async def test_the_plan_cache_is_bounded_by_the_memory_of_its_documents() -> None:
    documents = [f"{{ items(first: {size}) {{ name }} }}" for size in range(5)]  # 28 bytes each
    schema = Schema(query=Query, plan_cache_bytes=3 * 28 * MEMORY_PER_BYTE)
    for document in documents:
        await schema.execute(document)
    assert len(schema.plans) == 3
    assert schema.plans.bytes == 3 * 28 * MEMORY_PER_BYTE
    large = "{ items { name } }" + " " * 3 * 28  # alone heavier than the whole bound: not kept
    await schema.execute(large)
    assert len(schema.plans) == 3


async def test_a_compiler_failure_is_logged_and_graphql_core_answers(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(self: Compiler) -> None:
        raise RuntimeError("a compiler bug")

    monkeypatch.setattr(Compiler, "operation_plan", broken)
    with caplog.at_level(logging.ERROR, "gateway.graphql.execution"):
        body, paths, runs = await run(counting(Schema(query=Query)), "query Broken { items { name } }", None)
    assert body == b'{"data":{"items":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"}]}}'
    assert (paths, runs) == ([GRAPHQL_CORE], ["query"])
    assert [r.getMessage() for r in caplog.records] == ["compiling Broken failed; graphql-core runs it"]


@pytest.mark.fallback
async def test_a_failing_run_is_logged_and_graphql_core_answers_alone(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A bug of the run itself (not a field's error): graphql-core answers, without the run's errors.
    original = Run._next_level

    async def broken(self: Run) -> None:
        await original(self)
        raise RuntimeError("a run bug")

    monkeypatch.setattr(Run, "_next_level", broken)
    document = "query Broken { items { name broken } }"
    with caplog.at_level(logging.ERROR, "gateway.graphql.execution"):
        body, paths, runs = await run(COMPILED_SCHEMA, document, None)
    assert (paths, runs) == ([FALLBACK], ["query"])
    assert body == (await run(REFERENCE_SCHEMA, document, None))[0]
    assert [r.getMessage() for r in caplog.records if r.name.endswith("execution")] == [
        "the compiled run of Broken failed; graphql-core runs it"
    ]


@pytest.mark.fallback
async def test_a_value_the_plan_does_not_complete_is_answered_by_graphql_core(
    caplog: pytest.LogCaptureFixture,
) -> None:
    document = "{ items { name streamed } }"
    with caplog.at_level(logging.WARNING, "gateway.graphql.execution"):
        body, paths, runs = await run(COMPILED_SCHEMA, document, None)
    assert (paths, runs) == ([FALLBACK], ["query"])
    assert body == (await run(REFERENCE_SCHEMA, document, None))[0]
    assert [r.getMessage() for r in caplog.records] == [
        "the compiled run of an operation met an async iterable for Item.streamed; graphql-core runs it"
    ]
