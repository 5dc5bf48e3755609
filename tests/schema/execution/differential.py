"""Running one operation by the compiled plans and by graphql-core alone, and comparing the answers.

Both schemas are the application's (`build_schema`); the reference is built with `compiled=False`, so it
differs only in the executor. Each run gets a fresh context (fresh loaders) and its own statistics, which
tell the path the operation took. The compiled schema's executor counts the operations graphql-core's
own executor runs for it: none, when the compiled run answered.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any

import orjson
from strawberry.types import ExecutionResult

from datasources.database import Database
from datasources.statistics import QueryStats, current_stats
from schema.context import Context
from schema.execution import COMPILED, CompilingExecutor
from schema.permissions import Principal
from schema.schema import Schema, build_schema

SHOP = Principal.from_names("differential", ("shop",))

_graphql_core_runs: ContextVar[list[str] | None] = ContextVar("graphql_core_runs", default=None)


class CountingExecutor(CompilingExecutor):
    """The compiling executor, noting each time graphql-core's executor runs an operation's root fields."""

    def execute_root_grouped_field_set(self, *args: Any, **kwargs: Any) -> Any:
        runs = _graphql_core_runs.get()
        if runs is not None:
            runs.append(self.operation.operation.value)
        return super().execute_root_grouped_field_set(*args, **kwargs)


def counting(schema: Schema) -> Schema:
    """`schema`, its compiled executor counting graphql-core's runs (read with `Counted`)."""
    schema.execution_context_class = CountingExecutor
    return schema


class Counted:
    """The operations graphql-core's executor ran for a counting schema within the block."""

    def __init__(self) -> None:
        self.runs: list[str] = []

    def __enter__(self) -> Counted:
        self._token = _graphql_core_runs.set(self.runs)
        return self

    def __exit__(self, *_: object) -> None:
        _graphql_core_runs.reset(self._token)


@cache
def compiled_schema() -> Schema:
    return counting(build_schema())


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
    result, paths, _ = await execute_counted(schema, db, document, variables, user=user, work_dir=work_dir)
    return result, paths


async def execute_counted(
    schema: Schema,
    db: Database,
    document: str,
    variables: Mapping[str, Any] | None = None,
    *,
    user: Principal | None = SHOP,
    work_dir: Path = Path("/nonexistent"),
) -> tuple[ExecutionResult, list[str], list[str]]:
    """The result, the executor paths taken and the operations graphql-core's executor ran."""
    stats = QueryStats()
    token = current_stats.set(stats)
    try:
        context = Context(db=db, user=user, request_id="differential", log_dir=work_dir, work_dir=work_dir)
        with Counted() as counted:
            result = await schema.execute(document, variable_values=dict(variables or {}), context_value=context)
    finally:
        current_stats.reset(token)
    return result, stats.graphql_paths, counted.runs


def response(result: ExecutionResult) -> bytes:
    """The response as /graphql would serialise it: key order, value types and error details all count."""
    body: dict[str, Any] = {"data": result.data}
    if result.errors:
        body["errors"] = [error.formatted for error in result.errors]
    return orjson.dumps(body)


def unordered(body: bytes) -> bytes:
    """A response with its errors sorted: for comparing answers whose error order depends on timing."""
    parsed = orjson.loads(body)
    if "errors" in parsed:
        parsed["errors"] = sorted(parsed["errors"], key=orjson.dumps)
    return orjson.dumps(parsed)


async def assert_same(
    db: Database,
    document: str,
    variables: Mapping[str, Any] | None = None,
    *,
    path: str = COMPILED,
    user: Principal | None = SHOP,
    ordered: bool = True,
) -> ExecutionResult:
    """Runs `document` both ways; asserts the compiled run took `path`, graphql-core's executor ran only
    where that path says so, and both answers are identical (`ordered=False`: but for the errors' order)."""
    compiled, paths, runs = await execute_counted(compiled_schema(), db, document, variables, user=user)
    reference, reference_paths = await execute(reference_schema(), db, document, variables, user=user)
    assert paths == [path], (paths, document)
    assert runs == ([] if path == COMPILED else ["query"]), (runs, document)
    assert reference_paths == [], reference_paths  # the reference executor records nothing
    if ordered:
        assert response(compiled) == response(reference), document
    else:
        assert unordered(response(compiled)) == unordered(response(reference)), document
    return compiled
