"""Facets and statistics are kept while no article changes (datasources/catalogue/aggregate_cache.py): asked
again, they cost the statement that checks the change stamps (and the one of the caller's price lists). After
a write, the gateway's or the ERP's own on another connection, a filter's are counted again, and the whole
catalogue's are corrected by the articles that changed (datasources/catalogue/digest.py): the change feed and
those articles' facts, whatever the catalogue's size. In process and against a real `gateway serve
--workers 2` (each worker keeps its own), on SQLite and, with GATEWAY_TEST_DATABASE_URL, on PostgreSQL."""

# The ERP's SQL, made of the test's own ids.
# ruff: noqa: S608

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from datasources.database import Database
from tests.catalogue_data import Catalogue
from tests.http import statement_count
from tests.server import GatewayServer, running_server

FACETS = (
    "{ articleFacets%s { total groups { value count } availability { value count } priceBands { from to count }"
    " withoutPrice } }"
)
STATISTICS = "{ articleStatistics(groupBy: GROUP%s) { value count minPrice maxPrice stock withoutPrice } }"
# A filter every article of the test's catalogue matches: its answers are counted, not read off the digest.
EVERY = '{modifiedSince: "2000-01-01T00:00:00Z"}'


async def erp(url: str, *statements: str) -> None:
    """Plain SQL on a connection of the ERP's own."""
    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:
            for statement in statements:
                await connection.execute(text(statement))
    finally:
        await engine.dispose()


async def ask(client: httpx.AsyncClient, auth: dict[str, str], query: str) -> tuple[dict[str, Any], int]:
    response = await client.post("/graphql", json={"query": query}, headers=auth)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert "errors" not in body, body
    return body["data"], statement_count(response)


def caught_up(database_url: str) -> int:
    """Statements of the whole catalogue's answers after a change: the caller's price lists, the change stamps'
    check, the change feed (on PostgreSQL its snapshot first) and the changed articles' facts."""
    return 2 + (2 if database_url.startswith("postgresql") else 1) + 1


@pytest.mark.parametrize("filtered", [False, True], ids=["whole catalogue", "filter"])
async def test_asked_again_they_cost_one_statement_until_the_erp_writes(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    catalogue: Catalogue,
    db: Database,
    database_url: str,
    filtered: bool,
) -> None:
    given = f"(filter: {EVERY})" if filtered else ""
    facets, statistics = FACETS % given, STATISTICS % (f", filter: {EVERY}" if filtered else "")
    first, counted = await ask(client, auth, facets)
    again, checked = await ask(client, auth, facets)
    assert again == first
    assert counted > 2
    assert checked == 2  # the caller's price lists and the change stamps' check, whatever the catalogue's size

    await erp(database_url, f"UPDATE article SET \"group\" = 'BEFESTIG' WHERE id = {catalogue.pliers.id}")
    changed, recounted = await ask(client, auth, facets)
    assert recounted == (counted if filtered else caught_up(database_url))
    groups = {entry["value"]: entry["count"] for entry in changed["articleFacets"]["groups"]}
    before = {entry["value"]: entry["count"] for entry in first["articleFacets"]["groups"]}
    assert (groups["WERKZEUG"], groups["BEFESTIG"]) == (before["WERKZEUG"] - 1, before["BEFESTIG"] + 1)

    await erp(database_url, f"UPDATE price SET amount = 99.00 WHERE article_id = {catalogue.hammer.id}")
    priced, _ = await ask(client, auth, facets)
    assert priced["articleFacets"]["priceBands"] != changed["articleFacets"]["priceBands"]
    (band,) = [band for band in priced["articleFacets"]["priceBands"] if band["count"]]
    assert band["from"] <= 99 < band["to"]

    stats, _ = await ask(client, auth, statistics)
    await erp(
        database_url, f"DELETE FROM article_attribute WHERE key = 'RESTWEBSHOP' AND article_id = {catalogue.drill.id}"
    )
    fewer, _ = await ask(client, auth, statistics)
    assert (
        sum(b["count"] for b in fewer["articleStatistics"]) == sum(b["count"] for b in stats["articleStatistics"]) - 1
    )
    assert (await ask(client, auth, facets))[0]["articleFacets"]["total"] == priced["articleFacets"]["total"] - 1


