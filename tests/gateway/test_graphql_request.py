"""/graphql request bodies no client can turn into a 5xx: deep nesting, lone surrogates, odd JSON, huge
search texts. Each is answered 400 (or, inside a valid request, a GraphQL error) naming where."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.catalogue_data import Catalogue
from tests.http import body, error, statement_count

JSON = {"Content-Type": "application/json"}
GQL = "application/graphql-response+json"
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


@pytest.mark.parametrize(
    ("parameter", "value", "field"),
    [
        ("variables", json.dumps({"n": chr(0xDC80)}), "variables.n"),  # named as in a POST body
        ("extensions", json.dumps({"a": [1, chr(0xDFFF)]}), "extensions.a.1"),
        ("variables", '{"n": ', "variables"),
        ("extensions", "[" * 1025 + "]" * 1025, "extensions"),
    ],
)
async def test_get_parameters_that_are_not_json_are_a_400_naming_their_field(
    client: httpx.AsyncClient, auth: dict[str, str], parameter: str, value: str, field: str
) -> None:
    url = f"/graphql?query={quote(ARTICLE)}&{parameter}={quote(value)}"

    response = await client.get(url, headers=auth)

    assert response.status_code == 400
    data = body(response)
    assert data["error_description"].startswith("the request is not valid JSON:")
    assert data["info"] == {"field": field}


@pytest.mark.parametrize("value", [nested(1000).decode(), "[]", "123", '{"a": 1}', "true"])
@pytest.mark.parametrize("part", ["operationName", "query"])
async def test_an_operation_name_or_query_that_is_not_a_string_is_a_400(
    client: httpx.AsyncClient, auth: dict[str, str], part: str, value: str
) -> None:
    # A thousand levels of operationName made Strawberry's message about it recurse past Python's limit: a 500.
    request = {"query": '"{ __typename }"', "operationName": "null", part: value}
    content = "{" + ", ".join(f'"{name}": {json_value}' for name, json_value in request.items()) + "}"

    response = await post_raw(client, auth, content.encode())

    assert response.status_code == 400
    assert body(response) == error(
        "invalid_request", f"The GraphQL operation's `{part}` must be a string or null, if provided.", field=part
    )


async def test_get_variables_null_mean_none(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await client.get("/graphql", params={"query": "{ __typename }", "variables": "null"}, headers=auth)

    assert response.json() == {"data": {"__typename": "Query"}}


@pytest.mark.parametrize("content", [b"1", b'"query"', b"true", b"null"])
async def test_a_body_that_is_not_an_object_is_a_400(
    client: httpx.AsyncClient, auth: dict[str, str], content: bytes
) -> None:
    response = await post_raw(client, auth, content)

    assert response.status_code == 400
    assert body(response)["error"] == "invalid_request"


LONG = "x" * 50_000  # SQLite refuses LIKE patterns over 50,000 bytes; no designation has over 255 characters
SEARCH_ERROR = {
    "message": "search has at most 255 characters",
    "extensions": {
        "code": "invalid_request",
        "info": {"limit": 255, "field": "filter.search"},
        "field": "filter.search",
    },
}


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        ("query($s: String) { articles(filter: {search: $s}) { totalCount } }", {"s": LONG}),
        ("query($f: ArticleFilterInput) { articles(filter: $f) { totalCount } }", {"f": {"search": LONG}}),
        (f'{{ articles(filter: {{search: "{LONG}"}}) {{ totalCount }} }}', {}),
        (f'query($s: String = "{LONG}") {{ articles(filter: {{search: $s}}) {{ totalCount }} }}', {}),
    ],
    ids=["variable", "in an input variable", "written", "the operation's default"],
)
async def test_a_huge_search_text_is_a_request_error_before_anything_runs(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], query: str, variables: dict[str, Any]
) -> None:
    payload = {"query": query, "variables": variables}
    response = await client.post("/graphql", json=payload, headers=auth | {"Accept": GQL})

    assert response.status_code == 400
    assert response.json() == {"errors": [SEARCH_ERROR]}
    assert statement_count(response) == 0

    legacy = await client.post("/graphql", json=payload, headers=auth | {"Accept": "application/json"})
    assert legacy.status_code == 200
    assert legacy.json() == {"data": None, "errors": [SEARCH_ERROR]}


async def test_a_search_text_of_the_longest_designation_is_searched(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    query = "query($s: String) { articles(filter: {search: $s}) { totalCount } }"

    response = await client.post("/graphql", json={"query": query, "variables": {"s": "x" * 255}}, headers=auth)

    assert response.json() == {"data": {"articles": {"totalCount": 0}}}
