"""Conditional GETs of /graphql: a GET query over the catalogue's versioned fields (articles, article,
mediaContent), sent as text or as an automatic persisted query's hash, carries a strong ETag read from the
change positions before it runs; If-None-Match with it answers 304 without running it. The ERP writes with
plain SQL on its own connection."""

# The ERP's SQL, made of the test's own ids.
# ruff: noqa: S608

from __future__ import annotations

import hashlib
import json
from typing import Any

import httpx
import pytest

from datasources.database import Database
from schema.catalogue.versions import SUFFIX
from schema.conditional import MAX_FIELDS, VersionOperations
from schema.schema import build_schema
from tests.catalogue_data import Catalogue
from tests.erp import erp
from tests.http import statement_count

PAGE = "query Page($limit: Int) { articles(limit: $limit) { items { number prices { amount } } } }"
ARTICLE = 'query { hammer: article(number: "A-100", language: "fre") { designation } __typename }'


def persisted(document: str) -> str:
    return json.dumps({"persistedQuery": {"version": 1, "sha256Hash": hashlib.sha256(document.encode()).hexdigest()}})


async def get(
    client: httpx.AsyncClient, auth: dict[str, str], held: str | None = None, **params: Any
) -> httpx.Response:
    headers = auth if held is None else {**auth, "If-None-Match": held}
    return await client.get("/graphql", params=params, headers=headers)


async def test_a_get_query_answers_304_until_its_page_changes(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, db: Database
) -> None:
    variables = json.dumps({"limit": 2})
    first = await get(client, auth, query=PAGE, variables=variables)
    assert first.status_code == 200
    assert [item["number"] for item in first.json()["data"]["articles"]["items"]] == ["A-500", "A-600"]
    held = first.headers["etag"]
    assert first.headers["vary"] == "Accept, Accept-Encoding"
    unchanged = await get(client, auth, held, query=PAGE, variables=variables)
    assert (unchanged.status_code, unchanged.content, unchanged.headers["etag"]) == (304, b"", held)
    assert statement_count(unchanged) == 1
    # As on the 200: its tag, Cache-Control (none) and Vary; nothing about a body.
    for name in ("cache-control", "vary"):
        assert unchanged.headers.get(name) == first.headers.get(name), name
    assert "content-type" not in unchanged.headers

    await erp(db, f"UPDATE price SET amount = 1 WHERE article_id = {catalogue.hammer.id}")  # outside the page
    assert (await get(client, auth, held, query=PAGE, variables=variables)).status_code == 304
    await erp(db, f"UPDATE price SET amount = 31 WHERE article_id = {catalogue.drill.id}")
    answer = await get(client, auth, held, query=PAGE, variables=variables)
    assert answer.status_code == 200
    assert answer.json()["data"]["articles"]["items"][0]["prices"] is None  # the drill has WV prices only
    assert answer.headers["etag"] != held
    # Other variables, another answer.
    other = await get(client, auth, answer.headers["etag"], query=PAGE, variables=json.dumps({"limit": 3}))
    assert other.status_code == 200


async def test_a_persisted_query_sent_by_get_answers_304(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, db: Database
) -> None:
    extensions = persisted(ARTICLE)
    missing = await get(client, auth, extensions=extensions)
    assert missing.json()["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_FOUND"
    assert "etag" not in missing.headers
    sent = await get(client, auth, query=ARTICLE, extensions=extensions)
    assert sent.json() == {"data": {"hammer": {"designation": "Marteau"}, "__typename": "Query"}}
    assert "etag" in sent.headers
    by_hash = await get(client, auth, extensions=extensions)
    held = by_hash.headers["etag"]
    unchanged = await get(client, auth, held, extensions=extensions)
    assert unchanged.status_code == 304
    assert statement_count(unchanged) == 1
    head = await client.head("/graphql", params={"extensions": extensions}, headers={**auth, "If-None-Match": held})
    assert head.status_code == 304

    await erp(db, f"UPDATE price SET amount = 1 WHERE article_id = {catalogue.drill.id}")
    assert (await get(client, auth, held, extensions=extensions)).status_code == 304
    await erp(db, f"UPDATE article_designation SET text = 'Marteau de charpentier' WHERE article_id = "
                  f"{catalogue.hammer.id} AND language = 'fre'")  # fmt: skip
    answer = await get(client, auth, held, extensions=extensions)
    assert answer.json()["data"]["hammer"] == {"designation": "Marteau de charpentier"}
    assert answer.headers["etag"] != held


async def test_media_content_answers_304_until_its_record_changes(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, db: Database
) -> None:
    hammer = catalogue.hammer.id
    await erp(db, f"INSERT INTO media (id, article_id, file_name, text, modified_at) VALUES (81, {hammer}, 'a.txt', "
                  "'A', CURRENT_TIMESTAMP)")  # fmt: skip
    query = "{ mediaContent(id: 81) { fileName content } }"
    held = (await get(client, auth, query=query)).headers["etag"]
    assert (await get(client, auth, held, query=query)).status_code == 304
    await erp(db, "UPDATE media SET text = 'B' WHERE id = 81")
    assert (await get(client, auth, held, query=query)).status_code == 200


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ('{ articles(limit: 1) { items { number } } customer(number: "100001") { number } }', "a customer"),
        ("{ articleNumbers(limit: 2) }", "a field without a version"),
        ("{ ...F } fragment F on Query { articles(limit: 1) { items { number } } }", "a fragment at the root"),
        ('{ article(number: "A-999") { number } articles(limit: -1) { hasNextPage } }', "an error"),
        ("{ __typename }", "nothing versioned"),
    ],
)
async def test_other_queries_have_no_tag(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, query: str, why: str
) -> None:
    response = await get(client, auth, "*", query=query)
    assert response.status_code in (200, 400), why
    assert "etag" not in response.headers, why


