"""SQL statements per request must not grow with the page size or with the positions of a document (no N+1
anywhere in a list, no statement per position when one is written)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from datasources.database import Database
from tests import databases
from tests.factories import Factory, unit
from tests.http import body, statement_count
from tests.sales_data import CONTACT_FRE, DELIVERY_FRE, build_shop, new_customer, set_customer

ARTICLES = 24
# A new order's or offer's number, its last statements: taken and set in one on PostgreSQL, in two on SQLite.
NUMBER = 1 if databases.backend() == "postgresql" else 2


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
        # The view (leading currency and price lists in one), the page (with its designations), attributes,
        # packaging, prices, stock.
        ("/www/artikel", 6),
        ("/www/artikel?debinr=&waehrabk=EUR&adrsprache=fre", 6),
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


@pytest.mark.parametrize(
    ("path", "statements"),
    [
        # The view and the article with its designation, in one statement; attributes, packaging, prices,
        # stock, declarations.
        ("/www/artikel/Q-001", 6),
        ("/www/artikel/Q-002?adrsprache=fre&waehrabk=EUR", 6),
        # A customer's language decides the designation: it is read after the view.
        ("/www/artikel/Q-002?debinr=10001", 7),
    ],
)
async def test_a_single_article_reads_its_designation_with_it(
    client: httpx.AsyncClient, factory: Factory, many_articles: None, auth: dict[str, str], path: str, statements: int
) -> None:
    await factory.customer("10001", language="fre")
    response = await client.get(path, headers=auth)
    assert response.status_code == 200, response.text
    assert statement_count(response) == statements


@pytest.mark.parametrize(
    "path",
    [
        "/www/artikel?fields=ArtNr",
        "/www/artikel?debinr=10001&adrsprache=eng&waehrabk=EUR",
        "/www/artikel?sorts=-ArtGruppe,ArtNr&offset=2",
    ],
)
async def test_a_304_is_one_statement_whatever_the_page_size(
    client: httpx.AsyncClient, factory: Factory, many_articles: None, auth: dict[str, str], path: str
) -> None:
    """If-None-Match is decided from the change positions and the view's values alone: one indexed statement,
    whether the page holds 1 article, 6, all of them or the whole list (limit=0)."""
    await factory.customer("10001", language="fre")
    counts = []
    for limit in (1, 6, ARTICLES, 0):
        url = f"{path}&limit={limit}"
        held = (await client.get(url, headers=auth)).headers["etag"]
        response = await client.get(url, headers={**auth, "If-None-Match": held})
        assert response.status_code == 304
        counts.append(statement_count(response))
    assert counts == [1, 1, 1, 1]


@pytest.mark.parametrize(
    "path",
    ["/www/artikel/Q-002", "/www/artikel/Q-002?debinr=10001", "/www/artikelmedia/Q-002", "/www/artikelmediadaten/2"],
)
async def test_a_304_of_an_article_or_its_media_is_one_statement(
    client: httpx.AsyncClient, factory: Factory, many_articles: None, auth: dict[str, str], path: str
) -> None:
    await factory.customer("10001", language="fre")
    held = (await client.get(path, headers=auth)).headers["etag"]
    response = await client.get(path, headers={**auth, "If-None-Match": held})
    assert response.status_code == 304
    assert statement_count(response) == 1


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
    # The view, the page with its designations; attributes, declarations, media, packaging, prices, stock: one
    # each.
    assert counts == [8, 8, 8]


FRONTEND_ARTICLE = "number designation group prices { minQuantity amount }"


@pytest.mark.parametrize(
    ("query", "statements"),
    [
        ("{ __typename }", 0),
        # The article with the view (datasources/catalogue/article_view.py), its packaging units with its prices
        # (unit_prices.py).
        (f'{{ article(number: "Q-001") {{ {FRONTEND_ARTICLE} }} }}', 2),
        (f'{{ article(number: "Q-002", language: "fre") {{ {FRONTEND_ARTICLE} }} }}', 2),
        (f'{{ article(number: "Q-003", customerNumber: "10001") {{ {FRONTEND_ARTICLE} }} }}', 3),  # + designation
        # The view, then the page (what it holds depends on the view), its units with their prices.
        (f"{{ articles(limit: 12, sort: [{{field: NUMBER}}]) {{ items {{ {FRONTEND_ARTICLE} }} }} }}", 3),
        # More than FOLDED_UP_TO (schema/catalogue/loaders.py): units and prices apart, a page ran faster so.
        (f"{{ articles(limit: 24, sort: [{{field: NUMBER}}]) {{ items {{ {FRONTEND_ARTICLE} }} }} }}", 4),
    ],
)
async def test_graphql_frontend_queries_read_the_same_statements_on_every_request(
    client: httpx.AsyncClient,
    factory: Factory,
    many_articles: None,
    auth: dict[str, str],
    query: str,
    statements: int,
) -> None:
    await factory.customer("10001", language="fre")
    # bench/graphql_peer's queries: the first request of a document and its repeats, which run without
    # Strawberry's extensions (schema/ready.py), read alike.
    counts = []
    for _ in range(3):
        response = await client.post("/graphql", json={"query": query}, headers=auth)
        assert "errors" not in response.json()
        counts.append(statement_count(response))
    assert counts == [statements] * 3


# --- writes: a few statements per document, however many positions it has ---------------------------

# One of each kind of position: plain, in a packaging unit with its own text and VisPosNr, discounted.
POSITION_KINDS: list[dict[str, Any]] = [
    {"ArtNr": "A-100", "Menge": 1},
    {"ArtNr": "A-200", "Menge": 24, "VPEinheit": "KAR", "PosBez": "Karton", "VisPosNr": 7},
    {"ArtNr": "A-700", "Menge": 2, "GRabSatz": 5},
]
PAYMENTS = [{"Bezeichnung": "Dienstleister", "Wert": "Datatrans"}, {"Bezeichnung": "TransID"}]


def positions(count: int) -> list[dict[str, Any]]:
    return [POSITION_KINDS[index % len(POSITION_KINDS)] for index in range(count)]


async def write(
    client: httpx.AsyncClient, auth: dict[str, str], method: str, url: str, payload: Any, status: int
) -> tuple[Any, int]:
    response = await client.request(method, url, json=payload, headers=auth)
    assert response.status_code == status, response.text
    return body(response)["data"], statement_count(response)


async def test_an_order_costs_the_same_statements_with_1_or_1000_positions(
    client: httpx.AsyncClient, factory: Factory, auth: dict[str, str]
) -> None:
    await build_shop(factory)
    counts = []
    for count in (1, 1000):
        payload = {"GrundDaten": {"KundNr": "100002"}, "Positionen": positions(count), "Zahlung": PAYMENTS}
        data, statements = await write(client, auth, "POST", "/www/auftrag", payload, 201)
        order = body(await client.get(f"/www/auftrag/{data['AuftNr']}", headers=auth))["data"]
        assert len(order["Positionen"]) == count
        counts.append(statements)
    # The order's first statement (the customer, the event switch, the currency; datasources/sales/opening.py);
    # the view (leading currency, the customer's price list type, price lists); articles (with their tax
    # codes), units, prices, designations; INSERT of the order, of all its positions, of its payments; then the
    # number. The answer is what the order wrote: nothing to read back (the customer has no addresses to read).
    assert counts == [9 + NUMBER, 9 + NUMBER]


async def test_an_offer_costs_the_same_statements_with_1_or_1000_positions(
    client: httpx.AsyncClient, factory: Factory, auth: dict[str, str]
) -> None:
    await build_shop(factory)
    counts = []
    for count in (1, 1000):
        payload = {"GrundDaten": {"KundNr": "100002"}, "Positionen": positions(count)}
        data, statements = await write(client, auth, "POST", "/www/offerte", payload, 201)
        assert len(data["Positionen"]) == count
        counts.append(statements)
    # The customer, the view, the currency; articles, units, prices, designations; INSERT of the offer and of
    # all its positions; the number; the answer read in the transaction (document, positions, payments).
    assert counts == [12 + NUMBER, 12 + NUMBER]


async def test_a_patch_costs_the_same_statements_with_4_or_1000_entries(
    client: httpx.AsyncClient, factory: Factory, auth: dict[str, str]
) -> None:
    """Each PATCH of an offer of N positions deletes the first quarter, changes the second and third (the
    cartons to 4 KAR, the others to 5) and adds a quarter: N entries, N positions after it."""
    await build_shop(factory)
    counts = []
    for count in (4, 1000):
        payload = {"GrundDaten": {"KundNr": "100002"}, "Positionen": positions(count)}
        number = (await write(client, auth, "POST", "/www/offerte", payload, 201))[0]["OffertNr"]
        quarter = count // 4
        changed = range(quarter + 1, count - quarter + 1)
        cartons = {n for n in changed if positions(n)[-1]["ArtNr"] == "A-200"}
        changes = [
            *({"PosNr": n, "Menge": 0} for n in range(1, quarter + 1)),
            *({"PosNr": n, "Menge": 48 if n in cartons else 5} for n in changed),
            *positions(quarter),
        ]
        assert len(changes) == count
        data, statements = await write(
            client, auth, "PATCH", f"/www/offerte?OffertNr={number}", {"Positionen": changes}, 200
        )
        assert [p["PosNr"] for p in data["Positionen"]] == list(range(quarter + 1, count + quarter + 1))
        counts.append(statements)
    # The offer (locked); its positions; the view (the customer's price list type, price lists); articles (with
    # their tax codes, which are those of the kept positions too), units, prices, designations; DELETE, UPDATE
    # and INSERT for all positions; currency; UPDATE of the offer; the answer read in the transaction
    # (document, positions, payments).
    assert counts == [15, 15]


async def test_converting_an_offer_costs_the_same_statements_with_1_or_1000_positions(
    client: httpx.AsyncClient, factory: Factory, auth: dict[str, str]
) -> None:
    await build_shop(factory)
    counts = []
    for count in (1, 1000):
        payload = {"GrundDaten": {"KundNr": "100002"}, "Positionen": positions(count)}
        number = (await write(client, auth, "POST", "/www/offerte", payload, 201))[0]["OffertNr"]
        convert = {"GrundDaten": {"KundNr": "100002", "OffertNr": number}, "Zahlung": PAYMENTS}
        data, statements = await write(client, auth, "PUT", "/www/auftrag", convert, 201)
        order = body(await client.get(f"/www/auftrag/{data['AuftNr']}", headers=auth))["data"]
        assert len(order["Positionen"]) == count
        counts.append(statements)
    # The offer and the customer (locked); its positions; number (2); tax codes, currency; INSERT of the
    # order, INSERT ... SELECT of its positions, INSERT of its payments; UPDATE of the offer; the event
    # switch; the answer read in the transaction (document, positions, payments).
    assert counts == [15, 15]


async def test_an_order_answered_with_its_number_reads_no_addresses(
    client: httpx.AsyncClient, factory: Factory, db: Database, auth: dict[str, str]
) -> None:
    """POST /www/auftrag answers {"AuftNr"}: the order's addresses and payment condition text, which a
    GraphQL client selecting them gets as the transaction read them, are not read for it."""
    await build_shop(factory)
    customer = await new_customer(client, auth, CONTACT_FRE, DELIVERY_FRE)
    await set_customer(db, customer, payment_condition=1)
    payload = {"GrundDaten": {"KundNr": customer}, "Positionen": positions(3), "Zahlung": PAYMENTS}
    _, statements = await write(client, auth, "POST", "/www/auftrag", payload, 201)
    assert statements == 9 + NUMBER  # as for a customer without addresses
