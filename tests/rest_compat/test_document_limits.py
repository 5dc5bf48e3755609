"""Positions and payments of a document are bounded (GATEWAY_MAX_POSITIONS, GATEWAY_MAX_PAYMENTS): at the
REST edge before any GraphQL or database work (400 naming Positionen or Zahlung with info.limit), for
GraphQL clients before their variables are coerced (schema/limits/inputs.py), and in the domain for what a
PATCH leaves of an offer."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager

from datasources.database import Database
from gateway.app import create_app
from gateway.settings import Settings
from schema.limits import RequestLimits
from tests.catalogue_data import Catalogue
from tests.factories import Factory
from tests.http import body, error, statement_count
from tests.sales_data import build_shop, call, row_counts

HAMMER = {"ArtNr": "A-100", "Menge": 1}
PAYMENT = {"Bezeichnung": "TransID", "Wert": "T-1"}


@pytest.fixture
async def shop(factory: Factory) -> Catalogue:
    return await build_shop(factory)


@pytest.fixture
async def small(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The gateway configured with at most 3 positions and 2 payments per document."""
    limited = dataclasses.replace(settings, request_limits=RequestLimits(positions=3, payments=2))
    async with LifespanManager(create_app(limited)) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            yield http


def order(positions: int, payments: int = 0, customer: str = "100002") -> dict[str, Any]:
    return {"GrundDaten": {"KundNr": customer}, "Positionen": [HAMMER] * positions, "Zahlung": [PAYMENT] * payments}


def too_many(field: str, limit: int) -> dict[str, Any]:
    return error("invalid_request", f"{field} has at most {limit} entries", field=field, limit=limit)


async def refused(client: httpx.AsyncClient, auth: dict[str, str], method: str, url: str, payload: Any) -> Any:
    """Refused at the edge: 400, and not one statement ran."""
    response = await client.request(method, url, json=payload, headers=auth)
    assert response.status_code == 400, response.text
    assert statement_count(response) == 0
    return body(response)


# --- the defaults: 1000 positions, 100 payments -----------------------------------------------------


