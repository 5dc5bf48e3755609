"""/graphql request bodies no client can turn into a 5xx: deep nesting, lone surrogates, odd JSON, huge
search texts. Each is answered 400 (or, inside a valid request, a GraphQL error) naming where."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.catalogue_data import Catalogue
from tests.http import body, error

JSON = {"Content-Type": "application/json"}
ARTICLE = "query($n: String!) { article(number: $n) { number } }"


async def post_raw(client: httpx.AsyncClient, auth: dict[str, str], content: bytes) -> httpx.Response:
    return await client.post("/graphql", content=content, headers=auth | JSON)


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


async def test_json_nested_a_thousand_deep_is_a_400(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    # A thousand levels are valid JSON (the standard library's parser raised RecursionError here).
    content = b'{"query": "{ __typename }", "variables": ' + nested(1000) + b"}"
    response = await post_raw(client, auth, content)

    assert response.status_code == 400
    assert body(response) == error(
        "invalid_request",
        "The GraphQL operation's `variables` must be an object or null, if provided.",
        field="variables",
    )


@pytest.mark.parametrize("depth", [1025, 100_000])
async def test_json_nested_past_the_parsers_limit_is_a_400(
    client: httpx.AsyncClient, auth: dict[str, str], depth: int
) -> None:
    response = await post_raw(client, auth, b'{"query": "{ __typename }", "variables": {"x": ' + nested(depth) + b"}}")

    assert response.status_code == 400
    data = body(response)
    assert data["error_description"].startswith("the request is not valid JSON: depth limit exceeded")
    assert data["info"] == {"field": "body"}


@pytest.mark.parametrize(
    ("content", "field"),
    [
        (b'{"query": "' + ARTICLE.encode() + b'", "variables": {"n": "\\udc80"}}', "variables.n"),
        (b'{"query": "' + ARTICLE.encode() + b'", "variables": {"n": "A-1\\ud800x"}}', "variables.n"),
        (b'{"query": "{ __typename }", "extensions": {"a": [1, "\\udfff"]}}', "extensions.a.1"),
        (b'{"query": "{ __typename \\udc80 }"}', "query"),
        (b'{"query": "{ __typename }", "operationName": "\\udc80"}', "operationName"),
    ],
)
async def test_a_lone_surrogate_is_a_400_naming_its_field(
    client: httpx.AsyncClient, auth: dict[str, str], content: bytes, field: str
) -> None:
    response = await post_raw(client, auth, content)

    assert response.status_code == 400
    data = body(response)
    assert data["error"] == "invalid_request"
    assert data["error_description"].startswith("the request is not valid JSON:")
    assert data["info"] == {"field": field}


async def test_a_lone_surrogate_in_get_variables_is_a_400(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    url = f"/graphql?query={quote(ARTICLE)}&variables={quote(json.dumps({'n': chr(0xDC80)}))}"

    response = await client.get(url, headers=auth)

    assert response.status_code == 400
    assert body(response)["info"] == {"field": "n"}  # the variables document itself, as parsed alone


@pytest.mark.parametrize("content", [b"1", b'"query"', b"true", b"null"])
async def test_a_body_that_is_not_an_object_is_a_400(
    client: httpx.AsyncClient, auth: dict[str, str], content: bytes
) -> None:
    response = await post_raw(client, auth, content)

    assert response.status_code == 400
    assert body(response)["error"] == "invalid_request"


async def test_a_huge_search_text_is_an_invalid_request(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    # SQLite refuses LIKE patterns over 50,000 bytes; no designation is longer than 255 characters.
    query = "query($s: String) { articles(filter: {search: $s}) { totalCount } }"
    response = await client.post("/graphql", json={"query": query, "variables": {"s": "x" * 50_000}}, headers=auth)

    assert response.status_code == 200
    result: dict[str, Any] = response.json()
    assert result["data"] is None
    [problem] = result["errors"]
    assert problem["message"] == "search has at most 255 characters"
    assert problem["extensions"] == {"code": "invalid_request", "info": {}, "field": "filter.search"}
