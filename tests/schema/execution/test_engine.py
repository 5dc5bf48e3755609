"""The executor paths on the real schema: compiled (errors included, in one run), graphql-core for what is not
compiled."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest
import strawberry.schema.schema as strawberry_schema_module
from graphql.validation import validate  # what Strawberry's validation step calls

from datasources.database import Database
from datasources.statistics import QueryStats, current_stats
from schema.context import Context
from schema.execution import COMPILED, GRAPHQL_CORE
from schema.schema import Schema
from tests.schema.execution.differential import SHOP, Counted, assert_same, compiled_schema, execute

pytestmark = pytest.mark.usefixtures("catalogue")

ARTICLE = "query($n: String!) { article(number: $n) { number designation prices { amount } } }"


async def test_a_query_runs_compiled(db: Database) -> None:
    result = await assert_same(db, ARTICLE, {"n": "A-100"})
    assert result.data == {
        "article": {
            "number": "A-100",
            "designation": "Hammer",
            "prices": [{"amount": 12.5}, {"amount": 11.0}, {"amount": 9.9}],
        }
    }


async def test_a_resolver_that_raises_is_answered_in_the_one_compiled_run(db: Database) -> None:
    result = await assert_same(db, "{ mediaContent(id: 999999) { fileName } }")
    assert result.data is None
    assert result.errors is not None
    assert [(e.message, e.path, e.extensions) for e in result.errors] == [
        (
            "media record 999999 does not exist",
            ["mediaContent"],
            {"code": "not_found", "info": {"field": "id"}, "field": "id"},
        )
    ]


async def test_a_denied_permission_is_answered_in_the_one_compiled_run(db: Database) -> None:
    result = await assert_same(db, ARTICLE, {"n": "A-100"}, user=None)
    assert result.data == {"article": None}
    assert result.errors is not None
    assert result.errors[0].extensions == {"code": "insufficient_scope"}
    assert result.errors[0].path == ["article"]


HEAVY = (
    "articles(limit: 10) {{ items {{ number designation prices {{ amount }} stock {{ quantity }} media {{ id }} }} }}"
)
FAILING = 'article(number: "A-100", customerNumber: "999999") { number }'  # the 31st field: no alias left'


async def _statements(schema: Schema, db: Database, document: str) -> tuple[int, list[str], dict[str, object]]:
    """SQL statements, graphql-core's runs and the data of one execution."""
    stats = QueryStats()
    token = current_stats.set(stats)
    try:
        context = Context(db=db, user=SHOP, request_id="t", log_dir=Path("/nonexistent"), work_dir=Path("/x"))
        with Counted() as counted:
            result = await schema.execute(document, context_value=context)
    finally:
        current_stats.reset(token)
    assert stats.graphql_paths == [COMPILED], result.errors
    return stats.statements, counted.runs, result.data or {}


async def test_heavy_aliases_and_a_failing_field_execute_once(db: Database) -> None:
    # The audit's case: 30 aliases of a heavy field and one field that fails. The compiled run answers the
    # error itself: the statements are those of the aliases plus those of the failing field, not twice.
    schema = compiled_schema()
    aliases = " ".join(f"a{i}: " + HEAVY.format() for i in range(30))
    heavy, runs, data = await _statements(schema, db, f"{{ {aliases} }}")
    failing, _, _ = await _statements(schema, db, f"{{ {FAILING} }}")
    both, runs_both, data_both = await _statements(schema, db, f"{{ {aliases} {FAILING} }}")
    assert heavy > 30 and failing >= 1
    assert both == heavy + failing
    assert runs == runs_both == []  # graphql-core's executor never ran
    assert data_both == {**data, "article": None}


@pytest.mark.parametrize(
    "document",
    [
        "{ __schema { queryType { name } } }",
        '{ __type(name: "Article") { name fields { name } } }',
        '{ article(number: "A-100") { number } __schema { types { name } } }',
    ],
)
async def test_introspection_runs_through_graphql_core(db: Database, document: str) -> None:
    await assert_same(db, document, path=GRAPHQL_CORE)


async def test_typename_and_aliases_are_compiled(db: Database) -> None:
    document = '{ a: article(number: "A-100") { __typename n: number t: __typename } b: __typename }'
    result = await assert_same(db, document)
    assert result.data == {"a": {"__typename": "Article", "n": "A-100", "t": "Article"}, "b": "Query"}


async def test_skip_and_include_plans_follow_the_variables(db: Database) -> None:
    document = (
        'query($with: Boolean!, $without: Boolean!) { article(number: "A-100") {'
        " number designation @include(if: $with) group @skip(if: $without) } }"
    )
    for given in ({"with": True, "without": False}, {"with": False, "without": True}, {"with": True, "without": True}):
        await assert_same(db, document, given)
    # Three outcomes, three plans of one document.
    assert len(compiled_schema().plans) >= 1


@pytest.mark.parametrize(
    ("document", "path"),
    [
        (ARTICLE, COMPILED),
        ("query($n: String!) { __schema { queryType { name } } article(number: $n) { number } }", GRAPHQL_CORE),
    ],
)
async def test_a_request_is_freed_by_reference_counting_once_answered(db: Database, document: str, path: str) -> None:
    """graphql-core's executor refers to itself (its resolve-info helpers are its bound methods); unless that
    cycle is broken when the response is built, the request's context, its loaders and every record they
    read wait for the cyclic collector, which then walks them while other requests run. (The collector is
    only switched off, not run: it would finalise what earlier tests left to it here.)"""
    gc.disable()
    try:
        context = Context(
            db=db, user=SHOP, request_id="freed", log_dir=Path("/nonexistent"), work_dir=Path("/nonexistent")
        )
        stats = QueryStats()
        token = current_stats.set(stats)
        try:
            result = await compiled_schema().execute(document, variable_values={"n": "A-100"}, context_value=context)
        finally:
            current_stats.reset(token)
        assert result.errors is None
        assert stats.graphql_paths == [path]
        freed = weakref.ref(context)
        del context, result
        assert freed() is None
    finally:
        gc.enable()


async def test_a_mutation_runs_once_through_graphql_core(db: Database) -> None:
    document = "mutation { logFilesDelete { deletedCount } }"
    result, paths = await execute(compiled_schema(), db, document)
    assert paths == [GRAPHQL_CORE]
    assert result.errors is not None  # the shop scope may not delete log files
    assert result.errors[0].extensions == {"code": "insufficient_scope"}


async def test_a_document_is_validated_once_across_requests(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    validated: list[object] = []

    def counting(*args: object, **kwargs: object) -> object:
        validated.append(args[1])
        return validate(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(strawberry_schema_module, "validate", counting)
    document = '{ article(number: "A-100") { number unit } }'
    for _ in range(3):
        await execute(compiled_schema(), db, document)
    assert len(validated) == 1


async def test_the_limits_apply_before_anything_runs(db: Database) -> None:
    aliases = " ".join(f"a{i}: __typename" for i in range(31))
    result, paths = await execute(compiled_schema(), db, f"{{ {aliases} }}")
    assert paths == []  # no executor ran
    assert result.errors is not None
    assert [e.message for e in result.errors] == ["31 aliases found. Allowed: 30"]
    tokens = "{ " + "__typename " * 5000 + "}"
    result, paths = await execute(compiled_schema(), db, tokens)
    assert paths == []
    assert result.errors is not None
    assert [e.message for e in result.errors] == [
        "Syntax Error: Document contains more than 5000 tokens. Parsing aborted."
    ]
