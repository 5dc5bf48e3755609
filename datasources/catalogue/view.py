"""The effective view of the catalogue for one request: language, currency and price-list chain."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import iso
from datasources.errors import NotFound
from datasources.models import Currency, Customer, PriceList

DEFAULT_LANGUAGE = "ger"


@dataclass(frozen=True, slots=True)
class CatalogueView:
    language: str
    currency: str
    # Price lists to try in order: the customer's list type, then the configured default.
    price_list_ids: tuple[int, ...]


async def resolve_view(
    session: AsyncSession,
    *,
    language: str | None = None,
    currency: str | None = None,
    customer_number: str | None = None,
) -> CatalogueView:
    lang = iso.language(language, field="language") if language else DEFAULT_LANGUAGE
    code = iso.currency(currency, field="currency") if currency else await _leading_currency(session)
    customer_list_type: str | None = None
    if customer_number is not None:
        row = (
            await session.execute(
                select(Customer.language, Customer.price_list_type).where(Customer.number == customer_number)
            )
        ).one_or_none()
        if row is None:
            raise NotFound(f"customer {customer_number!r} does not exist", field="customerNumber")
        # The customer's own language has priority over the one asked for.
        lang, customer_list_type = row.language, row.price_list_type
    return CatalogueView(lang, code, await _price_list_chain(session, customer_list_type))


async def _leading_currency(session: AsyncSession) -> str:
    code = await session.scalar(select(Currency.code).where(Currency.is_leading))
    return code or "CHF"


async def _price_list_chain(session: AsyncSession, list_type: str | None) -> tuple[int, ...]:
    rows = (await session.execute(select(PriceList.id, PriceList.list_type, PriceList.is_default))).all()
    chain = [row.id for row in rows if list_type is not None and row.list_type == list_type]
    chain += [row.id for row in rows if row.is_default and row.id not in chain]
    return tuple(chain)
