"""/graphql as GraphQL over HTTP describes it: application/graphql-response+json for clients that ask for
it (request errors 400 without `data`), application/json and 200 for the others, mutations never by GET,
the request's media type matched exactly, and 503 when the database is away."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import exc

from datasources.catalogue import article_view
from tests.catalogue_data import Catalogue

GQL = "application/graphql-response+json"
pytestmark = pytest.mark.usefixtures("catalogue")


async def post(client: httpx.AsyncClient, auth: dict[str, str], accept: str, **payload: Any) -> httpx.Response:
    return await client.post("/graphql", json=payload, headers=auth | {"Accept": accept})


@pytest.mark.parametrize(
    ("payload", "message_start"),
    [
        ({"query": "{ articles { "}, "Syntax Error"),  # does not parse
        ({"query": "{ nope }"}, "Cannot query field 'nope'"),  # does not validate
        ({"query": "query($n: String!) { article(number: $n) { number } }", "variables": {"n": 1}}, "Variable '$n'"),
    ],
)
async def test_request_errors_are_400_without_data_for_graphql_response_json(
    client: httpx.AsyncClient, auth: dict[str, str], payload: dict[str, Any], message_start: str
) -> None:
    response = await post(client, auth, GQL, **payload)

    assert response.status_code == 400
    assert response.headers["content-type"] == GQL
    result = response.json()
    assert "data" not in result
    assert result["errors"][0]["message"].startswith(message_start)

    legacy = await post(client, auth, "application/json", **payload)
    assert legacy.status_code == 200
    assert legacy.headers["content-type"] == "application/json"
    assert legacy.json()["data"] is None


@pytest.mark.parametrize(
    ("accept", "media_type"),
    [
        (GQL, GQL),
        (f"{GQL}, application/json;q=0.9", GQL),
        (f"application/json, {GQL};q=0.5", "application/json"),
        ("application/json", "application/json"),
        ("*/*", "application/json"),
        ("", "application/json"),
    ],
)
async def test_the_response_media_type_follows_accept(
    client: httpx.AsyncClient, auth: dict[str, str], accept: str, media_type: str
) -> None:
    response = await post(client, auth, accept, query='{ article(number: "A-100") { number } }')

    assert response.status_code == 200
    assert response.headers["content-type"] == media_type
    assert response.json() == {"data": {"article": {"number": "A-100"}}}


@pytest.mark.parametrize("accept", [GQL, "application/json"])
async def test_a_field_error_is_200_with_data_under_either_media_type(
    client: httpx.AsyncClient, auth: dict[str, str], accept: str
) -> None:
    query = '{ a: article(number: "A-100") { number } b: article(number: "A-100", currency: "QQQ") { number } }'
    response = await post(client, auth, accept, query=query)

    assert response.status_code == 200
    assert response.headers["content-type"] == accept
    assert response.json() == {
        "data": {"a": {"number": "A-100"}, "b": None},
        "errors": [
            {
                "message": "'QQQ' is not an ISO 4217 currency code",
                "locations": [{"line": 1, "column": 42}],
                "path": ["b"],
                "extensions": {"code": "invalid_request", "info": {"field": "currency"}, "field": "currency"},
            }
        ],
    }


@pytest.mark.parametrize("accept", [GQL, "application/json"])
async def test_a_field_error_that_nulls_all_data_keeps_data_under_either_media_type(
    client: httpx.AsyncClient, auth: dict[str, str], accept: str
) -> None:
    # mediaContent is non-null: its error nulls the whole of data, which is still a response with data (200
    # and a "data" entry), not a request error.
    query = '{ article(number: "A-100") { number } mediaContent(id: 999999) { fileName } }'
    response = await post(client, auth, accept, query=query)

    assert response.status_code == 200
    assert response.headers["content-type"] == accept
    assert response.json() == {
        "data": None,
        "errors": [
            {
                "message": "media record 999999 does not exist",
                "locations": [{"line": 1, "column": 39}],
                "path": ["mediaContent"],
                "extensions": {"code": "not_found", "info": {"field": "id"}, "field": "id"},
            }
        ],
    }


@pytest.mark.parametrize("accept", [GQL, "application/json"])
async def test_a_success_body_is_pure_ascii_under_either_media_type(
    client: httpx.AsyncClient, auth: dict[str, str], accept: str
) -> None:
    response = await post(client, auth, accept, query='{ article(number: "A-600") { designation } }')

    assert response.status_code == 200
    assert response.headers["content-type"] == accept
    assert response.content == b'{"data":{"article":{"designation":"D\\u00fcbel"}}}'
    assert response.json() == {"data": {"article": {"designation": "D\u00fcbel"}}}


@pytest.mark.parametrize("method", ["GET", "HEAD"])
async def test_a_mutation_by_get_is_405(client: httpx.AsyncClient, token_for: Any, method: str) -> None:
    response = await client.request(
        method, "/graphql", params={"query": "mutation { logFilesDelete { deletedCount } }"}, headers=token_for("admin")
    )

    assert response.status_code == 405
    assert response.headers["allow"] == "POST"  # only a POST may change data
    assert response.content == b"" if method == "HEAD" else response.json()["error"] == "method_not_allowed"


async def test_head_is_answered_like_get_without_a_body(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    params = {"query": '{ article(number: "A-100") { number } }'}
    get = await client.get("/graphql", params=params, headers=auth)
    head = await client.head("/graphql", params=params, headers=auth)

    assert get.status_code == head.status_code == 200
    assert get.json() == {"data": {"article": {"number": "A-100"}}}
    assert head.headers["content-type"] == get.headers["content-type"]
    assert head.headers["content-length"] == get.headers["content-length"]
    assert head.content == b""

    page = await client.head("/graphql", headers={"Accept": "text/html"})  # GraphiQL
    assert (page.status_code, page.headers["content-type"]) == (200, "text/html; charset=utf-8")


@pytest.mark.parametrize("method", ["PUT", "PATCH", "DELETE"])
async def test_every_405_of_graphql_lists_the_methods_it_serves(
    client: httpx.AsyncClient, auth: dict[str, str], method: str
) -> None:
    response = await client.request(method, "/graphql", headers=auth)

    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD, POST"
    assert (await client.head("/graphql", params={"query": "{ __typename }"}, headers=auth)).status_code == 200


@pytest.mark.parametrize(
    "content_type", ["application/jsonx", "text/plain", "application/json; charset=iso-8859-1", "application/x-json"]
)
async def test_the_request_media_type_is_matched_exactly(
    client: httpx.AsyncClient, auth: dict[str, str], content_type: str
) -> None:
    response = await client.post(
        "/graphql", content=b'{"query": "{ __typename }"}', headers=auth | {"Content-Type": content_type}
    )

    assert response.status_code == 415
    assert response.json()["error"] == "unsupported_media_type"


async def test_a_database_outage_is_503_with_retry_after(
    client: httpx.AsyncClient, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch, catalogue: Catalogue
) -> None:
    async def away(*args: object) -> None:
        raise exc.TimeoutError("QueuePool limit reached")

    monkeypatch.setattr(article_view, "article_with_view", away)
    response = await post(client, auth, "application/json", query='{ article(number: "A-100") { number } }')

    assert response.status_code == 503
    assert response.headers["retry-after"] == "5"
    [error] = response.json()["errors"]
    assert error["extensions"] == {"code": "unavailable", "info": {"retry_after": 5}}
