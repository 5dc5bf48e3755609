"""Factories for catalogue rows: sensible defaults, everything overridable, one commit per call."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from datasources.database import Database
from datasources.models import (
    Article,
    ArticleAttribute,
    ArticleDesignation,
    Currency,
    Customer,
    Declaration,
    Media,
    PackagingUnit,
    PaymentCondition,
    Price,
    PriceList,
    Reservation,
    Stock,
    TaxCode,
    Warehouse,
)

MODIFIED = dt.datetime(2026, 3, 1, 8, 30, tzinfo=dt.UTC)
_numbers = itertools.count(1)


class Factory:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def add(self, *rows: Any) -> None:
        async with self.db.writer() as session, session.begin():
            session.add_all(rows)

    async def reference_data(self) -> dict[str, int]:
        """CHF (leading) and EUR, Swiss tax codes, a default list STD, a reseller list WV, a gross list."""
        await self.add(
            Currency(code="CHF", name="Swiss franc", is_leading=True, rounding_step=Decimal("0.05")),
            Currency(code="EUR", name="Euro", rounding_step=Decimal("0.01")),
            TaxCode(
                code="N81",
                designation="Normalsatz",
                rate=Decimal("8.1"),
                is_standard=True,
                turnover_line="200",
                sales_tax_line="303",
                input_tax_line="400",
            ),
            TaxCode(
                code="R26",
                designation="Reduzierter Satz",
                rate=Decimal("2.6"),
                turnover_line="200",
                sales_tax_line="313",
                input_tax_line="400",
            ),
            TaxCode(
                code="B38",
                designation="Beherbergung",
                rate=Decimal("3.8"),
                turnover_line="200",
                sales_tax_line="343",
                input_tax_line="400",
            ),
            PaymentCondition(condition_type=1, language="ger", text="30 Tage netto"),
            PaymentCondition(condition_type=1, language="fre", text="30 jours net"),
            PaymentCondition(condition_type=2, language="ger", text="10 Tage 2 % Skonto"),
            PriceList(id=1, list_type="STD", name="Standard", is_default=True),
            PriceList(id=2, list_type="WV", name="Wiederverkauf"),
            PriceList(id=3, list_type="BRUTTO", name="Brutto", price_kind="B"),
        )
        return {"STD": 1, "WV": 2, "BRUTTO": 3}

    async def article(
        self,
        number: str | None = None,
        *,
        designations: Mapping[str, str] | None = None,
        exposed: bool = True,
        attributes: Mapping[str, str] | None = None,
        units: Iterable[PackagingUnit] = (),
        **fields: Any,
    ) -> Article:
        number = number or f"T-{next(_numbers):05d}"
        article = Article(number=number, modified_at=MODIFIED, **fields)
        async with self.db.writer() as session, session.begin():
            session.add(article)
            await session.flush()
            texts = designations if designations is not None else {"ger": f"Artikel {number}"}
            session.add_all(ArticleDesignation(article_id=article.id, language=k, text=v) for k, v in texts.items())
            attrs = dict(attributes or {})
            if exposed:
                attrs.setdefault("RESTWEBSHOP", "1")
            session.add_all(ArticleAttribute(article_id=article.id, key=k, contents=v) for k, v in attrs.items())
            for unit in units:
                unit.article_id = article.id
                session.add(unit)
        return article

    async def price(
        self,
        article: Article,
        amount: str,
        *,
        price_list: int = 1,
        currency: str = "CHF",
        min_quantity: str = "1",
        unit: str | None = None,
        price_range: str | None = None,
    ) -> None:
        await self.add(
            Price(
                article_id=article.id,
                price_list_id=price_list,
                currency=currency,
                packaging_unit=unit,
                price_range=price_range,
                min_quantity=Decimal(min_quantity),
                amount=Decimal(amount),
                modified_at=MODIFIED,
            )
        )

    async def warehouse(self, name: str, location: int, *, released: bool = True) -> Warehouse:
        warehouse = Warehouse(name=name, location_number=location, released=released)
        await self.add(warehouse)
        return warehouse

    async def stock(
        self,
        article: Article,
        warehouse: Warehouse,
        on_hand: str,
        *,
        unit: str | None = None,
        reserved: Iterable[str] = (),
    ) -> None:
        rows: list[Any] = [
            Stock(
                article_id=article.id,
                warehouse_id=warehouse.id,
                packaging_unit=unit,
                on_hand=Decimal(on_hand),
            )
        ]
        rows += [
            Reservation(article_id=article.id, warehouse_id=warehouse.id, packaging_unit=unit, quantity=Decimal(q))
            for q in reserved
        ]
        await self.add(*rows)

    async def declaration(self, article: Article, language: str, **fields: Any) -> Declaration:
        declaration = Declaration(article_id=article.id, language=language, **fields)
        await self.add(declaration)
        return declaration

    async def media(self, article: Article, file_name: str, **fields: Any) -> Media:
        media = Media(article_id=article.id, file_name=file_name, modified_at=MODIFIED, **fields)
        await self.add(media)
        return media

    async def customer(self, number: str, **fields: Any) -> Customer:
        fields.setdefault("currency", "CHF")
        customer = Customer(number=number, **fields)
        await self.add(customer)
        return customer


def unit(code: str, factor: str = "1", **fields: Any) -> PackagingUnit:
    return PackagingUnit(code=code, factor=Decimal(factor), **fields)
