"""The catalogue over /graphql, as frontend developers and analysts use it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.catalogue_data import Catalogue
from tests.factories import Factory
from tests.http import body, statement_count


async def graphql(client: httpx.AsyncClient, headers: dict[str, str], query: str, **variables: Any) -> dict[str, Any]:
    response = await client.post("/graphql", json={"query": query, "variables": variables}, headers=headers)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


PAGE = (
    "query($filter: ArticleFilterInput, $sort: [ArticleSortInput!], $limit: Int, $offset: Int! = 0) {"
    " articles(filter: $filter, sort: $sort, limit: $limit, offset: $offset)"
    " { totalCount items { number } } }"
)


@pytest.mark.parametrize(
    ("variables", "numbers", "total"),
    [
        ({}, ["A-500", "A-600", "A-100", "A-200", "A-300"], 5),
        ({"filter": {"group": "WERKZEUG"}}, ["A-500", "A-100", "A-300"], 3),
        ({"filter": {"articleClass": "HAND"}}, ["A-100"], 1),
        ({"filter": {"search": "chev"}}, ["A-600"], 1),  # the French designation
        ({"filter": {"search": "a-30"}}, ["A-300"], 1),  # the number
        ({"filter": {"search": "100%"}}, [], 0),  # LIKE wildcards are literal
        # Positive stock after reservations in a released warehouse: the hammer (7) and screws.
        ({"filter": {"available": True}}, ["A-100", "A-200"], 2),
        ({"filter": {"available": False}}, ["A-500", "A-600", "A-300"], 3),
        ({"sort": [{"field": "NUMBER", "direction": "DESC"}], "limit": 2}, ["A-600", "A-500"], 5),
        ({"sort": [{"field": "NUMBER"}], "limit": 2, "offset": 3}, ["A-500", "A-600"], 5),
        # These numbers, in the list's order; one that is no exposed article is none.
        ({"filter": {"numbers": ["A-300", "A-999", "A-100"]}}, ["A-100", "A-300"], 2),
        ({"filter": {"numbers": ["A-300", "A-100"], "group": "WERKZEUG"}, "limit": 1}, ["A-100"], 2),
        ({"filter": {"numbers": []}}, [], 0),
    ],
)
async def test_articles_filter_sort_page_and_count(
    client: httpx.AsyncClient,
    catalogue: Catalogue,
    auth: dict[str, str],
    variables: dict[str, Any],
    numbers: list[str],
    total: int,
) -> None:
    result = await graphql(client, auth, PAGE, **variables)
    assert result == {"data": {"articles": {"totalCount": total, "items": [{"number": n} for n in numbers]}}}


@pytest.mark.parametrize(
    ("search", "numbers"),
    [
        ("ölfilter", ["A-700"]),
        ("ÖLF", ["A-700"]),
        ("à huile", ["A-700"]),  # the French designation
        ("étagère", ["A-800"]),
        ("ÉTAG", ["A-800"]),
        ("dÜbel", ["A-600"]),
        ("ö", ["A-700"]),  # nothing ASCII to narrow the rows by
        ("ü", ["A-600"]),
    ],
)
async def test_search_folds_capitals_beyond_ascii_on_every_database(
    client: httpx.AsyncClient,
    catalogue: Catalogue,
    factory: Factory,
    auth: dict[str, str],
    search: str,
    numbers: list[str],
) -> None:
    # SQLite's own lower() knows ASCII only: ÖLFILTER would not contain ölfilter there.
    await factory.article("A-700", designations={"ger": "ÖLFILTER", "fre": "FILTRE À HUILE"})
    await factory.article("A-800", designations={"ger": "ÉTAGÈRE"})
    result = await graphql(client, auth, PAGE, filter={"search": search})
    assert result == {"data": {"articles": {"totalCount": len(numbers), "items": [{"number": n} for n in numbers]}}}
    listed = await graphql(
        client, auth, "query($f: ArticleFilterInput) { articleNumbers(filter: $f) }", f={"search": search}
    )
    assert listed == {"data": {"articleNumbers": numbers}}


NUMBERS = (
    "query($filter: ArticleFilterInput, $sort: [ArticleSortInput!], $limit: Int, $offset: Int! = 0,"
    " $language: String, $customer: String) { articleNumbers(filter: $filter, sort: $sort, limit: $limit,"
    " offset: $offset, language: $language, customerNumber: $customer) }"
)


@pytest.mark.parametrize(
    "variables",
    [
        {},
        {"filter": {"group": "WERKZEUG"}},
        {"filter": {"available": False}, "sort": [{"field": "NUMBER", "direction": "DESC"}]},
        {"limit": 2, "offset": 1},
        {"language": "fre"},
        {"language": "eng", "sort": [{"field": "DESIGNATION", "direction": "DESC"}]},
        {"filter": {"numbers": ["A-600", "A-100"]}},
    ],
)
async def test_article_numbers_are_those_of_the_page_in_its_order(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], variables: dict[str, Any]
) -> None:
    page = PAGE.replace("$offset: Int! = 0)", "$offset: Int! = 0, $language: String)").replace(
        "offset: $offset)", "offset: $offset, language: $language)"
    )
    items = (await graphql(client, auth, page, **variables))["data"]["articles"]["items"]
    result = await graphql(client, auth, NUMBERS, **variables)
    assert result == {"data": {"articleNumbers": [item["number"] for item in items]}}


async def test_article_numbers_sort_in_the_customers_language(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    french = await graphql(client, auth, NUMBERS, language="fre")
    assert french != await graphql(client, auth, NUMBERS)
    # 100001 writes French: it wins over the language asked for, as in `articles`.
    assert await graphql(client, auth, NUMBERS, customer="100001", language="ita") == french
    [error] = (await graphql(client, auth, NUMBERS, customer="999999"))["errors"]
    assert error["extensions"]["code"] == "not_found"


@pytest.mark.parametrize(
    ("language", "numbers"),
    [
        # Marteau, Vis, Zange (no French text: the German one), Foret, Cheville.
        ("fre", ["A-600", "A-500", "A-100", "A-200", "A-300"]),
        # Only the hammer has an English text (Claw hammer); the others sort by their German ones.
        ("eng", ["A-500", "A-100", "A-600", "A-200", "A-300"]),
        # A language no designation is written in sorts as German, as its texts fall back to German.
        ("spa", ["A-500", "A-600", "A-100", "A-200", "A-300"]),
    ],
)
async def test_designations_sort_in_the_output_language(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], language: str, numbers: list[str]
) -> None:
    query = "query($l: String) { articles(language: $l, sort: [{field: DESIGNATION}]) { items { number } } }"
    result = await graphql(client, auth, query, l=language)
    assert [item["number"] for item in result["data"]["articles"]["items"]] == numbers
    descending = query.replace("DESIGNATION}", "DESIGNATION, direction: DESC}")
    result = await graphql(client, auth, descending, l=language)
    assert [item["number"] for item in result["data"]["articles"]["items"]] == numbers[::-1]


@pytest.mark.parametrize(
    ("limit", "offset", "more"),
    [(2, 0, True), (4, 0, True), (5, 0, False), (2, 3, False), (2, 2, True), (None, 0, False), (0, 0, True)],
)
async def test_has_next_page_is_read_with_the_page_and_nothing_is_counted_unless_asked(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], limit: int | None, offset: int, more: bool
) -> None:
    query = "query($limit: Int, $offset: Int!) { articles(limit: $limit, offset: $offset) { hasNextPage %s } }"
    variables = {"limit": limit, "offset": offset}
    plain = await client.post("/graphql", json={"query": query % "", "variables": variables}, headers=auth)
    assert plain.json() == {"data": {"articles": {"hasNextPage": more}}}
    counted = await client.post("/graphql", json={"query": query % "totalCount", "variables": variables}, headers=auth)
    assert counted.json() == {"data": {"articles": {"hasNextPage": more, "totalCount": 5}}}
    assert statement_count(counted) == statement_count(plain) + 1


async def test_article_in_another_language_currency_and_customer(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    query = """{ article(number: "A-100", language: "ita", currency: "EUR") {
        designation currency taxRate stockManaged modifiedAt
        prices { amount minQuantity maxQuantity priceKind } } }"""
    assert await graphql(client, auth, query) == {
        "data": {
            "article": {
                "designation": "Martello",
                "currency": "EUR",
                "taxRate": 2.6,
                "stockManaged": True,
                "modifiedAt": "2026-03-01T08:30:00Z",
                "prices": [{"amount": 13.0, "minQuantity": 1.0, "maxQuantity": None, "priceKind": "N"}],
            }
        }
    }
    unexposed = await graphql(client, auth, '{ article(number: "A-400") { number } }')
    assert unexposed == {"data": {"article": None}}


async def test_domain_errors_carry_code_and_field(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    result = await graphql(client, auth, '{ article(number: "A-100", currency: "XXY") { number } }')
    assert result["data"] == {"article": None}
    assert [(e["message"], e["extensions"]) for e in result["errors"]] == [
        (
            "'XXY' is not an ISO 4217 currency code",
            {"code": "invalid_request", "info": {"field": "currency"}, "field": "currency"},
        )
    ]
    result = await graphql(client, auth, "{ articles(limit: -1) { totalCount } }")
    assert result["errors"][0]["extensions"] == {
        "code": "invalid_request",
        "info": {"field": "limit"},
        "field": "limit",
    }


async def test_catalogue_scope_reads_but_cannot_delete_logs(
    client: httpx.AsyncClient, catalogue: Catalogue, token_for: Callable[..., dict[str, str]]
) -> None:
    reader = token_for("catalogue")
    assert (await graphql(client, reader, "{ articles { totalCount } }")) == {"data": {"articles": {"totalCount": 5}}}
    result = await graphql(client, reader, "mutation { logFilesDelete { deletedCount } }")
    assert result["data"] is None
    assert [(e["message"], e["extensions"]) for e in result["errors"]] == [
        ("the admin scope is required", {"code": "insufficient_scope"})
    ]
    admin = await graphql(client, token_for("admin"), "mutation { logFilesDelete { deletedCount } }")
    assert admin["data"]["logFilesDelete"]["deletedCount"] >= 0


async def test_a_user_without_scopes_reads_nothing(
    client: httpx.AsyncClient, catalogue: Catalogue, token_for: Callable[..., dict[str, str]]
) -> None:
    for scopes in (("unknown-scope",), ("metrics",)):
        # Refused at the door, before GraphQL: a token without the catalogue scope runs no operation.
        response = await client.post(
            "/graphql", json={"query": "{ articles { totalCount } }"}, headers=token_for(*scopes)
        )
        assert response.status_code == 403
        assert body(response)["error"] == "insufficient_scope"


@pytest.mark.parametrize(
    ("query", "message_part"),
    [
        ("{ articles { items { " + "a { " * 10 + "b" + " }" * 12 + " }", "exceeds maximum operation depth"),
        ("{ " + " ".join(f"a{i}: articles {{ totalCount }}" for i in range(31)) + " }", "aliases"),
        ("{ articles { totalCount " + "__typename " * 5000 + "} }", "token"),
        ("{ articles { nope } }", "Cannot query field 'nope'"),
        ("{ articles { ", "Syntax Error"),
    ],
)
async def test_abusive_or_invalid_documents_are_refused_before_execution(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], query: str, message_part: str
) -> None:
    response = await client.post("/graphql", json={"query": query}, headers=auth)
    errors = response.json()["errors"]
    assert message_part.lower() in errors[0]["message"].lower()
    assert errors[0]["extensions"]["code"] == "invalid_request"
    assert 'db;dur=0.0;desc="0 queries"' in response.headers["server-timing"]


async def test_nul_in_a_graphql_variable_is_invalid_input(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    result = await graphql(
        client,
        auth,
        "query($f: ArticleFilterInput) { articles(filter: $f) { totalCount } }",
        f={"search": "a\x00"},
    )
    assert result["errors"][0]["extensions"] == {"code": "invalid_request", "info": {}}


@pytest.mark.parametrize(
    ("content", "headers", "status", "code"),
    [
        (b"{not json", {"Content-Type": "application/json"}, 400, "invalid_request"),
        (b"query=x", {"Content-Type": "text/plain"}, 415, "unsupported_media_type"),
    ],
)
async def test_graphql_transport_errors_have_the_error_body(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    content: bytes,
    headers: dict[str, str],
    status: int,
    code: str,
) -> None:
    response = await client.post("/graphql", content=content, headers=auth | headers)
    assert response.status_code == status
    data = body(response)
    assert data["success"] is False
    assert data["error"] == code
