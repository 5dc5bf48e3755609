"""Introspection is bounded like any other work (schema/limits/introspection.py): one walk of the schema per
operation, and its lists cost what the schema holds, so that 29 aliases of a full walk (1.5 KB of document,
4 MB of answer, ~2 s of the event loop) are refused before anything runs, and GraphiQL's or a code
generator's introspection query keeps working for every scope."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from graphql import ExecutionResult, OperationDefinitionNode, execute, get_introspection_query, parse

from schema.limits import DocumentLimits
from schema.limits.cost import CostModel
from schema.limits.rules import validation_rules
from schema.limits.validation import validate
from schema.schema import build_schema
from tests.http import statement_count

GQL = "application/graphql-response+json"
STANDARD = get_introspection_query(
    descriptions=True,
    specified_by_url=True,
    directive_is_repeatable=True,
    schema_description=True,
    input_value_deprecation=True,
)
FULL_ARTICLE = (
    "number designation status unit taxRate attributes { key contents } "
    "packagingUnits { code factor prices { amount minQuantity } stock { warehouse quantity } } "
    "prices { amount minQuantity } stock { warehouse quantity }"
)


async def post(client: httpx.AsyncClient, auth: dict[str, str], query: str) -> httpx.Response:
    return await client.post("/graphql", json={"query": query}, headers=auth | {"Accept": GQL})


@pytest.mark.parametrize("scope", ["catalogue", "shop", "admin"])
async def test_the_standard_introspection_query_works_for_every_scope(
    client: httpx.AsyncClient, token_for: Callable[..., dict[str, str]], scope: str
) -> None:
    response = await post(client, token_for(scope), STANDARD)

    assert response.status_code == 200, response.text
    result = response.json()
    assert "errors" not in result
    names = {t["name"] for t in result["data"]["__schema"]["types"]}
    assert {"Query", "Mutation", "Article", "__Schema"} <= names


async def test_a_second_walk_of_the_schema_is_refused_before_it_runs(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    walk = "types { name fields { name args { name type { name } } type { name } } }"
    query = f"{{ __schema {{ {walk} }} again: __schema {{ {walk} }} }}"

    response = await post(client, auth, query)

    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["message"] == "an operation may walk the schema once: 2 __schema fields found (__schema, again)"
    assert error["extensions"] == {"code": "invalid_request"}
    timing = response.headers["server-timing"]
    assert "compiled" not in timing and "graphql-core" not in timing  # no executor ran


async def test_walks_through_fragments_and_the_same_name_twice(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    # Fields of one response name are one walk (execution merges them); a fragment's count where it is spread.
    once = "{ __schema { queryType { name } } ...Walk } fragment Walk on Query { __schema { types { name } } }"
    twice = (
        "{ ...Walk ... on Query { other: __schema { queryType { name } } } } "
        "fragment Walk on Query { __schema { types { name } } }"
    )

    assert (await post(client, auth, once)).status_code == 200
    refused = await post(client, auth, twice)
    assert refused.status_code == 400
    assert "2 __schema fields found" in refused.json()["errors"][0]["message"]


async def test_introspection_counts_in_the_cost_budget(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    # A page of 550 articles (88,001) fits the budget; with a walk of the schema (20,317) beside it, it does
    # not (the walk cost 1 before).
    page = f"articles(limit: 550) {{ items {{ {FULL_ARTICLE} }} }}"
    walk = STANDARD.replace("query IntrospectionQuery {", f"query IntrospectionQuery {{ {page}")
    assert walk != STANDARD

    alone, beside = await post(client, auth, f"{{ {page} }}"), await post(client, auth, walk)

    assert alone.status_code == 200 and "errors" not in alone.json()
    assert beside.status_code == 400
    [error] = beside.json()["errors"]
    assert error["extensions"] == {"code": "too_expensive", "info": {"cost": 88_001 + 20_317, "budget": 100_000}}
    assert statement_count(beside) == 0


def resolved_fields(value: Any) -> int:
    if isinstance(value, dict):
        return sum(1 + resolved_fields(item) for item in value.values())
    if isinstance(value, list):
        return sum(resolved_fields(item) for item in value)
    return 0


@pytest.mark.parametrize(
    "query",
    [
        STANDARD,
        "{ __schema { types { name fields { name args { name } type { name } } } } }",
    ],
)
def test_a_walk_costs_about_what_it_answers(query: str) -> None:
    # Lists of the introspection at their average entries in this schema, each possible level of a type
    # reference counted: about the fields it resolves, at most a few times as many.
    schema = build_schema()._schema
    document = parse(query)
    [operation] = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    result = execute(schema, document)
    assert isinstance(result, ExecutionResult)  # introspection resolves synchronously
    answered = resolved_fields(result.data)

    cost = CostModel(schema, page_size=1000).cost(document, operation, {})

    assert answered / 2 <= cost <= 4 * answered, (cost, answered)


def test_the_setting_opens_more_walks() -> None:
    schema = build_schema()._schema
    two = parse("{ __schema { queryType { name } } again: __schema { types { name } } }")

    assert validate(schema, two, validation_rules(DocumentLimits(max_schema_walks=2))) == []
    [refused] = validate(schema, two, validation_rules(DocumentLimits()))
    assert refused.message.startswith("an operation may walk the schema once: 2 __schema fields found")
