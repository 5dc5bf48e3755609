"""What the ERP may store and no database check prevents (a packaging unit of Faktor 0, a negative tax rate or
price, stock beyond what the interface's integer holds, an article without any tax rate) gives a clear 422 that
names the record, never a 500: through the real routes, orders and offers alike."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx
import pytest
from sqlalchemy import delete, update

from datasources.database import Database
from datasources.models import PackagingUnit, Price, Stock, TaxCode
from tests.catalogue_data import Catalogue
from tests.factories import Factory
from tests.sales_data import build_shop, call


@pytest.fixture
async def shop(factory: Factory) -> Catalogue:
    return await build_shop(factory)


def order(*positions: dict[str, Any]) -> dict[str, Any]:
    return {"GrundDaten": {"KundNr": "100002"}, "Positionen": list(positions)}


async def write(db: Database, statement: Any) -> None:
    async with db.writer() as session, session.begin():
        await session.execute(statement)


async def refused(client: httpx.AsyncClient, auth: dict[str, str], *positions: dict[str, Any]) -> dict[str, Any]:
    answers = [
        await call(client, "POST", "/www/auftrag", auth, order(*positions), status=422),
        await call(client, "POST", "/www/offerte", auth, {**order(*positions)}, status=422),
    ]
    assert answers[0] == answers[1]  # an offer is priced as an order is
    assert answers[0]["error"] == "unprocessable"
    info: dict[str, Any] = answers[0]["info"]
    return {"description": answers[0]["error_description"], **info}


@pytest.mark.parametrize("factor", ["0", "-12"])
async def test_a_packaging_unit_of_no_or_negative_factor_is_named(
    client: httpx.AsyncClient, db: Database, shop: Catalogue, auth: dict[str, str], factor: str
) -> None:
    await write(db, update(PackagingUnit).where(PackagingUnit.code == "KAR").values(factor=Decimal(factor)))
    shown = f"{Decimal(factor).normalize():f}"
    description = "packaging unit KAR of article {} has Faktor " + shown + ": it cannot be ordered in that unit"
    expected: dict[str, Any] = {
        "description": description.format("A-200"),
        "field": "Positionen.0.VPEinheit",
        "position": 1,
        "ArtNr": "A-200",
        "VPEinheit": "KAR",
    }
    assert await refused(client, auth, {"ArtNr": "A-200", "Menge": 24, "VPEinheit": "KAR"}) == expected
    # The only unit, taken without VPEinheit (A-800 offers KAR alone).
    expected |= {"description": description.format("A-800"), "ArtNr": "A-800"}
    assert await refused(client, auth, {"ArtNr": "A-800", "Menge": 24}) == expected
    # The article's page still shows the unit as stored.
    listed = await call(client, "GET", "/www/artikel/A-200", auth, status=200)
    assert {u["VPEinheit"]: u["Faktor"] for u in listed["data"]["Verpackungen"]}["KAR"] == float(factor)


async def test_a_zero_factor_unit_not_ordered_in_is_no_obstacle(
    client: httpx.AsyncClient, db: Database, factory: Factory, shop: Catalogue, auth: dict[str, str]
) -> None:
    await write(db, update(PackagingUnit).where(PackagingUnit.code == "PAL").values(factor=Decimal(0)))
    await call(
        client, "POST", "/www/auftrag", auth, order({"ArtNr": "A-200", "Menge": 24, "VPEinheit": "KAR"}), status=201
    )
    # Several units and none of factor 1: the refusal lists them, the one of Faktor 0 too.
    nails = await call(client, "POST", "/www/auftrag", auth, order({"ArtNr": "A-900", "Menge": 12}), status=422)
    assert "PAL (0), KAR (12)" in nails["error_description"]


@pytest.mark.parametrize("rate", ["-100", "-2.5"])
async def test_a_negative_tax_rate_is_named(
    client: httpx.AsyncClient, db: Database, shop: Catalogue, auth: dict[str, str], rate: str
) -> None:
    await write(db, update(TaxCode).where(TaxCode.code == "N81").values(rate=Decimal(rate)))
    expected = {
        "description": f"tax code N81 of article A-200 has the rate {Decimal(rate).normalize():f} %: "
        "the ERP's rate cannot be used",
        "field": "Positionen.0.ArtNr",
        "position": 1,
        "ArtNr": "A-200",
        "WUSTCode": "N81",
    }
    assert await refused(client, auth, {"ArtNr": "A-200", "Menge": 24, "VPEinheit": "KAR"}) == expected


async def test_an_article_without_any_tax_rate_is_named(
    client: httpx.AsyncClient, db: Database, shop: Catalogue, auth: dict[str, str]
) -> None:
    await write(db, update(TaxCode).values(is_standard=False))  # A-200 has no tax code of its own
    expected = {
        "description": "article A-200 has no tax code and the ERP has no standard rate",
        "field": "Positionen.0.ArtNr",
        "position": 1,
        "ArtNr": "A-200",
    }
    assert await refused(client, auth, {"ArtNr": "A-200", "Menge": 24, "VPEinheit": "KAR"}) == expected


async def test_a_negative_list_price_is_named_and_a_zero_one_sells(
    client: httpx.AsyncClient, db: Database, shop: Catalogue, auth: dict[str, str]
) -> None:
    await write(db, update(Price).where(Price.packaging_unit == "STK").values(amount=Decimal("-2")))
    expected = {
        "description": "the price of article A-200 per STK from 1 is negative (-2.0000): it cannot be used",
        "field": "Positionen.0.ArtNr",
        "position": 1,
        "ArtNr": "A-200",
        "VPEinheit": "STK",
    }
    assert await refused(client, auth, {"ArtNr": "A-200", "Menge": 7}) == expected
    await write(db, update(Price).where(Price.packaging_unit == "STK").values(amount=Decimal(0)))
    created = await call(client, "POST", "/www/auftrag", auth, order({"ArtNr": "A-200", "Menge": 7}), status=201)
    data = await call(client, "GET", f"/www/auftrag/{created['data']['AuftNr']}", auth, status=200)
    assert data["data"]["GrundDaten"]["AuftNetto"] == 0


@pytest.mark.parametrize("minimum", ["0", "-5"])
async def test_a_tier_from_zero_or_below_applies_from_the_first_piece(
    client: httpx.AsyncClient, db: Database, shop: Catalogue, auth: dict[str, str], minimum: str
) -> None:
    await write(db, update(Price).where(Price.packaging_unit == "STK").values(min_quantity=Decimal(minimum)))
    created = await call(client, "POST", "/www/auftrag", auth, order({"ArtNr": "A-200", "Menge": 7}), status=201)
    data = await call(client, "GET", f"/www/auftrag/{created['data']['AuftNr']}", auth, status=200)
    assert data["data"]["GrundDaten"]["AuftNetto"] == 14.0


async def test_stock_beyond_the_interfaces_integer_is_named(
    client: httpx.AsyncClient, db: Database, shop: Catalogue, auth: dict[str, str]
) -> None:
    await write(db, delete(Stock).where(Stock.packaging_unit.is_(None)))
    await write(db, update(Stock).where(Stock.packaging_unit == "STK").values(on_hand=Decimal("3000000000")))
    answer = await call(client, "GET", "/www/artikel/A-200", auth, status=422)
    assert answer["error"] == "unprocessable"
    assert answer["info"]["ArtNr"] == "A-200"
    listed = await call(client, "GET", "/www/artikel", auth, status=422)
    assert listed["info"]["ArtNr"] == "A-200"
    await write(db, update(Stock).where(Stock.packaging_unit == "STK").values(on_hand=Decimal("-3000000000")))
    await call(client, "GET", "/www/artikel/A-200", auth, status=422)
