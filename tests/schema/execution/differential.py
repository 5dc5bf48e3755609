"""Running one operation by the compiled plans and by graphql-core alone, and comparing the answers.

Both schemas are the application's (`build_schema`); the reference is built with `compiled=False`, so it
differs only in the executor. Each run gets a fresh context (fresh loaders) and its own statistics, which
tell the path the operation took.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import orjson
from strawberry.types import ExecutionResult

from datasources.database import Database
from datasources.statistics import QueryStats, current_stats
from schema.context import Context
from schema.execution import COMPILED
from schema.permissions import Principal
from schema.schema import Schema, build_schema

SHOP = Principal.from_names("differential", ("shop",))


@cache
def compiled_schema() -> Schema:
    return build_schema()


@cache
def reference_schema() -> Schema:
    return build_schema(compiled=False)


async def execute(
    schema: Schema,
    db: Database,
    document: str,
    variables: Mapping[str, Any] | None = None,
    *,
    user: Principal | None = SHOP,
    work_dir: Path = Path("/nonexistent"),
) -> tuple[ExecutionResult, list[str]]:
    """The result and the executor paths taken."""
    stats = QueryStats()
    token = current_stats.set(stats)
    try:
        context = Context(db=db, user=user, request_id="differential", log_dir=work_dir, work_dir=work_dir)
        result = await schema.execute(document, variable_values=dict(variables or {}), context_value=context)
    finally:
        current_stats.reset(token)
    return result, stats.graphql_paths


def response(result: ExecutionResult) -> bytes:
    """The response as /graphql would serialise it: key order, value types and error details all count."""
    body: dict[str, Any] = {"data": result.data}
    if result.errors:
        body["errors"] = [error.formatted for error in result.errors]
    return orjson.dumps(body)


async def assert_same(
    db: Database,
    document: str,
    variables: Mapping[str, Any] | None = None,
    *,
    path: str = COMPILED,
    user: Principal | None = SHOP,
) -> ExecutionResult:
    """Runs `document` both ways; asserts the compiled run took `path` and both answers are identical."""
    compiled, paths = await execute(compiled_schema(), db, document, variables, user=user)
    reference, reference_paths = await execute(reference_schema(), db, document, variables, user=user)
    assert paths == [path], (paths, document)
    assert reference_paths == [], reference_paths  # the reference executor records nothing
    assert response(compiled) == response(reference), document
    return compiled
