"""/graphql's fast path (gateway/graphql_ready.py): a POST of a query whose document was validated before is
answered without Strawberry's view, byte for byte as the view answers it; everything else still takes the
view. Counted by the path itself, so that neither half can rot unnoticed."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from starlette.routing import Route

from gateway.app import create_app
from gateway.graphql_ready import ReadyAnswers
from gateway.graphql_view import GraphQLView
from gateway.settings import Settings

pytestmark = pytest.mark.usefixtures("catalogue")
GQL = "application/graphql-response+json"
TRIVIAL = {"query": "{ __typename }"}
ARTICLE = '{ article(number: "A-100") { number designation } }'
NOT_FOUND = '{ articleNumbers(limit: 1, customerNumber: "999999") }'  # an error on its field, no data
# Per request, whatever the path: not compared.
PER_REQUEST = {"x-request-id", "server-timing"}


@dataclass
class Gateway:
    client: httpx.AsyncClient
    ready: ReadyAnswers

    async def post(self, auth: dict[str, str], body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
        return await self.client.post("/graphql", json=body, headers=auth | (headers or {}))


@pytest.fixture
async def gateway(settings: Settings) -> AsyncIterator[Gateway]:
    app = create_app(settings)
    [view] = [r.app for r in app.routes if isinstance(r, Route) and isinstance(r.app, GraphQLView)]
    assert view.ready is not None
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            yield Gateway(http, view.ready)


def answer(response: httpx.Response) -> tuple[int, list[tuple[str, str]], bytes]:
    headers = [(name, value) for name, value in response.headers.multi_items() if name not in PER_REQUEST]
    return response.status_code, headers, response.content


def persisted(document: str) -> dict[str, Any]:
    return {"persistedQuery": {"version": 1, "sha256Hash": hashlib.sha256(document.encode()).hexdigest()}}


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        pytest.param(TRIVIAL, {}, id="trivial"),
        pytest.param({"query": ARTICLE}, {"Accept": GQL}, id="graphql-response+json"),
        pytest.param({"query": ARTICLE}, {"Accept": f"{GQL};q=0.5, application/json"}, id="json-preferred"),
        pytest.param(
            {"query": "query($n: String!) { article(number: $n) { number } }", "variables": {"n": "A-200"}},
            {},
            id="variables",
        ),
        pytest.param(
            {"query": 'query A { __typename } query B { article(number: "A-100") { number } }', "operationName": "B"},
            {},
            id="operation-name",
        ),
        pytest.param({"query": NOT_FOUND}, {"Accept": GQL}, id="field-error"),
        pytest.param({"query": NOT_FOUND}, {}, id="field-error-json"),
        pytest.param({"query": ARTICLE, "extensions": {"tracing": None}}, {}, id="other-extensions"),
    ],
)
async def test_a_known_query_is_answered_as_the_view_answers_it(
    gateway: Gateway, auth: dict[str, str], body: dict[str, Any], headers: dict[str, str]
) -> None:
    first = await gateway.post(auth, body, headers)
    assert gateway.ready.answered == 0  # a new document: the view parses and validates it

    again = await gateway.post(auth, body, headers)

    assert gateway.ready.answered == 1
    assert answer(again) == answer(first)
    assert "graphql;dur=" in again.headers["server-timing"]
    assert again.headers["x-request-id"] != first.headers["x-request-id"]


async def test_a_persisted_query_known_by_its_hash_takes_the_fast_path(gateway: Gateway, auth: dict[str, str]) -> None:
    sent = await gateway.post(auth, {"query": ARTICLE, "extensions": persisted(ARTICLE)})
    by_hash = await gateway.post(auth, {"extensions": persisted(ARTICLE)})

    assert gateway.ready.answered == 1
    assert answer(by_hash) == answer(sent)


async def test_a_hash_sent_with_its_known_document_is_kept_by_the_fast_path(
    gateway: Gateway, auth: dict[str, str]
) -> None:
    await gateway.post(auth, {"query": ARTICLE})  # known, but under no hash
    await gateway.post(auth, {"query": ARTICLE, "extensions": persisted(ARTICLE)})
    by_hash = await gateway.post(auth, {"extensions": persisted(ARTICLE)})

    assert gateway.ready.answered == 2
    assert by_hash.json() == {"data": {"article": {"number": "A-100", "designation": "Hammer"}}}


@pytest.mark.parametrize(
    ("request_args", "status"),
    [
        pytest.param({"method": "GET", "params": TRIVIAL}, 200, id="get"),
        pytest.param({"json": TRIVIAL, "headers": {"Accept": "text/csv"}}, 406, id="csv"),
        pytest.param(
            {"content": b'{"query": "{ __typename }"', "headers": {"Content-Type": "application/json"}},
            400,
            id="bad-json",
        ),
        pytest.param(
            {"content": b'{"query": "{ __typename }"}', "headers": {"Content-Type": "text/plain"}}, 415, id="text"
        ),
        pytest.param(
            {
                "content": b'{"query": "{ __typename }"}',
                "headers": {"Content-Type": "application/json; charset=latin-1"},
            },
            415,
            id="latin-1",
        ),
        pytest.param({"json": [TRIVIAL]}, 400, id="batch"),
        pytest.param({"json": {"query": "{ __typename }", "variables": [1]}}, 400, id="variables-not-an-object"),
        pytest.param({"json": {"query": "{ __typename }", "operationName": 1}}, 400, id="operation-name-not-a-string"),
        pytest.param({"json": {"extensions": persisted("{ unknown }")}}, 200, id="unknown-hash"),
        pytest.param({"json": {"query": "{ __typename }", "operationName": "C"}}, 400, id="unknown-operation"),
    ],
)
async def test_what_the_fast_path_does_not_answer_takes_the_view(
    gateway: Gateway, auth: dict[str, str], request_args: dict[str, Any], status: int
) -> None:
    await gateway.post(auth, TRIVIAL)  # its document is known
    await gateway.post(auth, TRIVIAL)
    assert gateway.ready.answered == 1
    arguments = {"method": "POST", **request_args, "headers": auth | request_args.get("headers", {})}

    response = await gateway.client.request(url="/graphql", **arguments)

    assert response.status_code == status
    assert gateway.ready.answered == 1


async def test_a_known_mutation_takes_the_view(gateway: Gateway, auth: dict[str, str]) -> None:
    body = {"query": "mutation { webhookEndpointDelete(id: 999999) { __typename } }"}

    for _ in range(2):
        assert (await gateway.post(auth, body)).status_code == 200

    assert gateway.ready.answered == 0


async def test_a_known_document_over_the_budget_is_refused_by_the_view(gateway: Gateway, auth: dict[str, str]) -> None:
    body = {"query": '{ customer(number: "100001") { orders(limit: 1000000) { number } } }'}

    for _ in range(2):
        response = await gateway.post(auth, body, {"Accept": GQL})
        assert response.status_code == 400
        assert response.json()["errors"][0]["extensions"]["code"] == "too_expensive"

    assert gateway.ready.answered == 0


async def test_without_a_token_nothing_is_answered(gateway: Gateway, auth: dict[str, str]) -> None:
    await gateway.post(auth, TRIVIAL)

    response = await gateway.post({}, TRIVIAL)

    assert response.status_code == 401
    assert gateway.ready.answered == 0
