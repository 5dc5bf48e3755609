"""The effective view of the catalogue for one request: language, currency and price-list chain."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import bindparam, select

from datasources import iso
from datasources.errors import NotFound
from datasources.models import Currency, Customer, PriceList
from datasources.reads import Query, Reads, Row

DEFAULT_LANGUAGE = "ger"


@dataclass(frozen=True, slots=True)
class CatalogueView:
    language: str
    currency: str
    # Price lists to try in order: the customer's list type, then the configured default.
    price_list_ids: tuple[int, ...]


_LEADING_CURRENCY = Query(select(Currency.code).where(Currency.is_leading))
_PRICE_LISTS = Query(select(PriceList.id, PriceList.list_type, PriceList.is_default))
_CUSTOMER = Query(select(Customer.language, Customer.price_list_type).where(Customer.number == bindparam("number")))


async def resolve_view(
    reads: Reads,
    *,
    language: str | None = None,
    currency: str | None = None,
    customer_number: str | None = None,
) -> CatalogueView:
    lang = iso.language(language, field="language") if language else DEFAULT_LANGUAGE
    code = iso.currency(currency, field="currency") if currency else None
    customer_list_type: str | None = None
    if customer_number is not None:
        found = await reads.rows(_CUSTOMER, number=customer_number)
        if not found:
            raise NotFound(f"customer {customer_number!r} does not exist", field="customerNumber")
        # The customer's own language has priority over the one asked for.
        lang, customer_list_type = found[0]
    # Asked for together: one batch (datasources/reads).
    wanted = [reads.rows(_PRICE_LISTS)] if code else [reads.rows(_PRICE_LISTS), reads.rows(_LEADING_CURRENCY)]
    lists, *leading = await asyncio.gather(*wanted)
    if code is None:
        code = leading[0][0][0] if leading[0] else "CHF"
    return CatalogueView(lang, code, _price_list_chain(lists, customer_list_type))


def _price_list_chain(rows: Sequence[Row], list_type: str | None) -> tuple[int, ...]:
    chain = [list_id for list_id, type_, _ in rows if list_type is not None and type_ == list_type]
    chain += [list_id for list_id, _, is_default in rows if is_default and list_id not in chain]
    return tuple(chain)
