"""A client's query whose document was validated before runs without Strawberry's extensions
(schema/ready.py): the same answers, the same limits, on every request of it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from schema.schema import Schema
from tests.http import statement_count

pytestmark = pytest.mark.usefixtures("catalogue")
GQL = "application/graphql-response+json"
ORDERS = 'query($n: Int!) { customer(number: "100001") { orders(limit: $n) { number } } }'


@pytest.fixture
def strawberry_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many operations took Strawberry's path (its extensions are made once per operation)."""
    runs = [0]
    original = Schema.get_extensions

    def counted(self: Schema, *args: Any, **kwargs: Any) -> Any:
        runs[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Schema, "get_extensions", counted)
    return runs


async def post(client: httpx.AsyncClient, auth: dict[str, str], query: str, **variables: Any) -> httpx.Response:
    body = {"query": query, "variables": variables}
    return await client.post("/graphql", json=body, headers=auth | {"Accept": GQL})


async def test_a_repeated_query_is_answered_the_same_without_the_extensions(
    client: httpx.AsyncClient, auth: dict[str, str], strawberry_runs: list[int]
) -> None:
    query = "{ articles(limit: 3, sort: [{field: NUMBER}]) { items { number designation prices { amount } } } }"

    first = await post(client, auth, query)
    again = await post(client, auth, query)

    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert "errors" not in first.json()
    assert strawberry_runs == [1]  # the first parsed and validated it; the second ran it at once
    assert statement_count(again) == statement_count(first)
    assert "graphql;dur=" in again.headers["server-timing"]


async def test_a_repeated_document_over_the_budget_is_refused_every_time(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    query = '{ customer(number: "100001") { orders(limit: 1000000) { number } } }'

    for _ in range(3):
        response = await post(client, auth, query)

        assert response.status_code == 400
        [error] = response.json()["errors"]
        assert error["extensions"]["code"] == "too_expensive"
        assert statement_count(response) == 0


async def test_the_budget_of_a_ready_document_follows_its_variables(
    client: httpx.AsyncClient, auth: dict[str, str], strawberry_runs: list[int]
) -> None:
    within = await post(client, auth, ORDERS, n=2)
    over = await post(client, auth, ORDERS, n=1_000_000)
    within_again = await post(client, auth, ORDERS, n=2)

    assert within.status_code == within_again.status_code == 200
    assert within_again.json() == within.json()
    assert over.status_code == 400
    [error] = over.json()["errors"]
    assert error["extensions"] == {"code": "too_expensive", "info": {"cost": 1_000_002, "budget": 100_000}}
    assert statement_count(over) == 0
    assert strawberry_runs == [2]  # the first, and the refusal, which Strawberry's path words


async def test_an_input_past_its_bound_in_a_ready_document_is_refused(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    query = "query($s: String) { articles(filter: {search: $s}) { items { number } } }"

    fine = await post(client, auth, query, s="a")
    long = await post(client, auth, query, s="a" * 100_000)

    assert fine.status_code == 200
    assert long.status_code == 400
    [error] = long.json()["errors"]
    assert error["extensions"]["code"] == "invalid_request"
    assert statement_count(long) == 0


async def test_an_operation_name_the_document_lacks_is_refused_as_before(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    query = "query A { __typename } query B { __typename }"
    named = await client.post("/graphql", json={"query": query, "operationName": "A"}, headers=auth)
    unknown = await client.post("/graphql", json={"query": query, "operationName": "C"}, headers=auth)

    assert named.json() == {"data": {"__typename": "Query"}}
    assert unknown.status_code == 400


async def test_a_mutation_by_get_is_still_refused_after_its_document_is_known(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    query = "mutation { webhookEndpointDelete(id: 999999) { __typename } }"

    posted = await client.post("/graphql", json={"query": query}, headers=auth)
    by_get = await client.get("/graphql", params={"query": query}, headers=auth)

    assert posted.status_code == 200
    assert by_get.status_code == 405
