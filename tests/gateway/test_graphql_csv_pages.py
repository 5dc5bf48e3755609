"""The whole catalogue as one CSV answer (gateway/graphql_csv_pages.py), in process, with pages of two articles:
the rows are the JSON pages' concatenated, field for field; a page asked for stays a page."""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager

from gateway.app import create_app
from gateway.graphql_csv import MAX_INDEX
from gateway.settings import Settings
from schema.limits import DocumentLimits
from tests.catalogue_data import Catalogue
from tests.gateway.test_graphql_csv import flattened

PAGE_SIZE = 2
ITEMS = (
    "number designation group weight stockManaged prices { amount minQuantity }"
    " packagingUnits { code factor prices { amount } }"
)


@pytest.fixture
async def small_pages(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    limits = dataclasses.replace(DocumentLimits(), page_size=PAGE_SIZE)
    app = create_app(dataclasses.replace(settings, document_limits=limits))
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            yield http


async def post(
    client: httpx.AsyncClient, auth: dict[str, str], query: str, accept: str = "text/csv", **variables: Any
) -> httpx.Response:
    body = {"query": query, "variables": variables}
    return await client.post("/graphql", json=body, headers={**auth, "Accept": accept})


def csv_rows(answer: httpx.Response) -> list[dict[str, str]]:
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "text/csv; charset=utf-8; header=present"
    return list(csv.DictReader(io.StringIO(answer.content.decode("utf-8"), newline="")))


async def json_pages(client: httpx.AsyncClient, auth: dict[str, str], arguments: str, items: str) -> list[Any]:
    """Every item of `articles(arguments)`, paged through with offset as a JSON client would."""
    query = f"query($offset: Int!) {{ articles({arguments} offset: $offset) {{ items {{ {items} }} }} }}"
    found: list[Any] = []
    while True:
        page = (await post(client, auth, query, "application/json", offset=len(found))).json()
        found += page["data"]["articles"]["items"]
        if len(page["data"]["articles"]["items"]) < PAGE_SIZE:
            return found


def same_cells(rows: list[dict[str, str]], items: list[Any]) -> None:
    assert len(rows) == len(items)
    for row, item in zip(rows, items, strict=True):
        leaves = {path: text for path, text in flattened(item).items() if text}
        assert {path: text for path, text in row.items() if text} == leaves


@pytest.mark.parametrize(
    "arguments", ["sort: [{field: NUMBER}]", "", 'sort: [{field: GROUP, direction: DESC}] language: "fre"']
)
async def test_the_whole_list_is_the_json_pages_concatenated(
    small_pages: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], arguments: str
) -> None:
    query = (
        f"{{ articles({arguments}) {{ items {{ {ITEMS} }} }} }}"
        if arguments
        else f"{{ articles {{ items {{ {ITEMS} }} }} }}"
    )
    rows = csv_rows(await post(small_pages, auth, query))
    items = await json_pages(small_pages, auth, arguments, ITEMS)
    assert len(items) == 5 > PAGE_SIZE  # three pages
    same_cells(rows, items)


async def test_the_header_is_the_selection_read_from_the_schema(
    small_pages: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    """Known before the first row: every leaf selected, a list inside an item spread to MAX_INDEX entries,
    whatever the items hold; aliases and fragments as the JSON answer names and orders its fields."""
    query = (
        "query { list: articles(sort: [{field: NUMBER}], limit: 0) { totalCount items { ...Ids"
        " tiers: prices { amount } } } } fragment Ids on Article { nr: number designation }"
    )
    answer = await post(small_pages, auth, query)
    header = next(csv.reader(io.StringIO(answer.text)))
    assert header == ["nr", "designation", *(f"tiers.{index}.amount" for index in range(MAX_INDEX))]
    assert [row["nr"] for row in csv_rows(answer)] == ["A-100", "A-200", "A-300", "A-500", "A-600"]


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        ("{ articleNumbers(sort: [{field: NUMBER}]) }", {}),
        ("query($n: Int) { articleNumbers(sort: [{field: NUMBER}], limit: $n) }", {"n": 0}),
        ("query($n: Int, $o: Int!) { articleNumbers(sort: [{field: NUMBER}], limit: $n, offset: $o) }", {"o": 0}),
    ],
)
async def test_article_numbers_whole(
    small_pages: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], query: str, variables: dict[str, Any]
) -> None:
    answer = await post(small_pages, auth, query, **variables)
    assert answer.content == b"articleNumbers\r\nA-100\r\nA-200\r\nA-300\r\nA-500\r\nA-600\r\n"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("{ articleNumbers(sort: [{field: NUMBER}], limit: 2) }", "articleNumbers\r\nA-100\r\nA-200\r\n"),
        ("{ articleNumbers(sort: [{field: NUMBER}], offset: 3) }", "articleNumbers\r\nA-500\r\nA-600\r\n"),
        # The first list is not a catalogue list: the answer is that list, as before.
        (
            '{ article(number: "A-100") { prices { amount } } articleNumbers(sort: [{field: NUMBER}]) }',
            "amount\r\n12.5\r\n11.0\r\n9.9\r\n",
        ),
    ],
)
async def test_a_page_asked_for_stays_one_result(
    small_pages: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], query: str, expected: str
) -> None:
    answer = await post(small_pages, auth, query)
    assert answer.status_code == 200, answer.text
    assert answer.text == expected


async def test_json_keeps_its_page_size(
    small_pages: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    answer = await post(small_pages, auth, "{ articles { items { number } } }", "application/json")
    assert len(answer.json()["data"]["articles"]["items"]) == PAGE_SIZE


async def test_errors_before_the_first_row_keep_their_status(
    small_pages: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    answer = await post(small_pages, auth, '{ articles(language: "xx") { items { number } } }')
    assert answer.status_code == 406, answer.text
    assert answer.json()["errors"][0]["extensions"]["code"] == "invalid_request"


async def test_get_answers_the_whole_list_too(
    small_pages: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    params = {"query": "{ articleNumbers(sort: [{field: NUMBER}]) }"}
    answer = await small_pages.get("/graphql", params=params, headers={**auth, "Accept": "text/csv; bom=1"})
    assert answer.content == b"\xef\xbb\xbfarticleNumbers\r\nA-100\r\nA-200\r\nA-300\r\nA-500\r\nA-600\r\n"


async def test_the_operation_named_with_its_variables(
    small_pages: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    """Every page is the client's operation with the client's variables (the filter, @include) but its page."""
    query = (
        "query Other { articleNumbers(limit: 1) }"
        " query Tools($group: String, $designations: Boolean!) { articles(filter: {group: $group},"
        " sort: [{field: NUMBER}]) { items { number designation @include(if: $designations) group } } }"
    )
    body = {"query": query, "operationName": "Tools", "variables": {"group": "WERKZEUG", "designations": False}}
    answer = await small_pages.post("/graphql", json=body, headers={**auth, "Accept": "text/csv"})
    assert answer.status_code == 200, answer.text
    assert answer.text.splitlines()[0] == "number,group"
    assert len(answer.text.splitlines()) == 1 + 3 > 1 + PAGE_SIZE  # the three tools, over two pages
    assert all(line.endswith(",WERKZEUG") for line in answer.text.splitlines()[1:])