async def test_an_order_of_1000_positions_is_placed_and_one_of_1001_refused(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    created = await call(client, "POST", "/www/auftrag", auth, order(1000, 100), status=201)
    assert created == {"data": {"AuftNr": "500001"}}
    data = (await call(client, "GET", "/www/auftrag/500001", auth, status=200))["data"]
    assert [p["PosNr"] for p in data["Positionen"]] == list(range(1, 1001))
    assert [p["Key"] for p in data["Zahlung"]] == [f"Z{n}" for n in range(1, 101)]
    # 1000 positions of one hammer at 12.50 (tiers count per position): net 12,500.00; tax per position
    # 12.50 * 2.6 % = 0.325 -> 0.33, 330.00 in all
    assert (data["GrundDaten"]["AuftNetto"], data["GrundDaten"]["AuftWUST"]) == (12500.0, 330.0)
    before = await row_counts(db)

    assert await refused(client, auth, "POST", "/www/auftrag", order(1001)) == too_many("Positionen", 1000)
    assert await refused(client, auth, "POST", "/www/auftrag", order(1, 101)) == too_many("Zahlung", 100)
    assert await row_counts(db) == before


async def test_offers_and_conversions_are_bounded_at_the_edge(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    offer = {"GrundDaten": {"KundNr": "100002"}, "Positionen": [HAMMER] * 1000}
    created = await call(client, "POST", "/www/offerte", auth, offer, status=201)
    assert len(created["data"]["Positionen"]) == 1000
    before = await row_counts(db)

    offer["Positionen"] = [HAMMER] * 1001
    assert await refused(client, auth, "POST", "/www/offerte", offer) == too_many("Positionen", 1000)
    changes = {"Positionen": [{"PosNr": 1, "Menge": 2}] * 1001}
    assert await refused(client, auth, "PATCH", "/www/offerte?OffertNr=300001", changes) == too_many("Positionen", 1000)
    convert = {"GrundDaten": {"KundNr": "100002", "OffertNr": "300001"}, "Zahlung": [PAYMENT] * 101}
    assert await refused(client, auth, "PUT", "/www/auftrag", convert) == too_many("Zahlung", 100)
    assert await row_counts(db) == before


async def test_a_patch_may_not_grow_an_offer_past_the_limit(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    await call(client, "POST", "/www/offerte", auth, {"Positionen": [HAMMER] * 1000}, status=201)
    before = await row_counts(db)

    answer = await call(client, "PATCH", "/www/offerte?OffertNr=300001", auth, {"Positionen": [HAMMER]}, status=400)
    assert answer == error(
        "invalid_request",
        "an offer has at most 1000 positions; after this change it would have 1001",
        limit=1000,
        field="Positionen",
    )
    assert await row_counts(db) == before
    # Deleting one makes room for one.
    changes = {"Positionen": [{"PosNr": 1, "Menge": 0}, HAMMER]}
    data = (await call(client, "PATCH", "/www/offerte?OffertNr=300001", auth, changes, status=200))["data"]
    assert [p["PosNr"] for p in data["Positionen"]] == list(range(2, 1002))


# --- configured limits: GATEWAY_MAX_POSITIONS=3, GATEWAY_MAX_PAYMENTS=2 -----------------------------------


async def test_the_configured_limits_bound_every_route(
    small: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    assert await refused(small, auth, "POST", "/www/auftrag", order(4)) == too_many("Positionen", 3)
    assert await refused(small, auth, "POST", "/www/auftrag", order(1, 3)) == too_many("Zahlung", 2)
    template = {"Positionen": [HAMMER] * 4}
    assert await refused(small, auth, "POST", "/www/offerte", template) == too_many("Positionen", 3)
    assert await call(small, "POST", "/www/auftrag", auth, order(3, 2), status=201) == {"data": {"AuftNr": "500001"}}

    await call(small, "POST", "/www/offerte", auth, {"Positionen": [HAMMER] * 3}, status=201)
    before = await row_counts(db)
    answer = await call(small, "PATCH", "/www/offerte?OffertNr=300001", auth, {"Positionen": [HAMMER]}, status=400)
    assert answer == error(
        "invalid_request",
        "an offer has at most 3 positions; after this change it would have 4",
        limit=3,
        field="Positionen",
    )
    convert = {"GrundDaten": {"KundNr": "100002", "OffertNr": "300001"}, "Zahlung": [PAYMENT] * 3}
    assert await refused(small, auth, "PUT", "/www/auftrag", convert) == too_many("Zahlung", 2)
    assert await row_counts(db) == before


async def test_an_offer_stored_under_a_higher_limit_is_not_converted_past_todays(
    client: httpx.AsyncClient, small: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    await call(
        client,
        "POST",
        "/www/offerte",
        auth,
        {"GrundDaten": {"KundNr": "100002"}, "Positionen": [HAMMER] * 4},
        status=201,
    )
    before = await row_counts(db)

    convert = {"GrundDaten": {"KundNr": "100002", "OffertNr": "300001"}}
    answer = await call(small, "PUT", "/www/auftrag", auth, convert, status=422)
    assert answer == error(
        "unprocessable",
        "offer 300001 has 4 positions; an order has at most 3",
        limit=3,
        field="GrundDaten.OffertNr",
    )
    assert await row_counts(db) == before
    # It can still be changed as long as it does not grow, e.g. down to the limit, and then converted.
    await call(
        small, "PATCH", "/www/offerte?OffertNr=300001", auth, {"Positionen": [{"PosNr": 4, "Menge": 0}]}, status=200
    )
    assert await call(small, "PUT", "/www/auftrag", auth, convert, status=201) == {
        "count": 1,
        "success": True,
        "data": {"AuftNr": "500001"},
    }


# --- GraphQL: a list past its limit is refused before anything runs; what a change leaves, by the domain ---


def mutation_document(mutation: str, input_type: str, result: str, arguments: str = "") -> str:
    return (
        f"mutation($input: {input_type}!) {{ {mutation}({arguments}input: $input) "
        f"{{ {result} {{ number }} errors {{ field code message info }} }} }}"
    )


GRAPHQL = {
    "orderCreate": mutation_document("orderCreate", "DocumentInput", "order"),
    "offerCreate": mutation_document("offerCreate", "DocumentInput", "offer"),
    "offerUpdate": mutation_document("offerUpdate", "OfferUpdateInput", "offer", 'number: "300001", '),
    "offerConvert": mutation_document("offerConvert", "OfferConvertInput", "order"),
}
GRAPHQL_HAMMER = {"articleNumber": "A-100", "quantity": 1}
GRAPHQL_PAYMENT = {"designation": "TransID"}


async def graphql_mutation(
    client: httpx.AsyncClient, auth: dict[str, str], mutation: str, input: Any
) -> httpx.Response:
    return await client.post("/graphql", json={"query": GRAPHQL[mutation], "variables": {"input": input}}, headers=auth)


@pytest.mark.parametrize(
    ("mutation", "input", "field", "message", "limit"),
    [
        (
            "orderCreate",
            {"customerNumber": "100002", "positions": [GRAPHQL_HAMMER] * 4},
            "input.positions",
            "at most 3 positions",
            3,
        ),
        (
            "orderCreate",
            {"customerNumber": "100002", "positions": [GRAPHQL_HAMMER], "payments": [GRAPHQL_PAYMENT] * 3},
            "input.payments",
            "at most 2 payments",
            2,
        ),
        ("offerCreate", {"positions": [GRAPHQL_HAMMER] * 4}, "input.positions", "at most 3 positions", 3),
        ("offerUpdate", {"positions": [GRAPHQL_HAMMER] * 4}, "input.positions", "at most 3 position changes", 3),
        (
            "offerConvert",
            {"offerNumber": "300001", "customerNumber": "100002", "payments": [GRAPHQL_PAYMENT] * 3},
            "input.payments",
            "at most 2 payments",
            2,
        ),
    ],
)
async def test_graphql_lists_past_the_configured_limits_are_refused_before_anything_runs(
    small: httpx.AsyncClient,
    shop: Catalogue,
    auth: dict[str, str],
    db: Database,
    mutation: str,
    input: dict[str, Any],
    field: str,
    message: str,
    limit: int,
) -> None:
    await call(small, "POST", "/www/offerte", auth, {"Positionen": [HAMMER] * 3}, status=201)
    before = await row_counts(db)

    response = await graphql_mutation(small, auth, mutation, input)

    extensions = {"code": "invalid_request", "info": {"limit": limit, "field": field}, "field": field}
    assert response.json() == {"data": None, "errors": [{"message": message, "extensions": extensions}]}
    assert statement_count(response) == 0
    assert await row_counts(db) == before


async def test_a_graphql_offer_change_may_not_leave_more_positions_than_the_limit(
    small: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    await call(small, "POST", "/www/offerte", auth, {"Positionen": [HAMMER] * 3}, status=201)
    before = await row_counts(db)

    response = await graphql_mutation(small, auth, "offerUpdate", {"positions": [GRAPHQL_HAMMER]})

    assert response.json()["data"]["offerUpdate"]["errors"] == [
        {
            "field": "positions",
            "code": "INVALID_REQUEST",
            "message": "an offer has at most 3 positions; after this change it would have 4",
            "info": {"limit": 3},
        }
    ]
    assert await row_counts(db) == before
