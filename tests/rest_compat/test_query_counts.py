"""SQL statements per request must not grow with the page size (no N+1 anywhere in a list)."""

from __future__ import annotations

import httpx
import pytest

from tests.factories import Factory, unit
from tests.http import statement_count

ARTICLES = 24


@pytest.fixture
async def many_articles(factory: Factory) -> None:
    await factory.reference_data()
    warehouse = await factory.warehouse("Hauptlager", 1)
    for index in range(ARTICLES):
        with_units = index % 2 == 0
        article = await factory.article(
            f"Q-{index:03d}",
            designations={"ger": f"Artikel {index}", "fre": f"Article {index}"},
            units=[unit("STK"), unit("KAR", "10")] if with_units else [],
            attributes={"WEBSHOPVPE": "KAR"} if index % 4 == 0 else {},
        )
        code = "KAR" if with_units else None
        await factory.price(article, "5.00", unit=code)
        await factory.price(article, "4.00", unit=code, min_quantity="10")
        await factory.stock(article, warehouse, "7", unit=code, reserved=["1"])
        await factory.declaration(article, "ger", designation1="Schweiz")
        await factory.media(article, f"{index}.txt", text="Text", text_format="txt")


@pytest.mark.parametrize(
    ("path", "statements"),
    [
        ("/www/artikel", 9),
        # A given currency spares the look-up of the leading one.
        ("/www/artikel?debinr=&waehrabk=EUR&adrsprache=fre", 8),
    ],
)
async def test_article_list_statements_do_not_grow_with_the_page(
    client: httpx.AsyncClient, many_articles: None, auth: dict[str, str], path: str, statements: int
) -> None:
    separator = "&" if "?" in path else "?"
    counts = []
    for limit in (1, 6, ARTICLES):
        response = await client.get(f"{path}{separator}limit={limit}", headers=auth)
        assert response.status_code == 200
        counts.append(statement_count(response))
    assert counts == [statements] * 3


async def test_graphql_article_page_statements_do_not_grow_with_the_page(
    client: httpx.AsyncClient, many_articles: None, auth: dict[str, str]
) -> None:
    query = """query($limit: Int) { articles(limit: $limit) { items {
        number designation attributes { key } declarations { number } media { id }
        packagingUnits { code prices { amount } stock { quantity } }
        prices { amount } stock { quantity } } } }"""
    counts = []
    for limit in (2, 12, ARTICLES):
        response = await client.post("/graphql", json={"query": query, "variables": {"limit": limit}}, headers=auth)
        assert "errors" not in response.json()
        assert len(response.json()["data"]["articles"]["items"]) == limit
        counts.append(statement_count(response))
    # Leading currency, price lists, the page; designations, attributes, declarations, media,
    # packaging, prices, stock: one each.
    assert counts == [10, 10, 10]
