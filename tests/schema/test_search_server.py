"""The article search against a real `gateway serve` on the database it migrated: GraphQL finds articles by a
part of their number or designation, and finds what the ERP writes on its own connection, which knows none of
the gateway's functions (the search's index is kept by plain-SQL triggers). On SQLite and, with
GATEWAY_TEST_DATABASE_URL, on PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from tests.server import GatewayServer, running_server

USER, SECRET = "shop", "a-long-secret"
SEARCH = "query($s: String!) { articles(filter: {search: $s}, limit: 20) { totalCount items { number } } }"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    with running_server(tmp_path_factory.mktemp("search"), users=[(USER, SECRET, ["shop"])]) as server:
        yield server


def search(server: GatewayServer, term: str) -> dict[str, Any]:
    response = httpx.post(
        f"{server.base_url}/graphql",
        json={"query": SEARCH, "variables": {"s": term}},
        headers={"Authorization": f"Bearer {server.token(USER, SECRET)}"},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert "errors" not in body, body
    articles: dict[str, Any] = body["data"]["articles"]
    return articles


async def erp_writes(url: str, *statements: str) -> None:
    """Writes on a connection of the ERP's own: no gateway function is registered on it."""
    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:
            for statement in statements:
                await connection.execute(text(statement))
    finally:
        await engine.dispose()


def test_the_search_finds_what_the_erp_writes(server: GatewayServer) -> None:
    assert search(server, "a-000123") == {"totalCount": 1, "items": [{"number": "A-000123"}]}
    assert search(server, "ZAHNRADÖLFILTER") == {"totalCount": 0, "items": []}
    asyncio.run(
        erp_writes(
            server.database.url,
            "UPDATE article_designation SET text = 'Zahnradölfilter Spezial' WHERE language = 'ger' AND "
            "article_id = (SELECT id FROM article WHERE number = 'A-000123')",
            "UPDATE article SET number = 'A-900123' WHERE number = 'A-000123'",
        )
    )
    assert search(server, "ZAHNRADÖLFILTER") == {"totalCount": 1, "items": [{"number": "A-900123"}]}
    assert search(server, "a-900123") == {"totalCount": 1, "items": [{"number": "A-900123"}]}
    assert search(server, "a-000123") == {"totalCount": 0, "items": []}


@pytest.mark.parametrize("term", ["istanbul", "İSTANBUL", "İstanbul teppich", "ΟΔΟΣ", "ΟΔΟΣΗΜΑΝΣΗΣ"])
def test_a_term_beyond_ascii_finds_the_text_as_its_database_folds_it(server: GatewayServer, term: str) -> None:
    """The term is folded where the stored text is (PostgreSQL's lower(), or the gateway's function on SQLite),
    and both fold U+0130 to i and Σ to a plain sigma: whichever database, the text written as it is stored, and
    in other cases, finds it."""
    asyncio.run(
        erp_writes(
            server.database.url,
            "UPDATE article_designation SET text = 'İSTANBUL TEPPICH ΟΔΟΣΗΜΑΝΣΗΣ' WHERE language = 'ger' AND "
            "article_id = (SELECT id FROM article WHERE number = 'A-000124')",
        )
    )
    assert search(server, term) == {"totalCount": 1, "items": [{"number": "A-000124"}]}
