"""CSV answers of /graphql (gateway/graphql_csv.py): a page as CSV equals its JSON field for field."""

from __future__ import annotations

import csv
import io
from typing import Any

import httpx
import orjson
import pytest

from tests.catalogue_data import Catalogue
from tests.factories import Factory

PAGE = (
    "{ articles(sort: [{field: NUMBER}], limit: 6) { totalCount items { number designation"
    " group weight stockManaged prices { amount minQuantity } packagingUnits { code factor } } } }"
)


def flattened(value: Any, prefix: str = "") -> dict[str, str]:
    """The JSON item's leaves by dotted path, as text (numbers and booleans as JSON writes them)."""
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in flattened(item, f"{prefix}{key}.").items()}
    if isinstance(value, list):
        return {k: v for index, item in enumerate(value) for k, v in flattened(item, f"{prefix}{index}.").items()}
    text = "" if value is None else value if isinstance(value, str) else orjson.dumps(value).decode()
    return {prefix[:-1]: text}


async def post(
    client: httpx.AsyncClient, auth: dict[str, str], query: str, accept: str, url: str = "/graphql"
) -> httpx.Response:
    return await client.post(url, json={"query": query}, headers={**auth, "Accept": accept})


async def test_the_csv_of_a_page_equals_its_json_field_for_field(
    client: httpx.AsyncClient, catalogue: Catalogue, factory: Factory, auth: dict[str, str]
) -> None:
    await factory.article("A-050", designations={"ger": 'Kabel "rot", 3 m\nzweite Zeile'})  # quoted, RFC 4180
    answer = await post(client, auth, PAGE, "text/csv")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "text/csv; charset=utf-8; header=present"
    assert answer.content.startswith(b"number,designation,group,weight,stockManaged,prices.0.amount")
    assert b'"Kabel ""rot"", 3 m\nzweite Zeile"' in answer.content
    assert b"\r\n" in answer.content and "Dübel".encode() in answer.content  # CRLF, UTF-8
    items = (await post(client, auth, PAGE, "application/json")).json()["data"]["articles"]["items"]
    rows = list(csv.DictReader(io.StringIO(answer.content.decode("utf-8"), newline="")))
    assert len(rows) == len(items) == 6
    for row, item in zip(rows, items, strict=True):
        # Every value is its cell; null and "" are both an empty cell, as CSV has no null.
        leaves = {path: text for path, text in flattened(item).items() if text}
        assert {path: text for path, text in row.items() if text} == leaves
    # The screws' three tiers of KAR and STK... the widest item decides the columns; others' cells are empty.
    assert "prices.2.amount" in rows[0]


@pytest.mark.parametrize(
    ("accept", "url", "bom"),
    [
        ("text/csv", "/graphql", False),
        ("text/csv", "/graphql?bom=1", True),
        ("text/csv; bom=1", "/graphql", True),
        ("application/json;q=0.5, text/csv; bom=1; q=0.9", "/graphql", True),
    ],
)
async def test_the_byte_order_mark_is_given_when_asked_for(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], accept: str, url: str, bom: bool
) -> None:
    answer = await post(client, auth, "{ articleNumbers(sort: [{field: NUMBER}], limit: 2) }", accept, url)
    expected = b"articleNumbers\r\nA-100\r\nA-200\r\n"
    assert answer.content == (b"\xef\xbb\xbf" + expected if bom else expected)


async def test_get_answers_csv_too(client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]) -> None:
    query = "{ articleFacets { groups { value count } } }"
    answer = await client.get("/graphql", params={"query": query}, headers={**auth, "Accept": "text/csv"})
    assert answer.content == b"value,count\r\nWERKZEUG,3\r\n,1\r\nBEFESTIG,1\r\n"


async def test_json_ranked_higher_wins(client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]) -> None:
    answer = await post(client, auth, "{ articleNumbers(limit: 1) }", "text/csv;q=0.5, application/json")
    assert answer.headers["content-type"].startswith("application/json")


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ("{ articles { ", 400, None),  # a request error, as graphql-response+json answers it
        ('{ article(number: "A-100") { number } }', 406, "not_acceptable"),  # no list to give
        ("{ articles(limit: -1) { items { number } } }", 406, "invalid_request"),  # a field error
    ],
)
async def test_what_cannot_be_csv_is_answered_as_graphql_json(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], query: str, status: int, code: str | None
) -> None:
    answer = await post(client, auth, query, "text/csv")
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/graphql-response+json")
    errors = answer.json()["errors"]
    if code is not None:
        assert errors[0]["extensions"]["code"] == code