async def test_a_write_of_an_article_the_shop_does_not_see_keeps_them(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, database_url: str
) -> None:
    """On SQLite the hidden article's price is appended to the change log (change_log.py) all the same: the
    check reads the positions of the articles the shop sees, not the log's greatest."""
    facets = FACETS % ""
    first, _ = await ask(client, auth, facets)
    await erp(database_url, f"UPDATE price SET amount = amount + 1 WHERE article_id = {catalogue.hidden.id}")
    again, checked = await ask(client, auth, facets)
    assert (again, checked) == (first, 2)
    await erp(database_url, f"UPDATE price SET amount = amount + 1 WHERE article_id = {catalogue.hammer.id}")
    assert (await ask(client, auth, facets))[1] == caught_up(database_url)


async def test_a_count_two_fields_ask_for_is_made_once(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, database_url: str
) -> None:
    # priceBands reads the price range to make its nice bands, withoutPrice reads the same range: one count.
    bands_alone = f"{{ articleFacets(filter: {EVERY}) {{ priceBands {{ from to count }} }} }}"
    both = f"{{ articleFacets(filter: {EVERY}) {{ priceBands {{ from to count }} withoutPrice }} }}"
    statements = []
    for query in (bands_alone, both):
        await erp(database_url, f"UPDATE price SET amount = amount + 1 WHERE article_id = {catalogue.hammer.id}")
        statements.append((await ask(client, auth, query))[1])
    assert statements[1] == statements[0] > 2


async def test_a_write_committed_after_an_older_one_began_is_seen_when_both_commit(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, database_url: str
) -> None:
    """On PostgreSQL positions are taken when a transaction writes, not when it commits: a transaction that
    began writing first and commits last must still be seen (on SQLite writers simply follow one another)."""
    facets = FACETS % ""
    first, _ = await ask(client, auth, facets)
    engine = create_async_engine(database_url)
    try:
        async with engine.connect() as early:
            transaction = await early.begin()
            await early.execute(text(f'UPDATE article SET "group" = NULL WHERE id = {catalogue.hammer.id}'))
            if engine.dialect.name == "postgresql":  # SQLite has one writer at a time: the later one waits
                await erp(database_url, f"UPDATE article SET \"group\" = 'BEFESTIG' WHERE id = {catalogue.pliers.id}")
                later, _ = await ask(client, auth, facets)
                assert later != first
            await transaction.commit()
    finally:
        await engine.dispose()
    groups = {e["value"]: e["count"] for e in (await ask(client, auth, facets))[0]["articleFacets"]["groups"]}
    before = {e["value"]: e["count"] for e in first["articleFacets"]["groups"]}
    assert groups[None] == before[None] + 1


USER, SECRET = "analyst", "a-long-secret"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    directory = tmp_path_factory.mktemp("kept-aggregates")
    with running_server(directory, users=[(USER, SECRET, ["catalogue"])], serve_args=["--workers", "2"]) as server:
        yield server


def total(server: GatewayServer) -> int:
    response = httpx.post(
        f"{server.base_url}/graphql",
        json={"query": "{ articleFacets { total } }"},
        headers={"Authorization": f"Bearer {server.token(USER, SECRET)}"},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    found: int = response.json()["data"]["articleFacets"]["total"]
    return found


def test_every_worker_of_a_server_sees_the_erps_write(server: GatewayServer) -> None:
    before = {total(server) for _ in range(8)}  # new connections: both workers answer, and keep their counts
    assert len(before) == 1
    asyncio.run(
        erp(
            server.database.url,
            "DELETE FROM article_attribute WHERE key = 'RESTWEBSHOP' AND article_id = "
            "(SELECT min(article_id) FROM article_attribute WHERE key = 'RESTWEBSHOP')",
        )
    )
    assert {total(server) for _ in range(8)} == {before.pop() - 1}
