"""Batch fields (schema/batches.py) on the compiled plans: one call per field and level, the answers and errors
of graphql-core, which resolves the same fields object by object through the request's FieldBatches."""

from __future__ import annotations

import pytest

from schema.execution import COMPILED
from tests.schema.execution.small_schema import COMPILED_SCHEMA, REFERENCE_SCHEMA, SmallContext, run, same


@pytest.mark.parametrize(
    "document",
    [
        "{ items { name shout } }",
        "{ items { shout later name } }",  # a batch that waits, beside one that does not
        "{ items { friend { name shout friend { name later } } } }",  # batches on every level, nulls among them
        '{ item(name: "b") { shout twice friend { shout } } }',  # beside per-object resolvers
        "{ items { a: shout b: shout } }",  # aliases: one call each
        "{ wrapper { items { shout } } }",
    ],
)
async def test_batch_fields_answer_like_graphql_core(document: str) -> None:
    body = await same(document)
    assert b'"errors"' not in body


@pytest.mark.parametrize(
    "document",
    [
        "{ items { name batchBroken } }",  # the batch's error is each item's
        "{ items { name batchBrokenLater } }",
        "{ items { name someBroken } }",  # an error as one item's value is that item's
        "{ items { name tooFew } }",  # not one value per item: each item's error
        '{ item(name: "c") { name batchMissing } }',  # a null at a non-null position nulls the item
        "{ items { name batchMissing } }",  # ... and through [Item!]! the data
        '{ item(name: "a") { siblings { name batchMissing } } }',  # [Item]: the item only
        '{ item(name: "a") { brokenAtOnce someBroken batchBroken } }',
        '{ item(name: "b") { broken someBroken } }',  # a per-object error beside a batch's
        '{ item(name: "b") { brokenLater batchBroken } }',
        '{ item(name: "a") { friend { friend { someBroken batchMissing } } } }',
        # An object whose leaf fails is completed again field by field; its batch fields still join the call.
        "{ items { brokenAttribute shout name } }",
        "{ items { shout strictAttribute later } }",  # a non-null leaf fails: [Item!]! nulls the data
        '{ item(name: "a") { siblings { name strictAttribute shout friend { shout } } } }',  # [Item]: c only
    ],
)
async def test_batch_field_errors_and_nulls_like_graphql_core(document: str) -> None:
    body = await same(document)
    assert b'"errors"' in body


async def test_a_batch_field_is_one_call_per_level() -> None:
    context = SmallContext()
    _, paths, _ = await run(COMPILED_SCHEMA, "{ items { shout friend { shout } } }", None, context)
    assert paths == [COMPILED]
    # Four items on the first level; three of them have a friend (d has none) on the second.
    assert sorted(context.calls) == [("friend", 4), ("shout", 3), ("shout", 4)]


async def test_graphql_core_batches_the_objects_of_one_turn() -> None:
    context = SmallContext()
    await run(REFERENCE_SCHEMA, "{ items { shout friend { shout } } }", None, context)
    assert sorted(context.calls) == [("friend", 4), ("shout", 3), ("shout", 4)]


async def test_a_batch_field_below_a_null_is_not_called() -> None:
    context = SmallContext()
    # `missing` nulls the item after its `shout` was asked for: the batch never runs.
    body, _, _ = await run(COMPILED_SCHEMA, '{ item(name: "a") { shout missing } }', None, context)
    assert b'"item":null' in body
    assert context.calls == []