async def test_posts_have_no_tag(client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue) -> None:
    response = await client.post("/graphql", json={"query": ARTICLE}, headers={**auth, "If-None-Match": "*"})
    assert response.status_code == 200
    assert "etag" not in response.headers


async def test_the_tag_depends_on_the_media_type_asked_for(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue
) -> None:
    query = "{ articles(limit: 3) { items { number designation } } }"
    tags = set()
    for accept in ("application/json", "application/graphql-response+json", "text/csv"):
        response = await client.get("/graphql", params={"query": query}, headers={**auth, "Accept": accept})
        assert response.status_code == 200, accept
        tags.add(response.headers["etag"])
        again = {**auth, "Accept": accept, "If-None-Match": response.headers["etag"]}
        assert (await client.get("/graphql", params={"query": query}, headers=again)).status_code == 304
    assert len(tags) == 3


@pytest.mark.parametrize(
    ("field", "arguments"),
    [
        ("articles", "limit: 2"),
        ("articles", 'limit: 2, offset: 1, sort: [{field: NUMBER, direction: DESC}], language: "fre"'),
        ("articles", 'customerNumber: "100003", currency: "EUR"'),
        ("articles", 'filter: {priceFrom: 5, priceTo: 20}, customerNumber: "100001"'),
        ("articles", 'filter: {group: "WERKZEUG"}, limit: 1'),
        ("articles", 'filter: {search: "a"}, sort: [{field: TAX_RATE, direction: DESC}], language: "ita"'),
        ("articles", "sort: [{field: GROUP}, {field: DESIGNATION, direction: DESC}], limit: 3, offset: 1"),
        ("articles", 'sort: [{field: COLOUR, direction: DESC}, {field: TAX_RATE}], customerNumber: "100003"'),
        ("articles", "sort: [{field: MODIFIED_AT}, {field: NUMBER, direction: DESC}], limit: 4"),
        ("articles", "limit: 0"),
        ("articles", "filter: {numbers: []}"),
        ("article", 'number: "A-100"'),
        ("article", 'number: "A-200", customerNumber: "100001", language: "eng"'),
    ],
)
async def test_a_twin_gives_the_version_its_field_has(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, field: str, arguments: str
) -> None:
    query = f"{{ answer: {field}({arguments}) {{ version }} twin: {field}{SUFFIX}({arguments}) }}"
    response = (await client.post("/graphql", json={"query": query}, headers=auth)).json()
    assert "errors" not in response, response
    assert response["data"]["answer"]["version"] == response["data"]["twin"]


async def test_twins_refuse_what_their_fields_refuse(
    client: httpx.AsyncClient, token_for: Any, catalogue: Catalogue
) -> None:
    for arguments in ('customerNumber: "999999"', 'language: "xx"', 'currency: "EURO"', "limit: -1"):
        query = f"{{ articles({arguments}) {{ version }} }}"
        twin = f"{{ articlesVersion({arguments}) }}"
        shop = token_for("shop")
        field_error = (await client.post("/graphql", json={"query": query}, headers=shop)).json()["errors"][0]
        twin_error = (await client.post("/graphql", json={"query": twin}, headers=shop)).json()["errors"][0]
        assert twin_error["extensions"] == field_error["extensions"], arguments
    refused = await client.post(
        "/graphql", json={"query": '{ articleVersion(number: "A-100", customerNumber: "100001") }'},
        headers=token_for("catalogue"),
    )  # fmt: skip
    assert refused.json()["errors"][0]["extensions"]["code"] == "insufficient_scope"


def test_each_twin_takes_its_fields_arguments() -> None:
    """A twin stands for its field in a client's query (schema/conditional.py): the same arguments, types and
    defaults, so that every query of the field is a query of the twin."""
    fields = build_schema()._schema.query_type.fields  # type: ignore[union-attr]
    twins = {name: name.removesuffix(SUFFIX) for name in fields if name.endswith(SUFFIX)}
    assert sorted(twins.values()) == ["article", "articles", "mediaContent"]
    for twin, field in twins.items():
        ours = {name: (str(arg.type), arg.default_value) for name, arg in fields[twin].args.items()}
        theirs = {name: (str(arg.type), arg.default_value) for name, arg in fields[field].args.items()}
        assert ours == theirs, twin


def test_version_operations() -> None:
    operations = VersionOperations(build_schema()._schema)
    document = """query Page($limit: Int, $withPrices: Boolean!, $unused: String) {
        page: articles(limit: $limit) { items { number prices @include(if: $withPrices) { amount } } }
        article(number: "A-1") @skip(if: $withPrices) { number }
    }
    query Other { customer(number: "1") { number } }"""
    assert operations.of(document, "Page") == (
        "query Page($limit: Int, $withPrices: Boolean!) {\n"
        "  page: articlesVersion(limit: $limit)\n"
        '  article: articleVersion(number: "A-1") @skip(if: $withPrices)\n'
        "}"
    )
    assert operations.of(document, "Other") is None
    assert operations.of(document, None) is None  # two operations, none named
    assert operations.of("{ articles {", None) is None
    assert operations.of("mutation { deleteLogs }", None) is None
    many = "{ " + " ".join(f'a{i}: article(number: "{i}") {{ number }}' for i in range(MAX_FIELDS + 1)) + " }"
    assert operations.of(many, None) is None
